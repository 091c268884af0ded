#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

#include "traffic/request_contexts.hpp"

using namespace clustersim;

namespace {

std::uint64_t sum(const std::vector<std::uint64_t>& v) {
    return std::accumulate(v.begin(), v.end(), std::uint64_t{0});
}

}  // namespace

TEST_CASE("request contexts: every rank gets its requests, drawn within bounds, reproducibly",
          "[contexts]") {
    KvLengthDistribution d;
    d.kind = KvLengthKind::Lognormal;
    d.mean_tokens = 4989;
    d.sigma = 1.0;
    d.min_tokens = 16;
    d.max_tokens = 131072;
    for (const RequestBalance b : {RequestBalance::Kv, RequestBalance::Count}) {
        RandomStream a(1, "contexts"), again(1, "contexts");
        const auto x = assign_request_contexts(d, b, 16, 64, a);
        CHECK(x == assign_request_contexts(d, b, 16, 64, again));
        REQUIRE(x.size() == 16);
        std::uint64_t total = 0;
        for (const auto& r : x) {
            CHECK(r.size() == 64);
            for (const std::uint64_t kv : r) CHECK((kv >= 16 && kv <= 131072));
            total += sum(r);
        }
        // 1,024 draws of a lognormal of mean 4,989: their mean within 15 % (sigma 1: the mean of
        // n draws has a relative deviation of about sqrt(e - 1) / sqrt(n) = 4 %).
        CHECK(static_cast<double>(total) / 1024 == Approx(4989).epsilon(0.15));
    }
}

TEST_CASE("balancing KV tokens narrows the spread across ranks that counts alone leave",
          "[contexts]") {
    KvLengthDistribution d;
    d.kind = KvLengthKind::Uniform;
    d.min_tokens = 256;
    d.max_tokens = 16384;
    RandomStream r1(3, "contexts"), r2(3, "contexts");
    auto spread = [](const std::vector<std::vector<std::uint64_t>>& x) {
        std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
        for (const auto& r : x) {
            lo = std::min(lo, sum(r));
            hi = std::max(hi, sum(r));
        }
        return hi - lo;
    };
    const auto by_count = assign_request_contexts(d, RequestBalance::Count, 32, 16, r1);
    const auto by_kv = assign_request_contexts(d, RequestBalance::Kv, 32, 16, r2);
    // The same pool of requests either way.
    std::uint64_t a = 0, b = 0;
    for (std::size_t i = 0; i < 32; ++i) {
        a += sum(by_count[i]);
        b += sum(by_kv[i]);
    }
    CHECK(a == b);
    CHECK(spread(by_kv) * 10 < spread(by_count));
    CHECK(spread(by_kv) <= d.max_tokens);  // greedy: within one request of even
    // A fixed context: every request the same.
    KvLengthDistribution fixed;
    fixed.tokens = 4096;
    RandomStream r3(3, "contexts");
    for (const auto& r : assign_request_contexts(fixed, RequestBalance::Kv, 4, 8, r3))
        CHECK(sum(r) == 8 * 4096);
}
