#include <catch2/catch.hpp>

#include "sim/data_rate.hpp"
#include "sim/percentiles.hpp"

using namespace clustersim;

TEST_CASE("serialisation time is bytes x 8 / rate, exact where the rate divides evenly", "[sim]") {
    const SerialisationClock c400(DataRate::from_gbps(400));
    CHECK(c400.time_for(4122).ps() == 82'440);  // 4122 B x 20 ps/B
    CHECK(c400.time_for(1).ps() == 20);
    const SerialisationClock c100(DataRate::from_gbps(100));
    CHECK(c100.time_for(64).ps() == 5'120);
}

TEST_CASE("serialisation at awkward rates is within a picosecond and never early", "[sim]") {
    const DataRate pcie = DataRate::from_gigabytes_per_s(63.0);  // 504 Gb/s
    const SerialisationClock c(pcie);
    for (std::uint64_t bytes : {1ull, 64ull, 4122ull, 1ull << 20, 1ull << 30}) {
        const double exact_ps = static_cast<double>(bytes) * 8e12 / static_cast<double>(pcie.bps());
        const auto t = static_cast<double>(c.time_for(bytes).ps());
        CHECK(t >= exact_ps - 1e-6);
        CHECK(t <= exact_ps + 1.0 + exact_ps * 1e-9);
    }
}

TEST_CASE("time converts between units without drift", "[sim]") {
    CHECK(Time::from_us(1.5).ps() == 1'500'000);
    CHECK(Time::from_ns(50).ps() == 50'000);
    CHECK(Time::from_ps(2'500'000).us() == Approx(2.5));
}

TEST_CASE("percentiles use the nearest rank", "[sim]") {
    std::vector<double> v;
    for (int i = 1; i <= 100; ++i) v.push_back(i);
    const Summary s = summarise(v);
    CHECK(s.p50 == 50);
    CHECK(s.p99 == 99);
    CHECK(s.max == 100);
    CHECK(s.mean == Approx(50.5));
}
