#include "tools/scenario/pareto.hpp"

#include <cmath>

namespace clustersim {

bool objectives_tied(const ParetoPoint& a, const ParetoPoint& b) {
    if (!a.objective || !b.objective) return false;
    return std::abs(*a.objective - *b.objective) <= a.objective_ci95 + b.objective_ci95;
}

std::vector<bool> pareto_front(std::span<const ParetoPoint> points, bool maximize) {
    std::vector<bool> front(points.size(), false);
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& [ci, oi, ei] = points[i];
        if (!ci || !oi) continue;
        bool dominated = false;
        for (std::size_t j = 0; j < points.size() && !dominated; ++j) {
            const auto& [cj, oj, ej] = points[j];
            if (j == i || !cj || !oj) continue;
            const bool tied = objectives_tied(points[i], points[j]);
            const bool better = !tied && (maximize ? *oj > *oi : *oj < *oi);
            dominated = *cj <= *ci && (better || tied) && (*cj < *ci || better);
        }
        front[i] = !dominated;
    }
    return front;
}

std::vector<std::vector<std::size_t>> front_ties(std::span<const ParetoPoint> points,
                                                 const std::vector<bool>& front) {
    std::vector<std::vector<std::size_t>> ties(points.size());
    for (std::size_t i = 0; i < points.size(); ++i)
        for (std::size_t j = 0; front[i] && j < points.size(); ++j)
            if (j != i && front[j] && objectives_tied(points[i], points[j])) ties[i].push_back(j);
    return ties;
}

}  // namespace clustersim
