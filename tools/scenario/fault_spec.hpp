#pragma once
// One entry of a scenario's `faults:` list as the user wrote it, checked but not yet resolved
// against a fabric (tools/scenario/faults.hpp does that).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace clustersim {

enum class FaultKind : std::uint8_t {
    LinkDown,
    LinkSlow,
    LinkLossy,
    LinkFlap,
    LinkLatency,
    SwitchDown,
    NicDown,
    NicSlow,
    PlaneDown,
    GpuSlow,
    GpuHang,
    GpuDown,
    NodeDown,
};
inline constexpr std::array<std::string_view, 13> kFaultKindNames = {
    "link_down", "link_slow",  "link_lossy", "link_flap", "link_latency", "switch_down", "nic_down",
    "nic_slow",  "plane_down", "gpu_slow",   "gpu_hang",  "gpu_down",     "node_down"};
enum class FaultTargetKind : std::uint8_t { Gpu, Nic, Node, Switch, Plane, Link, Tier };
inline constexpr std::array<std::string_view, 7> kFaultTargetNames = {
    "gpu", "nic", "node", "switch", "plane", "link", "tier"};

struct FaultSpec {
    std::string key;  // `faults[i]`, what errors and results name it by
    FaultKind kind = FaultKind::LinkDown;
    FaultTargetKind target = FaultTargetKind::Link;
    std::uint64_t index = 0;  // gpu, nic, node, switch, plane
    std::string a, b;         // link: the two elements (`switch-3`, `nic-0`)
    std::uint32_t cable = 0;  // link: which of parallel cables (`index`)
    std::string tier;         // tier: `leaf-spine`, ...
    std::uint32_t count = 1;  // tier: cables chosen
    double at_us = 0;
    double until_us = -1;                        // < 0: to the end
    double rate_factor = 1;                      // link_slow
    double add_ns = 0;                           // link_latency
    double factor = 1;                           // gpu_slow: slowdown
    double loss_rate = 0;                        // link_lossy
    double period_us = 0, down_us = 0;           // link_flap
    std::uint32_t pcie_lanes = 0, pcie_gen = 0;  // nic_slow through its PCIe path (0: as is)
    bool ends() const { return until_us >= 0; }
};

}  // namespace clustersim
