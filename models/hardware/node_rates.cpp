#include "models/hardware/node_rates.hpp"

namespace clustersim {

double pcie_gbytes_per_s(const NodePreset& n) {
    const double gt_per_lane =
        n.pcie_generation >= 5 ? 32.0 : (n.pcie_generation == 4 ? 16.0 : 8.0);
    return gt_per_lane * n.pcie_lanes * 128.0 / 130.0 / 8.0 * n.pcie_efficiency;
}

double nvlink_achievable_gbytes_per_s(const NodePreset& n) {
    return n.nvlink_gbytes_per_s * n.nvlink_efficiency;
}

GpuThroughput gpu_throughput(const NodePreset& n) {
    GpuThroughput g;
    g.matmul_flops_per_s = (n.fp8_tflops > 0 ? n.fp8_tflops : n.bf16_tflops) * 1e12 * n.mfu;
    g.bf16_matmul_flops_per_s = n.bf16_tflops * 1e12 * n.mfu;
    g.hbm_bytes_per_s = n.hbm_gbytes_per_s * 1e9 * n.hbm_efficiency;
    g.attention_flops_per_s = n.bf16_tflops * 1e12 * n.attention_mfu;
    g.attention_hbm_bytes_per_s = n.hbm_gbytes_per_s * 1e9 * n.attention_hbm_efficiency;
    return g;
}

double nominal_ep_gbytes_per_s(const NodePreset& n, double nic_rate_gbps, bool one_nvlink_domain) {
    return one_nvlink_domain ? n.nvlink_gbytes_per_s : nic_rate_gbps / 8.0;
}

}  // namespace clustersim
