#pragma once
// Slots of T (packets on links, receivers' state) that each partition of a windowed run takes
// from its own store, so that threads never share a free list. A slot is named in 32 bits by
// its partition and index. A slot given back by another partition (a packet launched in one,
// arriving in another) returns to its owner at the window's end (settle), in partition order,
// so that which slot is taken next does not depend on the threads. Slots live in chunks that
// never move, because another partition's thread may read a slot while its owner grows.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sim/per_partition.hpp"

namespace clustersim {

template <class T>
class PartitionedPool {
  public:
    static constexpr unsigned kIndexBits = 24;  // 256 partitions of 2^24 - 2 slots
    static constexpr std::uint32_t kIndexMask = (1u << kIndexBits) - 1;

    PartitionedPool() { set_partitions(1); }
    void set_partitions(std::uint32_t partitions) {
        if (partitions > (1u << (32 - kIndexBits)))
            throw std::length_error("more partitions than a pool can name");
        parts_.resize(partitions);
        for (std::uint32_t q = 0; q < parts_.size(); ++q)  // never reallocated (see above)
            parts_[q].chunks.reserve(std::size_t{1} << (kIndexBits - kChunkBits));
    }
    /// A slot of this thread's partition (its value as last left: callers reset it).
    std::uint32_t acquire() {
        const std::uint32_t part = Simulator::partition();
        Part& p = parts_[part];
        std::uint32_t index;
        if (p.free.empty()) {  // grows during warm-up only
            index = p.size++;
            if (index >= kIndexMask - 1)  // the top two names are callers' sentinels
                throw std::length_error("more than 2^24 slots in one partition");
            if ((index & kChunkMask) == 0) p.chunks.push_back(std::make_unique<T[]>(kChunk));
        } else {
            index = p.free.back();
            p.free.pop_back();
        }
        return part << kIndexBits | index;
    }
    T& operator[](std::uint32_t slot) {
        const std::uint32_t i = slot & kIndexMask;
        return parts_[slot >> kIndexBits].chunks[i >> kChunkBits][i & kChunkMask];
    }
    const T& operator[](std::uint32_t slot) const {
        const std::uint32_t i = slot & kIndexMask;
        return parts_[slot >> kIndexBits].chunks[i >> kChunkBits][i & kChunkMask];
    }
    /// Gives a slot back: to the free list at once when this thread's partition owns it,
    /// else at the window's end. Freed slots are taken again last-in first (while hot).
    void release(std::uint32_t slot) {
        const std::uint32_t part = Simulator::partition();
        if (slot >> kIndexBits == part)
            parts_[part].free.push_back(slot & kIndexMask);
        else
            parts_[part].returned.push_back(slot);
    }
    /// The window is over: slots given back by other partitions return to their owners.
    void settle() {
        for (std::uint32_t q = 0; q < parts_.size(); ++q) {
            for (const std::uint32_t slot : parts_[q].returned)
                parts_[slot >> kIndexBits].free.push_back(slot & kIndexMask);
            parts_[q].returned.clear();
        }
    }
    /// Ranks (sim/ranks.hpp): a slot of another rank's partition, to hold the value it had
    /// there (its chunk made here when first needed).
    T& adopt(std::uint32_t slot) {
        Part& p = parts_[slot >> kIndexBits];
        const std::size_t chunk = (slot & kIndexMask) >> kChunkBits;
        while (p.chunks.size() <= chunk) p.chunks.push_back(std::make_unique<T[]>(kChunk));
        return (*this)[slot];
    }
    /// Ranks: the slots partition `q` gave back in this window that `elsewhere` says belong to
    /// another rank's partition go to `hand(slot)`, in order, and leave this rank's list.
    template <class Elsewhere, class Hand>
    void hand_back(std::uint32_t q, Elsewhere elsewhere, Hand hand) {
        std::vector<std::uint32_t>& list = parts_[q].returned;
        std::size_t kept = 0;
        for (const std::uint32_t slot : list) {
            if (elsewhere(slot >> kIndexBits))
                hand(slot);
            else
                list[kept++] = slot;
        }
        list.resize(kept);
    }
    /// Ranks: a slot partition `q` (another rank's) gave back, owned here; settled in order.
    void returned_by(std::uint32_t q, std::uint32_t slot) { parts_[q].returned.push_back(slot); }

    /// Slots ever taken, over every partition (the pool's high-water mark).
    std::size_t slots() const {
        std::size_t n = 0;
        for (std::uint32_t q = 0; q < parts_.size(); ++q) n += parts_[q].size;
        return n;
    }

  private:
    static constexpr unsigned kChunkBits = 10;
    static constexpr std::uint32_t kChunk = 1u << kChunkBits, kChunkMask = kChunk - 1;
    struct Part {
        // Read by every partition (a slot it was handed); the lists below are written by the
        // owner at every slot taken or given back, so they start on a line of their own.
        std::vector<std::unique_ptr<T[]>> chunks;  // reserved in full: the array never moves
        alignas(64) std::uint32_t size = 0;        // slots ever taken
        std::vector<std::uint32_t> free;
        std::vector<std::uint32_t> returned;  // others' slots given back in this window
    };
    PerPartition<Part> parts_;
};

}  // namespace clustersim
