#pragma once
// The cost/objective Pareto front of a sweep: a point is on it when no other point is at most as
// expensive and at least as good, and strictly better in one of the two. Equal points do not
// dominate each other: both stay on the front.
#include <optional>
#include <span>
#include <vector>

namespace clustersim {

struct ParetoPoint {
    std::optional<double> cost, objective;  // missing: not ranked (a failed point)
};

/// One flag per point: on the front. `maximize`: larger objectives are better.
std::vector<bool> pareto_front(std::span<const ParetoPoint> points, bool maximize);

}  // namespace clustersim
