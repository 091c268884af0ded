#pragma once
// A FIFO over a power-of-two array that only grows (during warm-up), then reuses its storage:
// for short queues every owner keeps (credits travelling back to a sender, a NIC's ACKs, a
// GPU's waiting kernels). Packet queues, which grow long at a few ports at a time, borrow
// chunks instead (sim/chunked_fifo.hpp). The header is 24 bytes (a pointer and three 32-bit
// counters) so that the port records holding them fit in few cache lines. The array has lines of its own:
// rings of ports that partitions' threads use apart must not share one.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>

namespace clustersim {

template <class T>
class RingBuffer {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

  public:
    bool empty() const { return count_ == 0; }
    std::size_t size() const { return count_; }
    const T& front() const { return items_[head_]; }
    T& front() { return items_[head_]; }
    const T& back() const { return items_[(head_ + count_ - 1) & mask_]; }
    T& back() { return items_[(head_ + count_ - 1) & mask_]; }
    /// The i-th item from the front.
    T& operator[](std::size_t i) { return items_[(head_ + i) & mask_]; }

    void push_back(const T& v) {
        if (!items_ || count_ == mask_ + 1) grow();
        items_[(head_ + count_) & mask_] = v;
        ++count_;
    }
    T pop_front() {
        T v = items_[head_];
        head_ = (head_ + 1) & mask_;
        --count_;
        return v;
    }

  private:
    void grow() {
        const std::uint32_t cap = items_ ? (mask_ + 1) * 2 : 8;
        const std::size_t bytes = (std::size_t{cap} * sizeof(T) + kLine - 1) / kLine * kLine;
        Items next(static_cast<T*>(::operator new (bytes, std::align_val_t{kLine})));
        for (std::uint32_t i = 0; i < count_; ++i) next[i] = items_[(head_ + i) & mask_];
        items_ = std::move(next);
        head_ = 0;
        mask_ = cap - 1;
    }

    static constexpr std::size_t kLine = 64;
    struct Free {
        void operator()(T* p) const { ::operator delete (p, std::align_val_t{kLine}); }
    };
    using Items = std::unique_ptr<T[], Free>;
    Items items_;
    std::uint32_t head_ = 0;
    std::uint32_t count_ = 0;
    std::uint32_t mask_ = 0;
};

}  // namespace clustersim
