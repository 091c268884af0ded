#include "models/hardware/hardware_catalog.hpp"

#include <yaml-cpp/yaml.h>

#include <stdexcept>

#include "models/hardware/embedded_data.hpp"

namespace clustersim {
namespace {

YAML::Node load(std::string_view file) {
    const std::string_view text = embedded_file(file);
    if (text.empty()) throw std::logic_error("missing built-in data file " + std::string(file));
    return YAML::Load(std::string(text));
}

template <class T>
const T* find_in(const std::map<std::string, T>& m, const std::string& name) {
    auto it = m.find(name);
    return it == m.end() ? nullptr : &it->second;
}

}  // namespace

const HardwareCatalog& HardwareCatalog::builtin() {
    static const HardwareCatalog catalog = [] {
        HardwareCatalog c;
        for (const auto& kv : load("link_layers.yaml")) {
            LinkLayerPreset p;
            p.name = kv.first.as<std::string>();
            const auto& n = kv.second;
            p.description = n["description"].as<std::string>();
            p.header_bytes = n["header_bytes"].as<std::uint32_t>();
            p.mtu_bytes = n["mtu_bytes"].as<std::uint32_t>();
            p.link_delay_ns = n["link_delay_ns"].as<double>();
            p.nic_latency_ns = n["nic_latency_ns"].as<double>();
            p.message_overhead_ns = n["message_overhead_ns"].as<double>();
            p.cpu_issue_ns = n["cpu_issue_ns"].as<double>();
            p.gpu_message_overhead_ns = n["gpu_message_overhead_ns"].as<double>();
            p.gpu_issue_ns = n["gpu_issue_ns"].as<double>();
            p.reroute_us = n["reroute_us"].as<double>();
            p.switch_reroute_us = n["switch_reroute_us"].as<double>();
            p.failover_us = n["failover_us"].as<double>();
            p.port_down_us = n["port_down_us"].as<double>();
            c.link_layers_[p.name] = p;
        }
        for (const auto& kv : load("switches.yaml")) {
            SwitchPreset p;
            p.name = kv.first.as<std::string>();
            const auto& n = kv.second;
            p.description = n["description"].as<std::string>();
            p.radix = n["radix"].as<std::uint32_t>();
            p.port_rate_gbps = n["port_rate_gbps"].as<double>();
            p.latency_ns = n["latency_ns"].as<double>();
            p.port_buffer_bytes = n["port_buffer_bytes"].as<std::uint64_t>();
            p.link_layer = n["link_layer"].as<std::string>();
            const auto mode = n["forwarding"].as<std::string>();
            if (mode != "cut-through" && mode != "store-and-forward")
                throw std::logic_error("switch preset " + p.name + ": unknown forwarding mode");
            p.cut_through = mode == "cut-through";
            p.routing = n["routing"].as<std::string>();
            p.flow_control = n["flow_control"].as<std::string>();
            if (!c.link_layers_.count(p.link_layer))
                throw std::logic_error("switch preset " + p.name + " names unknown link layer");
            c.switches_[p.name] = p;
        }
        for (const auto& kv : load("nics.yaml")) {
            NicPreset p;
            p.name = kv.first.as<std::string>();
            p.description = kv.second["description"].as<std::string>();
            p.port_rate_gbps = kv.second["port_rate_gbps"].as<double>();
            const auto mode = kv.second["multi_plane"].as<std::string>();
            if (mode != "bond" && mode != "spray")
                throw std::logic_error("NIC preset " + p.name + ": multi_plane is bond or spray");
            p.multi_plane_spray = mode == "spray";
            const auto rtx = kv.second["retransmission"].as<std::string>();
            if (rtx != "go-back-n" && rtx != "selective-repeat")
                throw std::logic_error("NIC preset " + p.name +
                                       ": retransmission is go-back-n or selective-repeat");
            p.go_back_n = rtx == "go-back-n";
            p.ack_every = kv.second["ack_every"].as<std::uint32_t>();
            p.ack_timeout_exponent = kv.second["ack_timeout_exponent"].as<std::uint32_t>();
            p.retry_count = kv.second["retry_count"].as<std::uint32_t>();
            p.bond_failover_us = kv.second["bond_failover_us"].as<double>();
            p.adaptive_retransmission_ns =
                kv.second["adaptive_retransmission_ns"].as<std::uint64_t>();
            c.nics_[p.name] = p;
        }
        for (const auto& kv : load("nodes.yaml")) {
            NodePreset p;
            p.name = kv.first.as<std::string>();
            const auto& n = kv.second;
            p.description = n["description"].as<std::string>();
            p.gpus = n["gpus"].as<std::uint32_t>();
            p.scale_up = n["scale_up"].as<std::string>();
            p.nvlink_gbytes_per_s = n["nvlink_gbytes_per_s"].as<double>();
            p.nvlink_efficiency = n["nvlink_efficiency"].as<double>();
            p.nics = n["nics"].as<std::uint32_t>();
            p.nic = n["nic"].as<std::string>();
            p.pcie_generation = n["pcie_generation"].as<std::uint32_t>();
            p.pcie_lanes = n["pcie_lanes"].as<std::uint32_t>();
            p.nvlink_latency_ns = n["nvlink_latency_ns"].as<double>();
            p.nvswitch_latency_ns = n["nvswitch_latency_ns"].as<double>();
            p.pcie_latency_ns = n["pcie_latency_ns"].as<double>();
            p.pcie_efficiency = n["pcie_efficiency"].as<double>();
            p.nvlink_message_overhead_ns = n["nvlink_message_overhead_ns"].as<double>();
            p.nvlink_cpu_issue_ns = n["nvlink_cpu_issue_ns"].as<double>();
            p.nvlink_gpu_message_overhead_ns = n["nvlink_gpu_message_overhead_ns"].as<double>();
            p.nvlink_gpu_issue_ns = n["nvlink_gpu_issue_ns"].as<double>();
            p.internal_buffer_bytes = n["internal_buffer_bytes"].as<std::uint64_t>();
            p.nodes_per_rack = n["nodes_per_rack"].as<std::uint32_t>();
            p.fp8_tflops = n["fp8_tflops"].as<double>();
            p.bf16_tflops = n["bf16_tflops"].as<double>();
            p.hbm_gbytes_per_s = n["hbm_gbytes_per_s"].as<double>();
            p.mfu = n["mfu"].as<double>();
            p.hbm_efficiency = n["hbm_efficiency"].as<double>();
            p.attention_mfu = n["attention_mfu"].as<double>();
            p.attention_hbm_efficiency = n["attention_hbm_efficiency"].as<double>();
            p.sms = n["sms"].as<std::uint32_t>();
            p.comm_sms = n["comm_sms"].as<std::uint32_t>();
            if (!c.nics_.count(p.nic))
                throw std::logic_error("node preset " + p.name + " names unknown NIC");
            c.nodes_[p.name] = p;
        }
        const YAML::Node prices = load("prices.yaml");
        for (const auto& kv : prices["switches"])
            c.prices_.switch_usd[kv.first.as<std::string>()] = kv.second.as<double>();
        for (const auto& kv : prices["servers"])
            c.prices_.server_usd[kv.first.as<std::string>()] = kv.second.as<double>();
        for (const auto& kv : prices["cables"])
            c.prices_.cable_usd[kv.first.as<std::string>()] = kv.second.as<double>();
        return c;
    }();
    return catalog;
}

const SwitchPreset* HardwareCatalog::find_switch(const std::string& name) const {
    return find_in(switches_, name);
}
const LinkLayerPreset* HardwareCatalog::find_link_layer(const std::string& name) const {
    return find_in(link_layers_, name);
}
const NicPreset* HardwareCatalog::find_nic(const std::string& name) const {
    return find_in(nics_, name);
}
const NodePreset* HardwareCatalog::find_node(const std::string& name) const {
    return find_in(nodes_, name);
}
std::vector<std::string> HardwareCatalog::node_names() const {
    std::vector<std::string> out;
    for (const auto& kv : nodes_) out.push_back(kv.first);
    return out;
}
std::vector<std::string> HardwareCatalog::switch_names() const {
    std::vector<std::string> out;
    for (const auto& kv : switches_) out.push_back(kv.first);
    return out;
}

}  // namespace clustersim
