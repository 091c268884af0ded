#pragma once
// State a windowed run keeps apart per partition (sim/simulator.hpp): the thread running a
// partition touches only its own copy, on cache lines of its own; totals are summed when read.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "sim/simulator.hpp"

namespace clustersim {

template <class T>
class PerPartition {
  public:
    void resize(std::uint32_t partitions) { slots_ = std::vector<Slot>(std::max(1u, partitions)); }
    std::uint32_t size() const { return static_cast<std::uint32_t>(slots_.size()); }
    /// The copy of the partition this thread runs (partition 0's outside windows).
    T& here() { return slots_[Simulator::partition()].value; }
    T& operator[](std::uint32_t p) { return slots_[p].value; }
    const T& operator[](std::uint32_t p) const { return slots_[p].value; }

    /// For counters (a struct of 64-bit counts and nothing else): the sum over partitions.
    T sum() const requires(std::is_trivially_copyable_v<T> && sizeof(T) % 8 == 0 &&
                           std::has_unique_object_representations_v<T>) {
        using Words = std::array<std::uint64_t, sizeof(T) / 8>;
        Words total{};
        for (const Slot& s : slots_) {
            const auto w = std::bit_cast<Words>(s.value);
            for (std::size_t i = 0; i < w.size(); ++i) total[i] += w[i];
        }
        return std::bit_cast<T>(total);
    }

  private:
    struct alignas(64) Slot {
        T value{};
    };
    std::vector<Slot> slots_ = std::vector<Slot>(1);
};

}  // namespace clustersim
