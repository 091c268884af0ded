#include "traffic/moe_traffic.hpp"

#include <algorithm>
#include <map>

namespace clustersim {

MoeAllToAll moe_all_to_all(Gating& gating, const ExpertPlacement& placement, const MoeModel& model,
                           const MoeTrafficParams& params, RandomStream& rng) {
    const std::uint32_t ep = placement.ep_size;
    MoeAllToAll a;
    a.ep_size = ep;
    a.sent.assign(ep, 0);
    a.received.assign(ep, 0);
    a.rdma_sent.assign(ep, 0);
    a.rdma_received.assign(ep, 0);
    a.forwarded.assign(ep, 0);
    a.copies.assign(ep, 0);
    a.expert_tokens.assign(placement.gpu_of_expert.size(), 0);
    std::vector<std::uint32_t> experts, gpus, nodes;
    std::vector<std::uint64_t> to(ep, 0), fwd(ep, 0);  // per destination, for one source
    std::vector<std::uint32_t> touched, fwd_touched;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> forwards;
    for (std::uint32_t src = 0; src < ep; ++src) {
        const std::uint32_t src_node = placement.node_of_gpu(src);
        for (std::uint32_t t = 0; t < params.tokens_per_gpu; ++t) {
            gating.select(rng, src, t, experts);
            for (std::uint32_t e : experts) ++a.expert_tokens[e];
            gpus.clear();
            for (std::uint32_t e : experts) gpus.push_back(placement.gpu_for(e, src, t));
            if (params.shared_expert_remote)
                for (std::uint32_t s = 0; s < model.shared_experts; ++s)
                    // A remote copy of the shared expert: same local rank, the next node on.
                    gpus.push_back((src + placement.gpus_per_node * (s + 1)) % ep);
            nodes.clear();
            for (std::uint32_t g : gpus) nodes.push_back(placement.node_of_gpu(g));
            std::sort(nodes.begin(), nodes.end());
            nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
            a.node_visits += nodes.size();
            a.max_nodes_per_token =
                std::max(a.max_nodes_per_token, static_cast<std::uint32_t>(nodes.size()));
            ++a.tokens;
            auto send = [&](std::uint32_t dst) {
                if (to[dst]++ == 0) touched.push_back(dst);
            };
            a.copies[src] += params.mode == MoeMode::LowLatency ? gpus.size() : nodes.size();
            if (params.mode == MoeMode::LowLatency) {
                const auto routed = static_cast<std::uint32_t>(placement.gpu_of_expert.size());
                for (std::size_t k = 0; k < gpus.size(); ++k) {
                    if (gpus[k] == src) continue;
                    send(gpus[k]);
                    // Shared experts' remote copies are numbered after the routed experts.
                    const auto expert =
                        k < experts.size()
                            ? experts[k]
                            : routed + static_cast<std::uint32_t>(k - experts.size());
                    a.writes.push_back(MoeWrite{src, gpus[k], expert, t});
                }
                continue;
            }
            // Normal: one copy per node (the own node's too), then NVLink forwarding to each
            // other GPU holding one of the token's experts there.
            std::sort(gpus.begin(), gpus.end());
            gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
            if (a.route_first.empty()) a.route_first.push_back(0);
            a.route_gpus.insert(a.route_gpus.end(), gpus.begin(), gpus.end());
            a.route_first.push_back(a.route_gpus.size());
            for (std::uint32_t node : nodes) {
                const std::uint32_t first = normal_first_hop(placement, src, node);
                if (first != src) send(first);
                for (std::uint32_t g : gpus)
                    if (placement.node_of_gpu(g) == node && g != first) {
                        if (fwd[g]++ == 0) fwd_touched.push_back(g);
                        ++forwards[{first, g}];
                    }
            }
        }
        std::sort(touched.begin(), touched.end());
        for (std::uint32_t dst : touched) {
            const bool nvlink = placement.node_of_gpu(dst) == src_node &&
                                !(params.mode == MoeMode::LowLatency && params.intranode_via_rdma);
            a.transfers.push_back(MoeTransfer{src, dst, to[dst], nvlink});
            a.sent[src] += to[dst];
            a.received[dst] += to[dst];
            if (!nvlink) {
                a.rdma_sent[src] += to[dst];
                a.rdma_received[dst] += to[dst];
            }
            to[dst] = 0;
        }
        touched.clear();
        for (std::uint32_t g : fwd_touched) {
            a.forwarded[src] += fwd[g];
            fwd[g] = 0;
        }
        fwd_touched.clear();
    }
    for (const auto& [pair, tokens] : forwards)
        a.forwards.push_back(MoeTransfer{pair.first, pair.second, tokens, true});
    return a;
}

}  // namespace clustersim
