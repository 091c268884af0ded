#pragma once
// What is sent: messages between endpoints and the triggers that chain them into a DAG
// (htsim's connection-matrix semantics: oneshot, multishot, barrier). Traffic generators and
// trace readers produce this; the network executes it.
#include <cstdint>
#include <string>
#include <vector>

#include "models/packet.hpp"
#include "sim/time.hpp"

namespace clustersim {

struct MessageSpec {
    std::uint32_t src = 0;
    std::uint32_t dst = 0;
    std::uint64_t bytes = 0;
    Time start = Time::never();               // absolute start, or never when started by a trigger
    std::uint32_t start_trigger = kNone;      // trigger that starts it
    std::uint32_t send_done_trigger = kNone;  // activated when its last byte leaves the sender
    std::uint32_t recv_done_trigger = kNone;  // activated when its last byte arrives
    std::uint64_t label = 0;                  // the id users know it by (trace id, or its index)
};

enum class TriggerKind : std::uint8_t {
    OneShot,    // first activation starts every target
    MultiShot,  // each activation starts the next target, in order
    Barrier,    // the count-th activation starts every target
};

struct TriggerSpec {
    TriggerKind kind = TriggerKind::OneShot;
    std::uint32_t count = 1;  // activations needed (barrier)
    Time delay;               // between firing and the targets' start (e.g. compute)
    std::vector<std::uint32_t> targets;
    std::uint64_t label = 0;
};

struct Workload {
    std::vector<MessageSpec> messages;
    std::vector<TriggerSpec> triggers;

    std::uint32_t add_message(const MessageSpec& m) {
        messages.push_back(m);
        if (messages.back().label == 0) messages.back().label = messages.size() - 1;
        return static_cast<std::uint32_t>(messages.size() - 1);
    }
    std::uint32_t add_trigger(const TriggerSpec& t) {
        triggers.push_back(t);
        return static_cast<std::uint32_t>(triggers.size() - 1);
    }
    /// `message` starts `delay` after every one of `after` has been received. Each message in
    /// `after` may gate only one barrier (one receive trigger per message).
    void start_after(std::uint32_t message, const std::vector<std::uint32_t>& after, Time delay);
    std::uint64_t total_bytes() const {
        std::uint64_t b = 0;
        for (const auto& m : messages) b += m.bytes;
        return b;
    }
    /// Empty when consistent, else what is wrong (for loaders to turn into input errors).
    std::string validate(std::uint32_t endpoints) const;
};

}  // namespace clustersim
