#pragma once
// A fault as a serving run sees it (the scenario library reads each `faults` entry into one):
// present from `at` to `until`, it either changes the times of the steps that start while it is
// present (the step model simulates them with it: a slow or lost link, a slow GPU), freezes the
// instances it hits (a hung GPU: every rank waits for it in the next all-to-all), or stops them
// (a lost GPU or NIC: the library aborts, the requests the instance holds fail, and it takes
// new ones once the fault is over).
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/time.hpp"

namespace clustersim {

enum class ServingFaultEffect : std::uint8_t { Steps, Freezes, Stops };
inline constexpr std::array<std::string_view, 3> kServingFaultEffectNames = {"steps", "freezes",
                                                                             "stops"};

struct ServingFault {
    ServingFaultEffect effect = ServingFaultEffect::Steps;
    Time at;
    Time until = Time::never();  // never: for good
    // The instances it hits, prefill and decode each counted from 0 (colocated: the decode
    // list alone); a Steps fault naming none (the fabric's) changes every instance's steps.
    std::vector<std::uint32_t> prefill_instances, decode_instances;
    // Steps: the kinds whose steps it changes (colocated: decode for both), and whether the
    // fabric reacts to it (a lost cable: the first step an instance takes with it sees the
    // reaction; a slow one is the same from the start).
    bool prefill_steps = true, decode_steps = true;
    bool reacts = false;
    bool present_at(Time t) const { return at <= t && t < until; }
};

}  // namespace clustersim
