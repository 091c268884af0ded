#pragma once
// A FIFO over a power-of-two array that only grows (during warm-up), then reuses its storage:
// used for in-flight packets on a link and for credits travelling back to a sender.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace clustersim {

template <class T>
class RingBuffer {
  public:
    bool empty() const { return count_ == 0; }
    std::size_t size() const { return count_; }
    const T& front() const { return items_[head_]; }
    T& front() { return items_[head_]; }
    const T& back() const { return items_[(head_ + count_ - 1) & mask_]; }

    void push_back(const T& v) {
        if (count_ == items_.size()) grow();
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
        const std::size_t cap = items_.empty() ? 8 : items_.size() * 2;
        std::vector<T> next(cap);
        for (std::uint32_t i = 0; i < count_; ++i) next[i] = items_[(head_ + i) & mask_];
        items_ = std::move(next);
        head_ = 0;
        mask_ = static_cast<std::uint32_t>(cap - 1);
    }

    std::vector<T> items_;
    std::uint32_t head_ = 0;
    std::uint32_t count_ = 0;
    std::uint32_t mask_ = 0;
};

}  // namespace clustersim
