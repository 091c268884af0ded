#pragma once
// One scheduled event: a small by-value record. The model that owns `target` interprets `kind`;
// the kernel orders events by (time, source process, sequence within it), which makes every run
// deterministic and lets a parallel run, whose processes count their own events, give the
// serial run's order exactly.
#include <cstdint>

#include "sim/time.hpp"
#include "sim/wide_int.hpp"

namespace clustersim {

/// A logical process: the part of a model that handles an event's target (a switch, a node).
inline constexpr unsigned kProcessBits = 24;
inline constexpr unsigned kSequenceBits = 64 - kProcessBits;

struct Event {
    Time time;
    // The scheduling process in the top kProcessBits, then that process's count of events it
    // has scheduled: (time, sequence) is (time, source process, sequence).
    std::uint64_t sequence = 0;
    std::uint32_t target = 0;
    std::uint32_t kind : 8 = 0;
    std::uint32_t process : kProcessBits = 0;  // the process that handles it

    // One 128-bit comparison (time, then sequence): branch-free in the heap's inner loop. The
    // sign bit is flipped so that negative times order before positive ones.
    friend constexpr bool operator<(const Event& a, const Event& b) { return a.key() < b.key(); }
    constexpr uint128 key() const {
        const std::uint64_t t = static_cast<std::uint64_t>(time.ps()) ^ (std::uint64_t{1} << 63);
        return static_cast<uint128>(t) << 64 | sequence;
    }
    constexpr std::uint32_t source() const {
        return static_cast<std::uint32_t>(sequence >> kSequenceBits);
    }
};
static_assert(sizeof(Event) == 24);

}  // namespace clustersim
