#include "traffic/moe_workload.hpp"

#include <stdexcept>

namespace clustersim {

namespace {

// The messages of the first hops: one per (token, expert) write in low-latency mode, one per GPU
// pair in normal mode; `emit(src, dst, bytes)` adds each.
template <class Emit>
void each_first_hop(const std::vector<MoeTransfer>& transfers, std::uint64_t bytes_per_token,
                    bool low_latency, Emit&& emit) {
    for (const auto& t : transfers) {
        if (low_latency)
            for (std::uint64_t i = 0; i < t.tokens; ++i) emit(t.src, t.dst, bytes_per_token);
        else
            emit(t.src, t.dst, t.tokens * bytes_per_token);
    }
}

}  // namespace

MoeRun build_moe_run(const MoeRunSpec& spec) {
    const MoeModel& m = spec.model;
    const std::uint32_t ep = spec.placement.ep_size;
    const std::uint32_t layers = std::min(spec.simulated_layers, m.moe_layers());
    if (layers == 0 || spec.micro_batches == 0) throw std::invalid_argument("nothing to simulate");
    MoeRun run;
    run.spec = spec;
    run.simulated_layers = layers;
    Workload& w = run.workload;
    w.gpu_sms = spec.gpu_sms;
    const std::uint64_t tokens = spec.traffic.tokens_per_gpu;
    const bool decode = spec.phase == MoePhase::Decode;
    run.attention = decode ? attention_time(m, spec.gpu, tokens, spec.kv_length)
                           : prefill_attention_time(m, spec.gpu, tokens, spec.kv_length);
    run.dense_ffn = dense_ffn_time(m, spec.gpu, tokens);
    const bool low_latency = spec.traffic.mode == MoeMode::LowLatency;
    const std::vector<std::uint32_t> experts_on_gpu = spec.placement.slots_per_gpu();
    // Training runs every simulated layer forward, then backward from the top: the backward
    // all-to-alls carry BF16 gradients (the combine's towards the experts, the dispatch's back),
    // and backward compute takes twice the forward's (the usual 2:1 FLOP ratio).
    const std::uint32_t passes = spec.phase == MoePhase::Training ? 2 * layers : layers;

    Gating gating(m, spec.placement, spec.gating);
    // Per (group, micro-batch), the join each rank's next attention waits for (kNone before
    // layer 0).
    std::vector<std::vector<std::uint32_t>> ready(std::size_t{spec.groups} * spec.micro_batches,
                                                  std::vector<std::uint32_t>(ep, kNone));
    for (std::uint32_t pass = 0; pass < passes; ++pass) {
        const bool backward = pass >= layers;
        const std::uint32_t l = backward ? passes - 1 - pass : pass;
        const std::uint64_t dispatch_bytes =
            backward ? combine_payload_bytes(m.hidden)
                     : dispatch_payload_bytes(m.hidden) + dispatch_scale_bytes(m.hidden);
        const std::uint64_t combine_bytes = combine_payload_bytes(m.hidden);
        const std::int64_t cost = backward ? 2 : 1;
        const Time attention = Time::from_ps(run.attention.ps() * cost);
        for (std::uint32_t mb = 0; mb < spec.micro_batches; ++mb) {
            for (std::uint32_t grp = 0; grp < spec.groups; ++grp) {
                // Rank r of group grp is GPU `phys(r)`: groups packed one after another, or spread
                // (rank r of every group side by side, so each group spans the whole fabric).
                auto phys = [&](std::uint32_t r) {
                    return spec.spread ? r * spec.groups + grp : grp * ep + r;
                };
                RandomStream rng(spec.seed, "moe-gating",
                                 std::uint64_t{grp} << 32 | std::uint64_t{l} << 16 | mb);
                const MoeAllToAll a = moe_all_to_all(gating, spec.placement, m, spec.traffic, rng);
                auto& ready_mb = ready[std::size_t{grp} * spec.micro_batches + mb];
                // Attention on every GPU, after its previous layer's combine has come back.
                std::vector<std::uint32_t> attn(ep);
                for (std::uint32_t g = 0; g < ep; ++g) {
                    ComputeSpec c{phys(g), attention, Time::never(), 0};
                    if (ready_mb[g] == kNone) c.start = Time::zero();
                    attn[g] = w.add_compute(c);
                    if (ready_mb[g] != kNone)
                        w.depend({TaskKind::Join, ready_mb[g]}, Completion::Done,
                                 {TaskKind::Compute, attn[g]});
                }
                // Expert compute on every GPU once all its dispatched tokens (and its own
                // attention) are in: a join of (incoming messages + 1).
                std::vector<std::uint32_t> incoming(ep, 0);
                for (const auto& t : a.transfers)
                    incoming[t.dst] += low_latency ? static_cast<std::uint32_t>(t.tokens) : 1;
                for (const auto& f : a.forwards) ++incoming[f.dst];
                std::vector<std::uint32_t> gate(ep), expert(ep);
                for (std::uint32_t g = 0; g < ep; ++g) {
                    gate[g] = w.add_join(JoinSpec{JoinKind::All, incoming[g] + 1, Time::zero(), 0});
                    w.depend({TaskKind::Compute, attn[g]}, Completion::Done,
                             {TaskKind::Join, gate[g]});
                    const Time t = Time::from_ps(
                        cost * expert_time(m, spec.gpu, experts_on_gpu[g],
                                           a.received[g] + a.copies[g] - a.sent[g], tokens)
                                   .ps());
                    run.expert.push_back(t);
                    expert[g] = w.add_compute(ComputeSpec{phys(g), t, Time::never(), 0});
                    w.depend({TaskKind::Join, gate[g]}, Completion::Done,
                             {TaskKind::Compute, expert[g]});
                }
                MoeAllToAllRange range{l, mb, backward, 0, 0, 0, 0};
                // Messages each GPU's dispatch and combine kernels send (their SMs are held until
                // the last has left and everything due to the GPU has arrived).
                std::vector<std::vector<std::uint32_t>> dispatch_sent(ep), combine_sent(ep);
                range.dispatch_first = static_cast<std::uint32_t>(w.messages.size());
                // Normal mode: a first-hop GPU forwards once all its first-hop tokens are in.
                std::vector<std::uint32_t> first_hop_in(ep, 0);
                if (!low_latency)
                    for (const auto& t : a.transfers) ++first_hop_in[t.dst];
                std::vector<std::uint32_t> forward_gate(ep, kNone);
                if (!low_latency)
                    for (const auto& f : a.forwards)
                        if (forward_gate[f.src] == kNone)
                            forward_gate[f.src] = w.add_join(
                                JoinSpec{JoinKind::All, first_hop_in[f.src] + 1, Time::zero(), 0});
                auto dispatch = [&](std::uint32_t src, std::uint32_t dst, std::uint64_t bytes) {
                    const std::uint32_t msg =
                        w.add_message(MessageSpec{phys(src), phys(dst), bytes, Time::never(), 0});
                    w.depend({TaskKind::Compute, attn[src]}, Completion::Done,
                             {TaskKind::Transfer, msg});
                    w.depend({TaskKind::Transfer, msg}, Completion::Done,
                             {TaskKind::Join, gate[dst]});
                    dispatch_sent[src].push_back(msg);
                    if (forward_gate[dst] != kNone)
                        w.depend({TaskKind::Transfer, msg}, Completion::Done,
                                 {TaskKind::Join, forward_gate[dst]});
                };
                each_first_hop(a.transfers, dispatch_bytes, low_latency, dispatch);
                for (std::uint32_t g = 0; g < ep; ++g)
                    if (forward_gate[g] != kNone)
                        w.depend({TaskKind::Compute, attn[g]}, Completion::Done,
                                 {TaskKind::Join, forward_gate[g]});
                for (const auto& f : a.forwards) {
                    const std::uint32_t msg = w.add_message(MessageSpec{
                        phys(f.src), phys(f.dst), f.tokens * dispatch_bytes, Time::never(), 0});
                    w.depend({TaskKind::Join, forward_gate[f.src]}, Completion::Done,
                             {TaskKind::Transfer, msg});
                    w.depend({TaskKind::Transfer, msg}, Completion::Done,
                             {TaskKind::Join, gate[f.dst]});
                    dispatch_sent[f.src].push_back(msg);
                }
                range.dispatch_last = static_cast<std::uint32_t>(w.messages.size());
                // Combine: the same first hops back, BF16, once the expert GPU has computed. In
                // normal mode each expert GPU first returns its results over NVLink to the GPU
                // that forwarded the tokens, which reduces them and sends one copy per token
                // back. Each GPU's next attention waits for all its tokens and its own experts.
                std::vector<std::uint32_t> back(ep, 0);
                for (const auto& t : a.transfers)
                    back[t.src] += low_latency ? static_cast<std::uint32_t>(t.tokens) : 1;
                for (std::uint32_t g = 0; g < ep; ++g) {
                    ready_mb[g] = w.add_join(JoinSpec{JoinKind::All, back[g] + 1, Time::zero(), 0});
                    w.depend({TaskKind::Compute, expert[g]}, Completion::Done,
                             {TaskKind::Join, ready_mb[g]});
                }
                range.combine_first = static_cast<std::uint32_t>(w.messages.size());
                // What a GPU's first-hop combine messages wait for: its experts, and in normal
                // mode the results forwarded back to it.
                std::vector<TaskRef> combine_ready(ep);
                for (std::uint32_t g = 0; g < ep; ++g)
                    combine_ready[g] = {TaskKind::Compute, expert[g]};
                if (!low_latency) {
                    std::vector<std::uint32_t> gathered(ep, 0);
                    for (const auto& f : a.forwards) ++gathered[f.src];
                    for (std::uint32_t g = 0; g < ep; ++g) {
                        if (gathered[g] == 0) continue;
                        const std::uint32_t j =
                            w.add_join(JoinSpec{JoinKind::All, gathered[g] + 1, Time::zero(), 0});
                        w.depend(combine_ready[g], Completion::Done, {TaskKind::Join, j});
                        combine_ready[g] = {TaskKind::Join, j};
                    }
                    for (const auto& f : a.forwards) {
                        const std::uint32_t msg = w.add_message(MessageSpec{
                            phys(f.dst), phys(f.src), f.tokens * combine_bytes, Time::never(), 0});
                        w.depend({TaskKind::Compute, expert[f.dst]}, Completion::Done,
                                 {TaskKind::Transfer, msg});
                        w.depend({TaskKind::Transfer, msg}, Completion::Done, combine_ready[f.src]);
                        combine_sent[f.dst].push_back(msg);
                    }
                }
                auto combine = [&](std::uint32_t src, std::uint32_t dst, std::uint64_t bytes) {
                    const std::uint32_t msg =
                        w.add_message(MessageSpec{phys(dst), phys(src), bytes, Time::never(), 0});
                    w.depend(combine_ready[dst], Completion::Done, {TaskKind::Transfer, msg});
                    w.depend({TaskKind::Transfer, msg}, Completion::Done,
                             {TaskKind::Join, ready_mb[src]});
                    combine_sent[dst].push_back(msg);
                };
                each_first_hop(a.transfers, combine_bytes, low_latency, combine);
                range.combine_last = static_cast<std::uint32_t>(w.messages.size());
                if (!low_latency && spec.comm_sms > 0) {
                    // Normal kernels hold SMs from launch (after the compute before them) until
                    // their GPU's part is over; compute beside them slows (DagRuntime).
                    const auto sms = static_cast<std::int32_t>(spec.comm_sms);
                    auto hold = [&](std::uint32_t g, TaskRef launch, TaskRef arrived,
                                    const std::vector<std::uint32_t>& sent) {
                        const std::uint32_t take =
                            w.add_join(JoinSpec{JoinKind::All, 1, Time::zero(), 0, phys(g), sms});
                        w.depend(launch, Completion::Done, {TaskKind::Join, take});
                        const auto count = static_cast<std::uint32_t>(sent.size() + 1);
                        const std::uint32_t give = w.add_join(
                            JoinSpec{JoinKind::All, count, Time::zero(), 0, phys(g), -sms});
                        w.depend(arrived, Completion::Done, {TaskKind::Join, give});
                        for (std::uint32_t msg : sent)
                            w.depend({TaskKind::Transfer, msg}, Completion::Sent,
                                     {TaskKind::Join, give});
                    };
                    for (std::uint32_t g = 0; g < ep; ++g) {
                        hold(g, {TaskKind::Compute, attn[g]}, {TaskKind::Join, gate[g]},
                             dispatch_sent[g]);
                        hold(g, {TaskKind::Compute, expert[g]}, {TaskKind::Join, ready_mb[g]},
                             combine_sent[g]);
                    }
                }
                run.all_to_alls.push_back(range);
            }
        }
    }
    return run;
}

}  // namespace clustersim
