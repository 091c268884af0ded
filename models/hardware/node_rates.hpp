#pragma once
// The rates a node preset implies, computed in one place from its data-file figures: the PCIe
// path between a GPU and its NIC, NVLink per GPU, the GPU's throughput for the compute model,
// and the nominal expert-parallel bandwidth the ISCA '25 bound divides by.
#include "models/hardware/hardware_catalog.hpp"
#include "models/hardware/moe_compute.hpp"

namespace clustersim {

/// Achievable PCIe bandwidth per direction: GT/s per lane by generation (8, 16, 32 for Gen3-5)
/// x lanes x 128b/130b encoding / 8 bits x the preset's efficiency.
double pcie_gbytes_per_s(const NodePreset& n);

/// Achievable NVLink bandwidth per GPU and direction: nominal x the preset's efficiency.
double nvlink_achievable_gbytes_per_s(const NodePreset& n);

/// Dense FP8 (BF16 where there is no FP8) and BF16 peaks x mfu for GEMMs and HBM x its
/// efficiency; BF16 x attention_mfu and HBM x attention_hbm_efficiency for core attention.
GpuThroughput gpu_throughput(const NodePreset& n);

/// ISCA '25 section 2.3.2: a GPU's nominal EP bandwidth is its NVLink rate per direction when
/// the EP group fits one NVLink domain, else its NIC's line rate.
double nominal_ep_gbytes_per_s(const NodePreset& n, double nic_rate_gbps, bool one_nvlink_domain);

}  // namespace clustersim
