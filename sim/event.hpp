#pragma once
// One scheduled event: a small by-value record. The model that owns `target` interprets `kind`;
// the kernel only orders events by (time, sequence), which makes every run deterministic.
#include <cstdint>

#include "sim/time.hpp"
#include "sim/wide_int.hpp"

namespace clustersim {

struct Event {
    Time time;
    std::uint64_t sequence = 0;
    std::uint32_t target = 0;
    std::uint32_t kind = 0;

    // One 128-bit comparison (time, then sequence): branch-free in the heap's inner loop. The
    // sign bit is flipped so that negative times order before positive ones.
    friend constexpr bool operator<(const Event& a, const Event& b) { return a.key() < b.key(); }
    constexpr uint128 key() const {
        const std::uint64_t t = static_cast<std::uint64_t>(time.ps()) ^ (std::uint64_t{1} << 63);
        return static_cast<uint128>(t) << 64 | sequence;
    }
};

}  // namespace clustersim
