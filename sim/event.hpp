#pragma once
// One scheduled event: a small by-value record. The model that owns `target` interprets `kind`;
// the kernel only orders events by (time, sequence), which makes every run deterministic.
#include <cstdint>

#include "sim/time.hpp"

namespace clustersim {

struct Event {
    Time time;
    std::uint64_t sequence = 0;
    std::uint32_t target = 0;
    std::uint32_t kind = 0;

    friend constexpr bool operator<(const Event& a, const Event& b) {
        return a.time < b.time || (a.time == b.time && a.sequence < b.sequence);
    }
};

}  // namespace clustersim
