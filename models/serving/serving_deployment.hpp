#pragma once
// How a model is served on a cluster: instances of expert-parallel groups that prefill prompts
// and decode tokens, either both in one instance (colocated) or in separate ones with each
// request's KV cache moved from its prefill instance to a decode instance (disaggregated, as
// DeepSeek deploys V3), and the limits their schedulers keep.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include "sim/data_rate.hpp"
#include "sim/time.hpp"

namespace clustersim {

enum class DeploymentKind : std::uint8_t { Colocated, Disaggregated };
inline constexpr std::array<std::string_view, 2> kDeploymentKindNames = {"colocated",
                                                                         "disaggregated"};
/// Where a finished prefill's KV cache travels: RDMA over the compute fabric beside the expert
/// traffic, or a separate storage network's NICs.
enum class KvVia : std::uint8_t { Fabric, Storage };
inline constexpr std::array<std::string_view, 2> kKvViaNames = {"fabric", "storage"};

struct InstanceGroup {
    std::uint32_t instances = 1;
    std::uint32_t ep_size = 1;  // GPUs per instance: expert parallel, attention data parallel
};

struct ServingDeployment {
    DeploymentKind kind = DeploymentKind::Disaggregated;
    InstanceGroup prefill;  // disaggregated only
    InstanceGroup decode;   // colocated: the instances that do both
    std::uint32_t gpus_per_node = 8;
    // A prefill step's token budget per GPU (chunked prefill: a prompt longer than what is
    // left of the budget continues in the next step).
    std::uint32_t prefill_tokens_per_gpu = 16384;
    // Requests a decode instance runs at once, per GPU over all its micro-batches.
    std::uint32_t decode_requests_per_gpu = 128;
    std::uint32_t micro_batches = 2;
    // MTP: draft tokens per request per step, each accepted with this probability if the one
    // before it was (a step yields 1 + the accepted drafts).
    std::uint32_t mtp_draft_tokens = 0;
    double mtp_acceptance = 0;
    // The KV cache of one token, all layers (MLA: the latent and rope parts, 2 bytes each).
    std::uint64_t kv_bytes_per_token = 0;
    KvVia kv_via = KvVia::Fabric;
    DataRate storage_rate;  // per node, each way (kv_via: storage)
    Time storage_latency;

    // Pods with nothing between them (dual-plane, shuffle fabrics of several pods): each pod
    // holds the same share of the instances, its prefill instances first and its decode
    // instances after them, so that a prefill's KV cache can stay in its pod; a cache that
    // must cross pods goes over the storage network.
    std::uint32_t pods = 1;

    std::uint32_t prefill_gpus() const {
        return kind == DeploymentKind::Disaggregated ? prefill.instances * prefill.ep_size : 0;
    }
    std::uint32_t gpus() const { return prefill_gpus() + decode.instances * decode.ep_size; }
    std::uint32_t prefill_per_pod() const {
        return kind == DeploymentKind::Disaggregated ? prefill.instances / pods : 0;
    }
    std::uint32_t decode_per_pod() const { return decode.instances / pods; }
    /// A kind's instances in each pod (prefill: the disaggregated prefill instances).
    std::uint32_t per_pod(bool of_prefill) const {
        return of_prefill ? prefill_per_pod() : decode_per_pod();
    }
    /// GPUs of one pod's instances: pod q's start at q x pod_gpus().
    std::uint32_t pod_gpus() const {
        return prefill_per_pod() * prefill.ep_size + decode_per_pod() * decode.ep_size;
    }
    std::uint32_t prefill_first_gpu(std::uint32_t i) const {
        const std::uint32_t per = prefill_per_pod();
        return per == 0 ? 0 : i / per * pod_gpus() + i % per * prefill.ep_size;
    }
    std::uint32_t decode_first_gpu(std::uint32_t i) const {
        const std::uint32_t per = std::max<std::uint32_t>(1, decode_per_pod());
        return i / per * pod_gpus() + prefill_per_pod() * prefill.ep_size +
               i % per * decode.ep_size;
    }
    /// The instance GPU g (below gpus()) is in: prefill (true) or decode, and its index.
    std::pair<bool, std::uint32_t> instance_of_gpu(std::uint32_t g) const {
        const std::uint32_t pod_size = std::max<std::uint32_t>(1, pod_gpus());
        const std::uint32_t pod = g / pod_size, at = g % pod_size;
        const std::uint32_t prefill_gpus_here = prefill_per_pod() * prefill.ep_size;
        if (at < prefill_gpus_here) return {true, pod * prefill_per_pod() + at / prefill.ep_size};
        return {false, pod * decode_per_pod() + (at - prefill_gpus_here) / decode.ep_size};
    }
    std::uint32_t prefill_pod(std::uint32_t i) const {
        return prefill_per_pod() == 0 ? 0 : i / prefill_per_pod();
    }
    std::uint32_t decode_pod(std::uint32_t i) const {
        return i / std::max<std::uint32_t>(1, decode_per_pod());
    }
};

}  // namespace clustersim
