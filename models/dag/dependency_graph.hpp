#pragma once
// The DAG's edges as the runtime reads them: per task its successors on completion, and per
// message those waiting for its last byte to leave (only when some do), in dependency order, in
// compressed rows (4 B per row, 4 B per edge: a packed TaskRef). A workload
// is built as a list of dependencies (20 B each) and sealed into this form before it runs, so the
// list does not stay beside the run (at 2,048 GPUs it was 0.5 GB of a 2.5 GB step).
#include <cstdint>
#include <span>
#include <vector>

namespace clustersim {

enum class TaskKind : std::uint8_t { Transfer, Compute, Join };

/// A task named by kind and index, packed in 32 bits for event targets.
struct TaskRef {
    TaskKind kind = TaskKind::Transfer;
    std::uint32_t index = 0;

    static constexpr std::uint32_t kIndexBits = 30;
    static constexpr std::uint32_t kMaxIndex = (1u << kIndexBits) - 1;
    std::uint32_t packed() const { return static_cast<std::uint32_t>(kind) << kIndexBits | index; }
    static TaskRef unpack(std::uint32_t v) {
        return TaskRef{static_cast<TaskKind>(v >> kIndexBits), v & kMaxIndex};
    }
    friend bool operator==(const TaskRef&, const TaskRef&) = default;
};

/// Which completion of a task activates its successors.
enum class Completion : std::uint8_t {
    Done,  // a message's last byte received (plus any extra latency); a compute task or join done
    Sent,  // a message's last byte has left its sender
};

struct Dependency {
    TaskRef from;
    Completion on = Completion::Done;
    TaskRef to;
};

/// One row's successors: packed TaskRefs, read as TaskRefs.
class Successors {
  public:
    explicit Successors(std::span<const std::uint32_t> packed) : packed_(packed) {}
    struct Iterator {
        const std::uint32_t* at;
        TaskRef operator*() const { return TaskRef::unpack(*at); }
        Iterator& operator++() {
            ++at;
            return *this;
        }
        friend bool operator==(Iterator, Iterator) = default;
    };
    Iterator begin() const { return {packed_.data()}; }
    Iterator end() const { return {packed_.data() + packed_.size()}; }
    std::size_t size() const { return packed_.size(); }
    bool empty() const { return packed_.empty(); }
    TaskRef operator[](std::size_t i) const { return TaskRef::unpack(packed_[i]); }

  private:
    std::span<const std::uint32_t> packed_;
};

class DependencyGraph {
  public:
    DependencyGraph() = default;
    /// The rows of `dependencies` over that many tasks of each kind, successors in list order.
    DependencyGraph(std::span<const Dependency> dependencies, std::size_t messages,
                    std::size_t computes, std::size_t joins);

    Successors successors(TaskRef t, Completion on) const {
        if (on == Completion::Sent) {
            if (sent_first_.empty()) return Successors({});
            return row(sent_first_, t.index);
        }
        return row(first_, done_slot(t));
    }
    /// f(dependency) for each: messages' done rows, their sent rows, compute tasks', joins'.
    template <class F>
    void for_each_edge(F&& f) const;
    /// Tasks it has rows for (every message, compute task and join).
    std::size_t tasks() const { return first_.empty() ? 0 : first_.size() - 1; }
    std::size_t edges() const { return successors_.size(); }
    bool empty() const { return first_.empty(); }

  private:
    std::uint32_t done_slot(TaskRef t) const {
        switch (t.kind) {
            case TaskKind::Transfer:
                return t.index;
            case TaskKind::Compute:
                return messages_ + t.index;
            case TaskKind::Join:
                return messages_ + computes_ + t.index;
        }
        return 0;
    }
    Successors row(const std::vector<std::uint32_t>& first, std::uint32_t i) const {
        return Successors({successors_.data() + first[i], first[i + 1] - first[i]});
    }

    std::uint32_t messages_ = 0, computes_ = 0;
    // Per task, plus one: where its done row starts in successors_.
    std::vector<std::uint32_t> first_;
    // Per message, plus one: where its sent row starts (after every done row); empty when no
    // dependency waits on a send, as in a low-latency MoE step (4 B per message saved).
    std::vector<std::uint32_t> sent_first_;
    std::vector<std::uint32_t> successors_;  // TaskRef::packed()
};

template <class F>
void DependencyGraph::for_each_edge(F&& f) const {
    auto rows = [&](const std::vector<std::uint32_t>& first, TaskKind kind, std::uint32_t base,
                    std::uint32_t count, Completion on) {
        for (std::uint32_t i = 0; i < count; ++i)
            for (const TaskRef to : row(first, base + i)) f(Dependency{{kind, i}, on, to});
    };
    if (first_.empty()) return;
    rows(first_, TaskKind::Transfer, 0, messages_, Completion::Done);
    if (!sent_first_.empty()) rows(sent_first_, TaskKind::Transfer, 0, messages_, Completion::Sent);
    rows(first_, TaskKind::Compute, messages_, computes_, Completion::Done);
    rows(first_, TaskKind::Join, messages_ + computes_,
         static_cast<std::uint32_t>(tasks()) - messages_ - computes_, Completion::Done);
}

}  // namespace clustersim
