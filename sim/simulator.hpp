#pragma once
// The discrete-event loop. No global state: a simulation is this object plus the models that
// hold a reference to it, so several can run in one process (sweeps on threads).
#include <concepts>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/event_queue.hpp"

namespace clustersim {

template <class H>
concept EventHandler = requires(H h, const Event& e) {
    h.handle(e);
};
/// A handler that can start loading the state the next event will touch while it handles this
/// one: at scale each event waits on memory, and the next event is known before this one runs.
/// A hint only: it must not change state.
template <class H>
concept PrefetchingHandler = requires(H h, const Event& e) {
    h.prefetch(e);
};

enum class StopReason : std::uint8_t { QueueEmpty, TimeLimit, Requested };

/// A 64-bit digest of the order of events handled (time, kind, target), as OMNeT++ fingerprints
/// are: two runs whose counts agree but whose events interleave differently are told apart.
/// Kept per logical process and combined in process order, so that a parallel run, whose
/// processes interleave with each other freely, has the serial run's digest.
struct EventFingerprint {
    static constexpr std::uint64_t kBasis = 0xcbf29ce484222325ull;  // FNV-1a offset basis
    static constexpr std::uint64_t fold(std::uint64_t value, std::uint64_t word) {
        return (value ^ word) * 0x100000001b3ull;  // FNV-1a prime, one 64-bit word at a time
    }
    static constexpr std::uint64_t fold(std::uint64_t value, const Event& e) {
        value = fold(value, static_cast<std::uint64_t>(e.time.ps()));
        return fold(value, std::uint64_t{e.kind} << 32 | e.target);
    }
};

class Simulator {
  public:
    Time now() const { return now_; }
    std::uint64_t events_processed() const { return events_processed_; }
    std::size_t pending() const { return queue_.size(); }

    /// Logical processes 0..n-1 are the model's (each event names the one that handles it);
    /// process n schedules what is set up before the run and handles what acts on the whole
    /// model (observers, faults). Events at one time run in (source process, sequence) order.
    void set_processes(std::uint32_t n) {
        if (n >= (1u << kProcessBits)) throw std::length_error("more logical processes than 2^24");
        processes_ = n;
        current_ = n;
        issued_.assign(n + 1, 0);
        fingerprints_.assign(n + 1, EventFingerprint::kBasis);
    }
    std::uint32_t processes() const { return processes_; }
    /// The process whose event is being handled (the observer's before and after the run).
    std::uint32_t current_process() const { return current_; }
    std::uint32_t observer_process() const { return processes_; }

    /// An event for `process` to handle at `at`.
    void schedule(Time at, std::uint32_t target, std::uint32_t kind, std::uint32_t process) {
        const std::uint64_t seq = std::uint64_t{current_} << kSequenceBits | issued_[current_]++;
        Event e{at, seq, target, kind & 0xffu};
        e.process = process & ((1u << kProcessBits) - 1);
        queue_.push(e);
    }
    /// An event for the process being handled.
    void schedule(Time at, std::uint32_t target, std::uint32_t kind) {
        schedule(at, target, kind, current_);
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

    std::uint64_t fingerprint() const {
        std::uint64_t value = EventFingerprint::kBasis;
        for (const std::uint64_t f : fingerprints_) value = EventFingerprint::fold(value, f);
        return value;
    }

  private:
    template <bool Fingerprint, class H, class Progress>
    StopReason loop(H& handler, Time limit, Progress& on_progress, std::uint64_t progress_every) {
        std::uint64_t until_progress = progress_every;
        while (!queue_.empty()) {
            if (stop_requested_) break;
            if (queue_.top().time > limit) {
                now_ = limit;
                current_ = processes_;
                return StopReason::TimeLimit;
            }
            const Event e = queue_.pop();
            if constexpr (PrefetchingHandler<H>)
                if (!queue_.empty()) handler.prefetch(queue_.top());
            now_ = e.time;
            current_ = e.process;
            ++events_processed_;
            if constexpr (Fingerprint)
                fingerprints_[current_] = EventFingerprint::fold(fingerprints_[current_], e);
            handler.handle(e);
            if (--until_progress == 0) {
                until_progress = progress_every;
                on_progress(*this);
            }
        }
        current_ = processes_;
        return stop_requested_ ? StopReason::Requested : StopReason::QueueEmpty;
    }

    EventQueue queue_;
    Time now_;
    std::uint64_t events_processed_ = 0;
    bool stop_requested_ = false;
    std::uint32_t processes_ = 0;
    std::uint32_t current_ = 0;
    std::vector<std::uint64_t> issued_ = {0};  // per process: events it has scheduled
    std::vector<std::uint64_t> fingerprints_ = {EventFingerprint::kBasis};  // per process
};

}  // namespace clustersim
