#pragma once
// The DAG's edges as the runtime reads them: per (task, completion) slot, its successors in
// dependency order, in compressed rows (4 B per slot, 4 B per edge: a packed TaskRef). A workload
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

/// One slot's successors: packed TaskRefs, read as TaskRefs.
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

    /// A message has two slots (done, sent), a compute task or join one.
    std::uint32_t slot(TaskRef t, Completion on) const {
        switch (t.kind) {
            case TaskKind::Transfer:
                return 2 * t.index + (on == Completion::Sent ? 1 : 0);
            case TaskKind::Compute:
                return messages_ * 2 + t.index;
            case TaskKind::Join:
                return messages_ * 2 + computes_ + t.index;
        }
        return 0;
    }
    /// The task and completion a slot stands for (slot's inverse).
    Dependency edge_source(std::uint32_t slot) const;
    Successors successors(std::uint32_t slot) const {
        return Successors({successors_.data() + first_[slot], first_[slot + 1] - first_[slot]});
    }
    std::uint32_t slots() const { return static_cast<std::uint32_t>(first_.size() - 1); }
    std::size_t edges() const { return successors_.size(); }
    bool empty() const { return first_.empty(); }

  private:
    std::uint32_t messages_ = 0, computes_ = 0;
    std::vector<std::uint32_t> first_;       // per slot, plus one: where its successors start
    std::vector<std::uint32_t> successors_;  // TaskRef::packed()
};

}  // namespace clustersim
