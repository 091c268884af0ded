#include <catch2/catch.hpp>

#include <vector>

#include "tools/scenario/pareto.hpp"

using namespace clustersim;

TEST_CASE(
    "Pareto front: a point at most as costly and at least as good, better in one, "
    "dominates -- equal points do not dominate each other",
    "[sweep][pareto]") {
    // cost, objective (larger is better)
    const std::vector<ParetoPoint> points = {
        {1.0, 10.0},          // 0: cheapest best: front
        {1.0, 10.0},          // 1: ties 0 exactly: front as well
        {2.0, 10.0},          // 2: as good as 0, dearer: dominated
        {1.0, 5.0},           // 3: as cheap as 0, worse: dominated
        {3.0, 20.0},          // 4: dearer and better: front
        {3.0, 15.0},          // 5: dominated by 4
        {std::nullopt, 99.0}  // 6: failed point: never ranked
    };
    const std::vector<bool> max_front = pareto_front(points, true);
    CHECK(max_front == std::vector<bool>{true, true, false, false, true, false, false});
    // Smaller is better: 3 (cost 1, 5) now dominates 0 and 1; 2 is dominated by 3.
    const std::vector<bool> min_front = pareto_front(points, false);
    CHECK(min_front == std::vector<bool>{false, false, false, true, false, false, false});
    CHECK(pareto_front({}, true).empty());
}
