#pragma once
// Credits on their way back to a port over its link, in time order. A trip back takes the
// cable's propagation delay (50 ns on a fabric cable: one or two packets' worth), so a one-lane
// port keeps the few in flight in its own credit line and spills to a ring only past that: a
// separately allocated ring was a cache miss on every hop at scale (docs/performance.md).
#include <array>
#include <cstdint>

#include "sim/time.hpp"

namespace clustersim {

struct CreditReturn {
    Time at;  // when the credit reaches the port
    std::uint32_t bytes = 0;
    std::uint32_t vl = 0;
};

/// Up to three lane-0 returns, oldest first. `spilled`: later ones wait in the port's ring
/// (which then holds every newer return, so the order stays the order of arrival) -- a copy of
/// "the ring is not empty" kept on this line, so that a return or a service reads the ring's
/// line only when it holds something.
struct NearCredits {
    static constexpr std::uint32_t kCapacity = 3;

    bool empty() const { return count == 0; }
    bool full() const { return count == kCapacity; }
    Time front_at() const { return at[0]; }
    std::uint32_t front_bytes() const { return bytes[0]; }
    void push_back(Time when, std::uint32_t b) {
        at[count] = when;
        bytes[count] = b;
        ++count;
    }
    void pop_front() {
        at[0] = at[1];
        at[1] = at[2];
        bytes[0] = bytes[1];
        bytes[1] = bytes[2];
        --count;
    }

    std::array<Time, kCapacity> at{};
    std::array<std::uint32_t, kCapacity> bytes{};
    std::uint8_t count = 0;
    bool spilled = false;
};

}  // namespace clustersim
