#pragma once
// Min-heap operations with four children per node over a vector of events: half the depth of a
// binary heap and the four children share a cache line or two. Used by the event queue for its
// current bucket and for the events beyond its calendar.
#include <cstddef>
#include <vector>

#include "sim/event.hpp"

namespace clustersim {

namespace four_ary_heap {

inline void sift_up(std::vector<Event>& h, std::size_t i) {
    const Event e = h[i];
    while (i > 0) {
        const std::size_t parent = (i - 1) / 4;
        if (!(e < h[parent])) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
}

// Places `e` at index i and sinks it to its position below i. By value: `e` may be h[i].
inline void sift_down(std::vector<Event>& h, std::size_t i, Event e) {
    const std::size_t n = h.size();
    for (;;) {
        const std::size_t first = i * 4 + 1;
        if (first >= n) break;
        std::size_t best = first;
        const std::size_t last = first + 4 < n ? first + 4 : n;
        for (std::size_t c = first + 1; c < last; ++c)
            if (h[c] < h[best]) best = c;
        if (!(h[best] < e)) break;
        h[i] = h[best];
        i = best;
    }
    h[i] = e;
}

inline void push(std::vector<Event>& h, const Event& e) {
    h.push_back(e);
    sift_up(h, h.size() - 1);
}

inline Event pop(std::vector<Event>& h) {
    const Event out = h.front();
    const Event last = h.back();
    h.pop_back();
    if (!h.empty()) sift_down(h, 0, last);
    return out;
}

inline void make(std::vector<Event>& h) {
    if (h.size() < 2) return;
    for (std::size_t i = (h.size() - 2) / 4 + 1; i-- > 0;) sift_down(h, i, h[i]);
}

}  // namespace four_ary_heap

}  // namespace clustersim
