#pragma once
// How GPUs sit inside nodes once a fabric is expanded with its node model: which switch of the
// port graph is a GPU's hub, its NIC, its node's scale-up switch (NVSwitch, or the PCIe switch
// that carries peer traffic), and whether cross-plane traffic is forwarded inside the source node
// (PXN) before it enters the fabric.
#include <cstdint>
#include <vector>

#include "models/network/packet.hpp"
#include "sim/time.hpp"

namespace clustersim {

enum class SwitchRole : std::uint8_t {
    Fabric,   // leaf, spine, core, router: routes by forwarding table
    GpuHub,   // a GPU's attachment point: to the GPU itself, to NVLink, to its NIC over PCIe
    ScaleUp,  // NVSwitch (or the PCIe switch of GPUs without NVLink)
    Nic,      // a NIC: PCIe side towards its GPU(s), one or more network ports
};

/// A GPU's channels, in order: its NVLink path and its RDMA path (the NIC's reads over PCIe),
/// both into its hub. A hub's channels: to its GPU (receiving; one per GPU path, the first is
/// used), then to the scale-up switch, then to its NIC.
inline constexpr std::uint32_t kScaleUpPath = 0;
inline constexpr std::uint32_t kRdmaPath = 1;
inline constexpr std::uint32_t kGpuPaths = 2;

struct NodeLayout {
    std::uint32_t gpus_per_node = 0;
    std::uint32_t nics_per_node = 0;
    std::uint32_t fabric_switches = 0;    // switches [0, fabric_switches) are the fabric's
    std::vector<SwitchRole> role;         // per switch
    std::vector<std::uint32_t> node_of;   // per switch (kNone for fabric switches)
    std::vector<std::uint32_t> hub;       // per GPU
    std::vector<std::uint32_t> nic;       // per GPU: its NIC's switch
    std::vector<std::uint32_t> scale_up;  // per node
    bool pxn = false;        // forward to the destination's plane inside the source node
    bool nic_spray = false;  // NICs with several network ports spray packets (else bond flows)
    // Per-message sender costs (by the scenario's initiator, GPU or CPU): the whole overhead a
    // lone message sees, and the part of it that is serial per sender (issuing the request).
    Time rdma_message_overhead;  // per message that leaves the node
    Time rdma_issue;
    Time scale_up_message_overhead;  // per message that starts on NVLink
    Time scale_up_issue;

    std::uint32_t node_of_gpu(std::uint32_t g) const { return g / gpus_per_node; }
    /// The NIC index within its node (= its plane or rail).
    std::uint32_t plane_of_gpu(std::uint32_t g) const {
        return (g % gpus_per_node) * nics_per_node / gpus_per_node;
    }
    /// Whether a message from GPU `src` to GPU `dst` leaves over NVLink first: inside a node,
    /// or (PXN) to a NIC on another plane, reached through the local GPU on that plane.
    bool starts_on_scale_up(std::uint32_t src, std::uint32_t dst) const {
        return node_of_gpu(src) == node_of_gpu(dst) ||
               (pxn && plane_of_gpu(src) != plane_of_gpu(dst));
    }
    /// The first local GPU that uses NIC `plane`.
    std::uint32_t gpu_for_plane(std::uint32_t plane) const {
        return (plane * gpus_per_node + nics_per_node - 1) / nics_per_node;
    }
};

}  // namespace clustersim
