#pragma once
// Packets are recycled through a free list: the pool grows while the network fills up and
// then allocates nothing, however long the run.
#include <cstdint>
#include <vector>

#include "models/packet.hpp"

namespace clustersim {

class PacketPool {
  public:
    std::uint32_t acquire() {
        if (free_.empty()) {
            packets_.emplace_back();
            ++live_;
            return static_cast<std::uint32_t>(packets_.size() - 1);
        }
        const std::uint32_t id = free_.back();
        free_.pop_back();
        packets_[id] = Packet{};
        ++live_;
        return id;
    }
    void release(std::uint32_t id) {
        free_.push_back(id);
        --live_;
    }
    Packet& operator[](std::uint32_t id) { return packets_[id]; }
    const Packet& operator[](std::uint32_t id) const { return packets_[id]; }
    std::size_t live() const { return live_; }
    std::size_t capacity() const { return packets_.size(); }

  private:
    std::vector<Packet> packets_;
    std::vector<std::uint32_t> free_;
    std::size_t live_ = 0;
};

/// FIFO of pooled packets linked through Packet::next (8 bytes: ports keep one per lane).
struct PacketQueue {
    std::uint32_t head = kNone;
    std::uint32_t tail = kNone;

    bool empty() const { return head == kNone; }
    void push(PacketPool& pool, std::uint32_t id) {
        pool[id].next = kNone;
        if (tail == kNone)
            head = id;
        else
            pool[tail].next = id;
        tail = id;
    }
    std::uint32_t pop(PacketPool& pool) {
        const std::uint32_t id = head;
        head = pool[id].next;
        if (head == kNone) tail = kNone;
        return id;
    }
};

}  // namespace clustersim
