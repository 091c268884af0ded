#pragma once
// The cost/objective Pareto front of a sweep, with the noise of its replicates: two points whose
// objective intervals (mean +- 95 % half-width) overlap are tied on the objective, and a point
// is off the front when another is at most as expensive and better or tied, and strictly
// cheaper or better beyond the noise. Points on the front that are tied are said to be.
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace clustersim {

struct ParetoPoint {
    std::optional<double> cost, objective;  // missing: not ranked (a failed point)
    double objective_ci95 = 0;              // half-width of the objective's interval
};

/// Intervals [o - ci, o + ci] that overlap (equal means always do).
bool objectives_tied(const ParetoPoint& a, const ParetoPoint& b);

/// One flag per point: on the front. `maximize`: larger objectives are better.
std::vector<bool> pareto_front(std::span<const ParetoPoint> points, bool maximize);

/// Per point on `front`, the other points on it it is tied with (ascending).
std::vector<std::vector<std::size_t>> front_ties(std::span<const ParetoPoint> points,
                                                 const std::vector<bool>& front);

}  // namespace clustersim
