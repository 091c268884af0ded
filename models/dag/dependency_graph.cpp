#include "models/dag/dependency_graph.hpp"

#include <algorithm>
#include <stdexcept>

namespace clustersim {

DependencyGraph::DependencyGraph(std::span<const Dependency> dependencies, std::size_t messages,
                                 std::size_t computes, std::size_t joins)
    : messages_(static_cast<std::uint32_t>(messages)),
      computes_(static_cast<std::uint32_t>(computes)) {
    auto count_of = [&](TaskKind k) {
        return k == TaskKind::Transfer ? messages : k == TaskKind::Compute ? computes : joins;
    };
    first_.assign(messages + computes + joins + 1, 0);
    const bool sends = std::any_of(dependencies.begin(), dependencies.end(),
                                   [](const Dependency& d) { return d.on == Completion::Sent; });
    if (sends) sent_first_.assign(messages + 1, 0);
    // Rows counted at their end, summed into starts, filled through each start as a cursor
    // (which leaves it at the row's end: shifted back after), so no second table is made.
    auto cursor = [&](const Dependency& d) -> std::uint32_t& {
        return d.on == Completion::Sent ? sent_first_[d.from.index] : first_[done_slot(d.from)];
    };
    for (const auto& d : dependencies) {
        // Index bounds first: a packed index past 2^30 would wrap into another kind's.
        if (d.from.index > TaskRef::kMaxIndex || d.to.index > TaskRef::kMaxIndex ||
            d.from.index >= count_of(d.from.kind) || d.to.index >= count_of(d.to.kind))
            throw std::invalid_argument("a dependency names a task that does not exist");
        if (d.on == Completion::Sent && d.from.kind != TaskKind::Transfer)
            throw std::invalid_argument("only a message has a 'sent' completion");
        ++(&cursor(d))[1];
    }
    for (std::size_t i = 1; i < first_.size(); ++i) first_[i] += first_[i - 1];
    if (sends) {
        sent_first_[0] = first_.back();
        for (std::size_t i = 1; i < sent_first_.size(); ++i) sent_first_[i] += sent_first_[i - 1];
    }
    successors_.resize(dependencies.size());
    for (const auto& d : dependencies) successors_[cursor(d)++] = d.to.packed();
    // Each start now holds its row's end, the next row's start: shift them back by one.
    auto shift = [](std::vector<std::uint32_t>& first, std::uint32_t start) {
        for (std::size_t i = first.size() - 1; i > 0; --i) first[i] = first[i - 1];
        first[0] = start;
    };
    if (sends) shift(sent_first_, first_.back());
    shift(first_, 0);
}

}  // namespace clustersim
