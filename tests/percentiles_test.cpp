#include <catch2/catch.hpp>

#include "sim/percentiles.hpp"

using namespace clustersim;

TEST_CASE("percentiles use the nearest rank: of 1..100, p50 is 50, p90 is 90, p99 is 99",
          "[stats]") {
    std::vector<double> v;
    for (int i = 100; i >= 1; --i) v.push_back(i);  // unsorted on purpose
    const Summary s = summarise(v);
    CHECK(s.count == 100);
    CHECK(s.min == 1);
    CHECK(s.max == 100);
    CHECK(s.mean == Approx(50.5));
    CHECK(s.p50 == 50);
    CHECK(s.p90 == 90);
    CHECK(s.p99 == 99);
}

TEST_CASE("percentiles of a small sample round the rank up", "[stats]") {
    const Summary s = summarise({10, 20, 30});
    CHECK(s.p50 == 20);  // ceil(0.5 x 3) = 2nd
    CHECK(s.p90 == 30);  // ceil(0.9 x 3) = 3rd
    CHECK(summarise({}).count == 0);
}
