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

/// A 64-bit digest of the order of events handled (time, kind, target), as OMNeT++ fingerprints
/// are: two runs whose counts agree but whose events interleave differently are told apart.
struct EventFingerprint {
    std::uint64_t value = 0xcbf29ce484222325ull;  // FNV-1a offset basis
    constexpr void fold(const Event& e) {
        for (const std::uint64_t word :
             {static_cast<std::uint64_t>(e.time.ps()), std::uint64_t{e.kind} << 32 | e.target}) {
            value ^= word;
            value *= 0x100000001b3ull;  // FNV-1a prime, one 64-bit word at a time
        }
    }
};

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
        return loop<false>(handler, limit, on_progress, progress_every);
    }
    /// The same, folding every event into fingerprint() (its own instantiation: the ordinary
    /// loop carries no test for it).
    template <EventHandler H, class Progress>
    StopReason run_fingerprinted(H& handler, Time limit, Progress&& on_progress,
                                 std::uint64_t progress_every = 1u << 20) {
        return loop<true>(handler, limit, on_progress, progress_every);
    }

    template <EventHandler H>
    StopReason run(H& handler, Time limit = Time::never()) {
        return run(handler, limit, [](const Simulator&) {});
    }

    std::uint64_t fingerprint() const { return fingerprint_.value; }

  private:
    template <bool Fingerprint, class H, class Progress>
    StopReason loop(H& handler, Time limit, Progress& on_progress, std::uint64_t progress_every) {
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
            if constexpr (Fingerprint) fingerprint_.fold(e);
            handler.handle(e);
            if (--until_progress == 0) {
                until_progress = progress_every;
                on_progress(*this);
            }
        }
        return stop_requested_ ? StopReason::Requested : StopReason::QueueEmpty;
    }

    EventQueue queue_;
    Time now_;
    std::uint64_t next_sequence_ = 0;
    std::uint64_t events_processed_ = 0;
    bool stop_requested_ = false;
    EventFingerprint fingerprint_;
};

}  // namespace clustersim
