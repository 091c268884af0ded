#pragma once
// The discrete-event loop. No global state: a simulation is this object plus the models that
// hold a reference to it, so several can run in one process (sweeps on threads).
#include <algorithm>
#include <concepts>
#include <cstdint>
#include <limits>
#include <span>
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
/// A handler told when a window ends (every partition has run up to it): what one partition
/// hands another without an event (credits returned over a cut channel) moves then.
template <class H>
concept WindowedHandler = requires(H h) {
    h.end_window();
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
    // A process's own sequence numbers stay below this; schedule_own's are above it.
    static constexpr std::uint64_t kOwnSequence = std::uint64_t{1} << (kSequenceBits - 1);

    Time now() const { return now_; }
    std::uint64_t events_processed() const { return events_processed_; }
    std::size_t pending() const {
        std::size_t n = 0;
        for (const EventQueue& q : queues_) n += q.size();
        return n;
    }

    /// Logical processes 0..n-1 are the model's (each event names the one that handles it);
    /// process n schedules what is set up before the run and handles what acts on the whole
    /// model (observers, faults). Events at one time run in (source process, sequence) order.
    void set_processes(std::uint32_t n) {
        if (n >= (1u << kProcessBits)) throw std::length_error("more logical processes than 2^24");
        processes_ = n;
        current_ = n;
        issued_.assign(n + 1, 0);
        fingerprints_.assign(n + 1, EventFingerprint::kBasis);
        partition_of_.assign(n + 1, 0);
    }
    std::uint32_t processes() const { return processes_; }
    /// The process whose event is being handled (the observer's before and after the run).
    std::uint32_t current_process() const { return current_; }
    std::uint32_t observer_process() const { return processes_; }

    /// Windows: processes grouped into `count` partitions (`of_process`: per process, the
    /// observer's last, which is `count`: its own), each with its own queue. A window runs every
    /// partition from the earliest pending event up to `lookahead` later (and no further than
    /// the observer's next event), partition after partition; an event for another partition
    /// must be due no earlier than the window's end. The observer runs between windows. Set
    /// before anything is scheduled; one partition is the plain loop.
    void set_partitions(std::span<const std::uint32_t> of_process, std::uint32_t count,
                        Time lookahead) {
        if (pending() != 0) throw std::logic_error("partitions set after events were scheduled");
        if (of_process.size() != std::size_t{processes_} + 1)
            throw std::invalid_argument("a partition per process and the observer's");
        windowed_ = count > 1;
        partitions_ = windowed_ ? count : 1;
        lookahead_ = lookahead;
        if (windowed_) {
            partition_of_.assign(of_process.begin(), of_process.end());
            if (partition_of_.back() != count || lookahead <= Time::zero())
                throw std::invalid_argument("the observer apart, and a positive lookahead");
        } else {
            partition_of_.assign(of_process.size(), 0);
        }
        queues_.clear();
        queues_.resize(windowed_ ? count + 1 : 1);
    }
    bool windowed() const { return windowed_; }

    /// An event for `process` to handle at `at`.
    void schedule(Time at, std::uint32_t target, std::uint32_t kind, std::uint32_t process) {
#ifndef NDEBUG
        // Debug builds (the sanitizer pass) check the lookahead the windows rest on.
        if (windowed_ && at <= window_last_ && partition_of_[process] != partition_of_[current_])
            throw std::logic_error("an event for another partition inside the window");
#endif
        const std::uint64_t seq = std::uint64_t{current_} << kSequenceBits | issued_[current_]++;
        Event e{at, seq, target, kind & 0xffu};
        e.process = process & ((1u << kProcessBits) - 1);
        (windowed_ ? queues_[partition_of_[process]] : queues_[0]).push(e);
    }
    /// An event that stands for a state of its target rather than for what sent it (a port's
    /// one wanted wake-up): ordered as sent by `process` itself, after that process's other
    /// events at the same time, by target -- the same place whoever asked for it, and whenever.
    void schedule_own(Time at, std::uint32_t target, std::uint32_t kind, std::uint32_t process) {
        const std::uint64_t seq =
            std::uint64_t{process} << kSequenceBits | kOwnSequence | std::uint64_t{target};
        Event e{at, seq, target, kind & 0xffu};
        e.process = process & ((1u << kProcessBits) - 1);
        (windowed_ ? queues_[partition_of_[process]] : queues_[0]).push(e);
    }
    /// An event for the process being handled.
    void schedule(Time at, std::uint32_t target, std::uint32_t kind) {
        schedule(at, target, kind, current_);
    }
    void request_stop() {
        stop_requested_ = true;
    }

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
        if (windowed_) return windows<Fingerprint>(handler, limit, on_progress, progress_every);
        EventQueue& queue = queues_[0];
        std::uint64_t until_progress = progress_every;
        while (!queue.empty()) {
            if (stop_requested_) break;
            if (queue.top().time > limit) {
                now_ = limit;
                current_ = processes_;
                return StopReason::TimeLimit;
            }
            run_one<Fingerprint>(handler, queue, on_progress, until_progress, progress_every);
        }
        current_ = processes_;
        return stop_requested_ ? StopReason::Requested : StopReason::QueueEmpty;
    }

    template <bool Fingerprint, class H, class Progress>
    void run_one(H& handler, EventQueue& queue, Progress& on_progress,
                 std::uint64_t& until_progress, std::uint64_t progress_every) {
        const Event e = queue.pop();
        if constexpr (PrefetchingHandler<H>)
            if (!queue.empty()) handler.prefetch(queue.top());
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

    // Conservative windows: from the earliest pending event T, every partition runs its events
    // up to T + lookahead (exclusive), or up to the observer's next event (inclusive), which
    // then runs alone. A stop asked for inside a window takes effect at its end, so that it
    // does not depend on the order the partitions ran in.
    template <bool Fingerprint, class H, class Progress>
    StopReason windows(H& handler, Time limit, Progress& on_progress,
                       std::uint64_t progress_every) {
        std::uint64_t until_progress = progress_every;
        EventQueue& observer = queues_.back();
        Time latest = now_;
        auto finish = [&](StopReason r) {
            now_ = r == StopReason::TimeLimit ? limit : latest;
            current_ = processes_;
            return r;
        };
        while (!stop_requested_) {
            Time next = Time::never();
            for (std::uint32_t p = 0; p < partitions_; ++p)
                if (!queues_[p].empty()) next = std::min(next, queues_[p].top().time);
            const Time watch = observer.empty() ? Time::never() : observer.top().time;
            const Time first = std::min(next, watch);
            if (first == Time::never()) return finish(StopReason::QueueEmpty);
            if (first > limit) return finish(StopReason::TimeLimit);
            if (watch < next) {
                while (!observer.empty() && observer.top().time == watch)
                    run_one<Fingerprint>(handler, observer, on_progress, until_progress,
                                         progress_every);
                latest = std::max(latest, now_);
            } else {
                const Time last = std::min({next + (lookahead_ - Time::from_ps(1)), watch, limit});
                window_last_ = last;
                for (std::uint32_t p = 0; p < partitions_; ++p) {
                    EventQueue& q = queues_[p];
                    while (!q.empty() && q.top().time <= last)
                        run_one<Fingerprint>(handler, q, on_progress, until_progress,
                                             progress_every);
                    latest = std::max(latest, now_);
                }
            }
            window_last_ = Time::from_ps(std::numeric_limits<std::int64_t>::min());
            if constexpr (WindowedHandler<H>) handler.end_window();
        }
        return finish(StopReason::Requested);
    }

    std::vector<EventQueue> queues_ = std::vector<EventQueue>(1);  // per partition, observer last
    std::vector<std::uint32_t> partition_of_ = {0};                // per process
    bool windowed_ = false;
    std::uint32_t partitions_ = 1;
    Time lookahead_ = Time::never();
    // The window's last picosecond while partitions run (events for another partition must be
    // due after it); before the first, between windows and for the observer, the distant past.
    Time window_last_ = Time::from_ps(std::numeric_limits<std::int64_t>::min());
    Time now_;
    std::uint64_t events_processed_ = 0;
    bool stop_requested_ = false;
    std::uint32_t processes_ = 0;
    std::uint32_t current_ = 0;
    std::vector<std::uint64_t> issued_ = {0};  // per process: events it has scheduled
    std::vector<std::uint64_t> fingerprints_ = {EventFingerprint::kBasis};  // per process
};

}  // namespace clustersim
