#pragma once
// Hardware presets read from the data files (each figure with its source beside it there).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace clustersim {

struct LinkLayerPreset {
    std::string name, description;
    std::uint32_t header_bytes = 0;
    std::uint32_t mtu_bytes = 0;
    double link_delay_ns = 0;
    double nic_latency_ns = 0;
    double message_overhead_ns = 0;  // CPU-initiated, per message, issue included
    double cpu_issue_ns = 0;
    double gpu_message_overhead_ns = 0;
    double gpu_issue_ns = 0;
    // How the fabric reacts to a failed cable (docs/faults.md): its control plane recomputes
    // the routes (reroute_us), an InfiniBand switch's own recovery does (switch_reroute_us, 0:
    // none on this link layer), ECMP drops the dead member (failover_us), and adaptive policies
    // see the port down (port_down_us).
    double reroute_us = 0, switch_reroute_us = 0, failover_us = 0, port_down_us = 0;
};

struct SwitchPreset {
    std::string name, description;
    std::uint32_t radix = 0;
    double port_rate_gbps = 0;
    double latency_ns = 0;
    std::uint64_t port_buffer_bytes = 0;
    std::string link_layer;
    bool cut_through = false;  // forwarding: cut-through | store-and-forward
    std::string routing;       // default routing policy (network.routing)
    std::string flow_control;  // default: credit (InfiniBand) or pfc (Ethernet)
};

struct NicPreset {
    std::string name, description;
    double port_rate_gbps = 0;
    bool multi_plane_spray = false;  // multi_plane: spray (else bond)
    double bond_failover_us = 0;     // a bond gives a dead port up this long after it fails
    bool go_back_n = false;          // retransmission: go-back-n (else selective-repeat)
    std::uint32_t ack_every = 1;
    std::uint32_t ack_timeout_exponent = 20;       // RC local ACK timeout 4.096 us x 2^this
    std::uint32_t retry_count = 7;                 // retries after a timeout before the QP fails
    std::uint64_t adaptive_retransmission_ns = 0;  // ConnectX adaptive timer's start (0: off)
};

struct NodePreset {
    std::string name, description;
    std::uint32_t gpus = 0;
    std::string scale_up;  // "nvswitch" or "pcie"
    double nvlink_gbytes_per_s = 0;
    double nvlink_efficiency = 1;
    std::uint32_t nics = 0;
    std::string nic;
    std::uint32_t pcie_generation = 0;
    std::uint32_t pcie_lanes = 0;
    double nvlink_latency_ns = 0;
    double nvswitch_latency_ns = 0;
    double pcie_latency_ns = 0;
    double pcie_efficiency = 1;
    double nvlink_message_overhead_ns = 0;  // CPU-initiated, per message, issue included
    double nvlink_cpu_issue_ns = 0;
    double nvlink_gpu_message_overhead_ns = 0;
    double nvlink_gpu_issue_ns = 0;
    std::uint64_t internal_buffer_bytes = 0;
    std::uint32_t nodes_per_rack = 0;
    // GPU compute (decode compute model): dense peaks and the achieved fractions.
    double fp8_tflops = 0, bf16_tflops = 0, hbm_gbytes_per_s = 0;
    double mfu = 1, hbm_efficiency = 1;                      // GEMMs (DeepGEMM)
    double attention_mfu = 1, attention_hbm_efficiency = 1;  // core attention (FlashMLA)
    std::uint32_t sms = 0;                                   // streaming multiprocessors per GPU
    std::uint32_t comm_sms = 0;  // of them, what DeepEP's normal kernels take while they run
};

struct PriceTable {
    std::map<std::string, double> switch_usd;  // by switch preset
    std::map<std::string, double> cable_usd;   // by cable kind
    std::map<std::string, double> server_usd;  // by node preset
};

class HardwareCatalog {
  public:
    /// The presets built into the binary (parsed once).
    static const HardwareCatalog& builtin();

    const SwitchPreset* find_switch(const std::string& name) const;
    const LinkLayerPreset* find_link_layer(const std::string& name) const;
    const NicPreset* find_nic(const std::string& name) const;
    const NodePreset* find_node(const std::string& name) const;
    std::vector<std::string> switch_names() const;
    std::vector<std::string> node_names() const;
    const PriceTable& prices() const { return prices_; }

  private:
    std::map<std::string, SwitchPreset> switches_;
    std::map<std::string, LinkLayerPreset> link_layers_;
    std::map<std::string, NicPreset> nics_;
    std::map<std::string, NodePreset> nodes_;
    PriceTable prices_;
};

}  // namespace clustersim
