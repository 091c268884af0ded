#include "models/dag/dependency_graph.hpp"

#include <stdexcept>

namespace clustersim {

DependencyGraph::DependencyGraph(std::span<const Dependency> dependencies, std::size_t messages,
                                 std::size_t computes, std::size_t joins)
    : messages_(static_cast<std::uint32_t>(messages)),
      computes_(static_cast<std::uint32_t>(computes)) {
    first_.assign(2 * messages + computes + joins + 1, 0);
    const std::size_t slots = first_.size() - 1;
    for (const auto& d : dependencies) {
        const std::size_t s = slot(d.from, d.on);
        // Index bounds first: slot() of an index past 2^30 would wrap into another kind's.
        if (d.from.index > TaskRef::kMaxIndex || d.to.index > TaskRef::kMaxIndex || s >= slots ||
            slot(d.to, Completion::Done) >= slots)
            throw std::invalid_argument("a dependency names a task that does not exist");
        ++first_[s + 1];
    }
    for (std::size_t i = 1; i < first_.size(); ++i) first_[i] += first_[i - 1];
    successors_.resize(dependencies.size());
    std::vector<std::uint32_t> fill(first_.begin(), first_.end() - 1);
    for (const auto& d : dependencies) successors_[fill[slot(d.from, d.on)]++] = d.to.packed();
}

Dependency DependencyGraph::edge_source(std::uint32_t slot) const {
    if (slot < 2 * messages_)
        return {{TaskKind::Transfer, slot / 2}, slot % 2 ? Completion::Sent : Completion::Done, {}};
    if (slot < 2 * messages_ + computes_)
        return {{TaskKind::Compute, slot - 2 * messages_}, Completion::Done, {}};
    return {{TaskKind::Join, slot - 2 * messages_ - computes_}, Completion::Done, {}};
}

}  // namespace clustersim
