#include "models/dag/workload.hpp"

#include <fmt/format.h>

namespace clustersim {

void Workload::start_after(std::uint32_t message, const std::vector<std::uint32_t>& after,
                           Time delay) {
    if (after.empty()) return;
    const std::uint32_t j =
        add_join(JoinSpec{JoinKind::All, static_cast<std::uint32_t>(after.size()), delay, 0});
    for (std::uint32_t m : after)
        depend({TaskKind::Transfer, m}, Completion::Done, {TaskKind::Join, j});
    depend({TaskKind::Join, j}, Completion::Done, {TaskKind::Transfer, message});
    set_start(message, Time::never());
}

void Workload::seal() {
    if (sealed()) return;
    // A graph is never empty once built (one slot boundary at least), so sealing an empty
    // workload seals it too.
    graph = DependencyGraph(dependencies, messages.size(), computes.size(), joins.size());
    std::vector<Dependency>().swap(dependencies);
    messages.shrink_to_fit();
    starts_.shrink_to_fit();
    labels_.shrink_to_fit();
    computes.shrink_to_fit();
    joins.shrink_to_fit();
}

std::string Workload::validate(std::uint32_t endpoints) const {
    if (messages.size() > TaskRef::kMaxIndex || computes.size() > TaskRef::kMaxIndex ||
        joins.size() > TaskRef::kMaxIndex)
        return fmt::format("more than {} tasks of one kind", TaskRef::kMaxIndex);
    auto size_of = [&](TaskKind k) -> std::size_t {
        switch (k) {
            case TaskKind::Transfer:
                return messages.size();
            case TaskKind::Compute:
                return computes.size();
            case TaskKind::Join:
                return joins.size();
        }
        return 0;
    };
    std::vector<bool> message_has_input(messages.size(), false);
    std::vector<bool> compute_has_input(computes.size(), false);
    std::string wrong;
    for_each_dependency([&](const Dependency& d) {
        if (!wrong.empty()) return;
        if (d.from.index >= size_of(d.from.kind) || d.to.index >= size_of(d.to.kind)) {
            wrong = "a dependency names a task that does not exist";
            return;
        }
        if (d.on == Completion::Sent && d.from.kind != TaskKind::Transfer) {
            wrong = "only a message has a 'sent' completion";
            return;
        }
        if (d.to.kind == TaskKind::Transfer) message_has_input[d.to.index] = true;
        if (d.to.kind == TaskKind::Compute) compute_has_input[d.to.index] = true;
    });
    if (!wrong.empty()) return wrong;
    for (std::uint32_t i = 0; i < messages.size(); ++i) {
        const auto& m = messages[i];
        if (m.src >= endpoints || m.dst >= endpoints)
            return fmt::format("message {} goes {}->{} but the topology has {} endpoints",
                               label_of(i), m.src, m.dst, endpoints);
        if (start_of(i) == Time::never() && !message_has_input[i])
            return fmt::format("message {} has neither a start time nor a trigger", label_of(i));
    }
    for (std::size_t i = 0; i < computes.size(); ++i) {
        const auto& c = computes[i];
        if (c.gpu >= endpoints)
            return fmt::format("compute task {} runs on GPU {} but the topology has {} endpoints",
                               c.label, c.gpu, endpoints);
        if (c.start == Time::never() && !compute_has_input[i])
            return fmt::format("compute task {} has neither a start time nor an input", c.label);
    }
    for (const auto& j : joins) {
        if (j.kind == JoinKind::All && j.count == 0)
            return fmt::format("barrier trigger {} needs a count of at least 1", j.label);
        if (j.comm_sms != 0 && (j.gpu >= endpoints || gpu_sms == 0))
            return fmt::format("join {} moves SMs on GPU {}, which does not exist or has no SMs",
                               j.label, j.gpu);
    }
    return {};
}

}  // namespace clustersim
