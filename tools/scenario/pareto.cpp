#include "tools/scenario/pareto.hpp"

namespace clustersim {

std::vector<bool> pareto_front(std::span<const ParetoPoint> points, bool maximize) {
    std::vector<bool> front(points.size(), false);
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& [ci, oi] = points[i];
        if (!ci || !oi) continue;
        bool dominated = false;
        for (std::size_t j = 0; j < points.size() && !dominated; ++j) {
            const auto& [cj, oj] = points[j];
            if (j == i || !cj || !oj) continue;
            const bool as_good = maximize ? *oj >= *oi : *oj <= *oi;
            const bool better = maximize ? *oj > *oi : *oj < *oi;
            dominated = *cj <= *ci && as_good && (*cj < *ci || better);
        }
        front[i] = !dominated;
    }
    return front;
}

}  // namespace clustersim
