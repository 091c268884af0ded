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

    // One 128-bit comparison (time, then sequence): branch-free in the heap's inner loop.
    friend constexpr bool operator<(const Event& a, const Event& b) { return a.key() < b.key(); }
    constexpr uint128 key() const {
        return static_cast<uint128>(static_cast<std::uint64_t>(time.ps())) << 64 | sequence;
    }
};

}  // namespace clustersim
