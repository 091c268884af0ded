#pragma once
// Pending events in a 4-ary min-heap of by-value records: shallower than a binary heap and
// cache-friendly; it grows during warm-up and then never allocates again.
#include <cstddef>
#include <vector>

#include "sim/event.hpp"

namespace clustersim {

class EventQueue {
  public:
    void reserve(std::size_t n) { heap_.reserve(n); }
    bool empty() const { return heap_.empty(); }
    std::size_t size() const { return heap_.size(); }
    const Event& top() const { return heap_.front(); }

    void push(const Event& e) {
        heap_.push_back(e);
        sift_up(heap_.size() - 1);
    }

    Event pop() {
        Event out = heap_.front();
        const Event last = heap_.back();
        heap_.pop_back();
        if (!heap_.empty()) sift_down(last);
        return out;
    }

    /// Pops the minimum and pushes `e` in one pass (the hold operation of the classic benchmark).
    Event replace_top(const Event& e) {
        Event out = heap_.front();
        sift_down(e);
        return out;
    }

    void clear() { heap_.clear(); }

  private:
    static constexpr std::size_t kArity = 4;

    void sift_up(std::size_t i) {
        const Event e = heap_[i];
        while (i > 0) {
            const std::size_t parent = (i - 1) / kArity;
            if (!(e < heap_[parent])) break;
            heap_[i] = heap_[parent];
            i = parent;
        }
        heap_[i] = e;
    }

    // Places `e` at the root and sinks it to its position.
    void sift_down(const Event& e) {
        const std::size_t n = heap_.size();
        std::size_t i = 0;
        for (;;) {
            const std::size_t first = i * kArity + 1;
            if (first >= n) break;
            std::size_t best = first;
            const std::size_t last = first + kArity < n ? first + kArity : n;
            for (std::size_t c = first + 1; c < last; ++c)
                if (heap_[c] < heap_[best]) best = c;
            if (!(heap_[best] < e)) break;
            heap_[i] = heap_[best];
            i = best;
        }
        heap_[i] = e;
    }

    std::vector<Event> heap_;
};

}  // namespace clustersim
