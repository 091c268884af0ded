#pragma once
// The discrete-event loop. No global state: a simulation is this object plus the models that
// hold a reference to it, so several can run in one process (sweeps on threads).
#include <concepts>
#include <cstdint>

#include "sim/event_queue.hpp"

namespace clustersim {

template <class H>
concept EventHandler = requires(H h, const Event& e) {
    h.handle(e);
};

enum class StopReason : std::uint8_t { QueueEmpty, TimeLimit, Requested };

class Simulator {
  public:
    Time now() const { return now_; }
    std::uint64_t events_processed() const { return events_processed_; }
    std::size_t pending() const { return queue_.size(); }

    void schedule(Time at, std::uint32_t target, std::uint32_t kind) {
        queue_.push(Event{at, next_sequence_++, target, kind});
    }
    void request_stop() { stop_requested_ = true; }

    /// Runs until no event is left, the next event lies beyond `limit`, or stop is requested.
    /// `on_progress` is called every `progress_every` events (for a wall-clock progress line).
    template <EventHandler H, class Progress>
    StopReason run(H& handler, Time limit, Progress&& on_progress,
                   std::uint64_t progress_every = 1u << 20) {
        std::uint64_t until_progress = progress_every;
        while (!queue_.empty()) {
            if (stop_requested_) return StopReason::Requested;
            if (queue_.top().time > limit) {
                now_ = limit;
                return StopReason::TimeLimit;
            }
            const Event e = queue_.pop();
            now_ = e.time;
            ++events_processed_;
            handler.handle(e);
            if (--until_progress == 0) {
                until_progress = progress_every;
                on_progress(*this);
            }
        }
        return stop_requested_ ? StopReason::Requested : StopReason::QueueEmpty;
    }

    template <EventHandler H>
    StopReason run(H& handler, Time limit = Time::never()) {
        return run(handler, limit, [](const Simulator&) {});
    }

  private:
    EventQueue queue_;
    Time now_;
    std::uint64_t next_sequence_ = 0;
    std::uint64_t events_processed_ = 0;
    bool stop_requested_ = false;
};

}  // namespace clustersim
