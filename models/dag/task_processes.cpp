#include "models/dag/task_processes.hpp"

#include <algorithm>

namespace clustersim {

namespace {

// Keeps the distinct ties without holding one entry per dependency: a step's millions of edges
// tie at most a few processes' worth of pairs, so the list is made distinct whenever it grows.
class TieSet {
  public:
    void add(std::uint32_t from, std::uint32_t to) {
        if (!ties_.empty() && ties_.back() == ProcessTie{from, to}) return;
        ties_.push_back({from, to});
        if (ties_.size() >= limit_) {
            settle();
            limit_ = std::max<std::size_t>(limit_, 2 * ties_.size());
        }
    }
    std::vector<ProcessTie> take() {
        settle();
        return std::move(ties_);
    }

  private:
    void settle() {
        std::sort(ties_.begin(), ties_.end());
        ties_.erase(std::unique(ties_.begin(), ties_.end()), ties_.end());
    }
    std::vector<ProcessTie> ties_;
    std::size_t limit_ = 1u << 16;
};

}  // namespace

TaskProcesses task_processes(const Workload& w, std::span<const std::uint32_t> gpu_process,
                             std::uint32_t fallback, Time min_delay) {
    TaskProcesses out;
    const std::size_t joins = w.joins.size();
    out.of_join.assign(joins, kNone);
    std::vector<bool> named(joins, false);
    for (std::size_t j = 0; j < joins; ++j)
        if (w.joins[j].gpu != kNone) {
            out.of_join[j] = gpu_process[w.joins[j].gpu];
            named[j] = true;
        }
    // Where a task's completion happens (kNone: a join not placed yet).
    auto site = [&](TaskRef t, Completion on) -> std::uint32_t {
        switch (t.kind) {
            case TaskKind::Transfer: {
                const Message& m = w.messages[t.index];
                return gpu_process[on == Completion::Sent ? m.src : m.dst];
            }
            case TaskKind::Compute:
                return gpu_process[w.computes[t.index].gpu];
            case TaskKind::Join:
                return out.of_join[t.index];
        }
        return kNone;
    };
    // A join takes the process of its first input from a transfer or compute task; joins fed
    // only by joins then settle along those edges, kept apart (few: barriers of barriers).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> join_to_join;
    w.for_each_dependency([&](const Dependency& d) {
        if (d.to.kind != TaskKind::Join || named[d.to.index]) return;
        if (d.from.kind == TaskKind::Join) {
            join_to_join.emplace_back(d.from.index, d.to.index);
            return;
        }
        std::uint32_t& p = out.of_join[d.to.index];
        if (p == kNone) p = site(d.from, d.on);
    });
    for (bool changed = !join_to_join.empty(); changed;) {
        changed = false;
        for (const auto& [from, to] : join_to_join)
            if (out.of_join[to] == kNone && out.of_join[from] != kNone) {
                out.of_join[to] = out.of_join[from];
                changed = true;
            }
    }
    for (std::uint32_t& p : out.of_join)
        if (p == kNone) p = fallback;

    // Where a task is activated: a transfer at its sender, the others where they run.
    auto activation = [&](TaskRef t) -> std::uint32_t {
        if (t.kind == TaskKind::Transfer) return gpu_process[w.messages[t.index].src];
        return site(t, Completion::Done);
    };
    TieSet ties;
    std::vector<bool> mixed(joins, false);
    w.for_each_dependency([&](const Dependency& d) {
        const Time delay = d.from.kind == TaskKind::Join ? w.joins[d.from.index].delay : Time{};
        if (delay >= min_delay) return;
        const std::uint32_t from = site(d.from, d.on), to = activation(d.to);
        if (from == to) return;
        ties.add(from, to);
        if (d.to.kind == TaskKind::Join && !mixed[d.to.index]) {
            mixed[d.to.index] = true;
            ++out.mixed_joins;
        }
    });
    out.ties = ties.take();
    return out;
}

}  // namespace clustersim
