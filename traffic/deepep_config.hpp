#pragma once
// DeepEP's normal-kernel configuration for an EP size (models/data/deepep.yaml): the channels
// its SMs make and the tokens per RDMA chunk, which set how the two stages of its all-to-alls
// overlap.
#include <cstdint>

#include "traffic/moe_workload.hpp"

namespace clustersim {

/// The configuration for `ranks` EP ranks with `comm_sms` SMs (two per channel).
NormalKernelConfig deepep_normal_config(std::uint32_t ranks, std::uint32_t comm_sms);

}  // namespace clustersim
