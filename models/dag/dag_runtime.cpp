#include "models/dag/dag_runtime.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/wide_int.hpp"

namespace clustersim {

DagRuntime::DagRuntime(Simulator& sim, const Workload& workload,
                       std::span<const std::uint32_t> gpu_process,
                       std::span<const std::uint32_t> join_process)
    : sim_(sim), gpu_process_(gpu_process), join_process_(join_process), workload_(workload) {
    if (join_process.size() != workload.joins.size())
        throw std::invalid_argument("a process per join");
    const auto gpus = static_cast<std::uint32_t>(gpu_process.size());
    if (!workload.sealed())
        own_graph_ = DependencyGraph(workload.dependencies, workload.messages.size(),
                                     workload.computes.size(), workload.joins.size());
    graph_ = workload.sealed() ? &workload.graph : &own_graph_;
    if (workload.sealed() && workload.graph.empty() && workload.dependency_count() > 0)
        throw std::logic_error("a workload run again after its graph was released");
    // Tasks pushed straight into a sealed workload's lists would have no slots.
    if (graph_->tasks() !=
        workload.messages.size() + workload.computes.size() + workload.joins.size())
        throw std::logic_error("a sealed workload's tasks changed after it was sealed");
    has_input_message_.assign(workload.messages.size(), false);
    has_input_compute_.assign(workload.computes.size(), false);
    graph_->for_each_edge([&](const Dependency& d) {
        if (d.to.kind == TaskKind::Transfer) has_input_message_[d.to.index] = true;
        if (d.to.kind == TaskKind::Compute) has_input_compute_[d.to.index] = true;
    });
    joins_.resize(workload.joins.size());
    for (std::size_t j = 0; j < joins_.size(); ++j) joins_[j].remaining = workload.joins[j].count;
    gpus_.resize(gpus);
    compute_state_.resize(workload.computes.size());
}

std::uint32_t DagRuntime::process_of(TaskRef t) const {
    switch (t.kind) {
        case TaskKind::Transfer:
            return gpu_process_[workload_.messages[t.index].src];
        case TaskKind::Compute:
            return gpu_process_[workload_.computes[t.index].gpu];
        case TaskKind::Join:
            return join_process_[t.index];
    }
    return sim_.observer_process();
}

void DagRuntime::start() {
    for (std::uint32_t m = 0; m < workload_.messages.size(); ++m) {
        const Time at = workload_.start_of(m);
        if (at != Time::never() && !has_input_message_[m])
            sim_.schedule(at, TaskRef{TaskKind::Transfer, m}.packed(), kActivate,
                          gpu_process_[workload_.messages[m].src]);
    }
    for (std::uint32_t c = 0; c < workload_.computes.size(); ++c) {
        const Time at = workload_.computes[c].start;
        if (at != Time::never() && !has_input_compute_[c])
            sim_.schedule(at, TaskRef{TaskKind::Compute, c}.packed(), kActivate,
                          gpu_process_[workload_.computes[c].gpu]);
    }
}

bool DagRuntime::activate(TaskRef t) {
    switch (t.kind) {
        case TaskKind::Transfer:
            return true;
        case TaskKind::Compute: {
            ComputeState& st = compute_state_[t.index];
            if (st.activated != Time::never()) return false;  // activated twice: once counts
            st.activated = sim_.now();
            const std::uint32_t gpu = workload_.computes[t.index].gpu;
            gpus_[gpu].queue.push_back(t.index);
            if (gpus_[gpu].running == kNone) run_next(gpu);
            return false;
        }
        case TaskKind::Join: {
            const JoinSpec& spec = workload_.joins[t.index];
            JoinState& st = joins_[t.index];
            switch (spec.kind) {
                case JoinKind::First:
                    if (st.fired) return false;
                    st.fired = true;
                    fire(t.index);
                    break;
                case JoinKind::All:
                    if (st.remaining == 0) return false;
                    if (--st.remaining == 0) fire(t.index);
                    break;
                case JoinKind::Sequence: {
                    const auto next = graph_->successors(t, Completion::Done);
                    if (st.next_successor < next.size()) {
                        const TaskRef n = next[st.next_successor++];
                        sim_.schedule(sim_.now() + spec.delay, n.packed(), kActivate,
                                      process_of(n));
                    }
                    break;
                }
            }
            return false;
        }
    }
    return false;
}

void DagRuntime::fire(std::uint32_t join) {
    const JoinSpec& spec = workload_.joins[join];
    if (spec.comm_sms != 0) move_sms(spec.gpu, spec.comm_sms);
    const Time at = sim_.now() + spec.delay;
    for (const TaskRef next : graph_->successors({TaskKind::Join, join}, Completion::Done))
        sim_.schedule(at, next.packed(), kActivate, process_of(next));
}

void DagRuntime::complete(TaskRef t, Completion on) {
    for (const TaskRef next : graph_->successors(t, on)) {
        // Joins and compute queues react at once; a transfer starts through an event, as it
        // would after a join.
        if (next.kind == TaskKind::Transfer)
            sim_.schedule(sim_.now(), next.packed(), kActivate, process_of(next));
        else
            activate(next);
    }
}

void DagRuntime::run_next(std::uint32_t gpu) {
    Gpu& g = gpus_[gpu];
    if (g.queue.empty()) {
        g.running = kNone;
        return;
    }
    g.running = g.queue.pop_front();
    compute_state_[g.running].started = sim_.now();
    g.work_left_ps = workload_.computes[g.running].duration.ps();
    g.since = sim_.now();
    g.done_at = Time::never();
    schedule_done(gpu);
}

std::int64_t DagRuntime::compute_sms(const Gpu& g) const {
    const std::int64_t sms = workload_.gpu_sms;
    return sms - std::clamp<std::int64_t>(g.comm_sms, 0, sms - 1);  // at least one SM computes
}

void DagRuntime::schedule_done(std::uint32_t gpu) {
    Gpu& g = gpus_[gpu];
    if (g.slowdown_permille == 0) {  // hung: nothing finishes until it resumes
        g.done_at = Time::never();
        return;
    }
    int128 ps = g.work_left_ps;
    if (workload_.gpu_sms > 0) {
        const std::int64_t have = compute_sms(g), sms = workload_.gpu_sms;
        ps = (ps * sms + have - 1) / have;  // the work at have/sms of full speed, rounded up
    }
    if (g.slowdown_permille != 1000) ps = (ps * g.slowdown_permille + 999) / 1000;
    const Time at = g.since + Time::from_ps(static_cast<std::int64_t>(ps));
    if (at == g.done_at) return;
    g.done_at = at;
    sim_.schedule(at, gpu, kComputeDone, gpu_process_[gpu]);
}

void DagRuntime::bank_work(Gpu& g) {
    if (g.running == kNone) return;
    // The work done since `since` at the speed that held: SMs left to compute, slowdown.
    int128 done = (sim_.now() - g.since).ps();
    if (workload_.gpu_sms > 0) done = done * compute_sms(g) / workload_.gpu_sms;
    if (g.slowdown_permille == 0)
        done = 0;
    else if (g.slowdown_permille != 1000)
        done = done * 1000 / g.slowdown_permille;
    g.work_left_ps = std::max<std::int64_t>(0, g.work_left_ps - static_cast<std::int64_t>(done));
    g.since = sim_.now();
}

void DagRuntime::move_sms(std::uint32_t gpu, std::int32_t delta) {
    Gpu& g = gpus_[gpu];
    const bool retime = g.running != kNone && workload_.gpu_sms > 0;
    if (retime) bank_work(g);
    g.comm_sms += delta;
    if (retime) schedule_done(gpu);
}

void DagRuntime::set_slowdown(std::uint32_t gpu, double factor) {
    Gpu& g = gpus_[gpu];
    bank_work(g);
    g.slowdown_permille = std::llround(factor * 1000);
    if (g.running != kNone) schedule_done(gpu);
}

void DagRuntime::compute_done(std::uint32_t gpu) {
    const std::uint32_t c = gpus_[gpu].running;
    if (c == kNone || sim_.now() != gpus_[gpu].done_at) return;  // superseded by a speed change
    compute_state_[c].finished = sim_.now();
    ++computes_finished_.here();
    run_next(gpu);
    complete({TaskKind::Compute, c}, Completion::Done);
}

}  // namespace clustersim
