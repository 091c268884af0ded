#pragma once
// The discrete-event loop. No global state: a simulation is this object plus the models that
// hold a reference to it, so several can run in one process (sweeps on threads).
#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sim/event_queue.hpp"
#include "sim/ranks.hpp"
#include "sim/thread_balance.hpp"

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
/// A handler whose run can be spread over ranks (sim/ranks.hpp): it writes what an event crossing
/// to another rank carries besides itself (a packet's record), and, before end_window, what its
/// partitions hand to another rank's without an event (credits, pool slots); it reads both back.
template <class H>
concept RankedHandler = requires(H h, const Event& e, ByteWriter& w, ByteReader& r,
                                 std::span<ByteWriter> per_rank) {
    h.pack_event(e, w);
    h.unpack_event(e, r);
    h.pack_window(per_rank);
    h.unpack_window(r);
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

    /// The time of the event being handled (on the thread handling it).
    Time now() const {
        const Running* r = running_;
        return r ? r->now : now_;
    }
    std::uint64_t events_processed() const {
        std::uint64_t n = events_processed_;
        for (const Running& r : running_partitions_) n += r.events;
        return n;
    }
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
        process_state_ = std::vector<ProcessState>(n + 1);
        partition_of_.assign(n + 1, 0);
    }
    std::uint32_t processes() const { return processes_; }
    /// The process whose event is being handled (the observer's before and after the run).
    std::uint32_t current_process() const {
        const Running* r = running_;
        return r ? r->current : current_;
    }
    std::uint32_t observer_process() const { return processes_; }

    /// Windows: processes grouped into `count` partitions (`of_process`: per process, the
    /// observer's last, which is `count`: its own), each with its own queue. A window runs every
    /// partition from the earliest pending event up to `lookahead` later (and no further than
    /// the observer's next event), the partitions apart (on threads, or one after another); an
    /// event for another partition must be due no earlier than the window's end. The observer
    /// runs between windows. Set before anything is scheduled; one partition is the plain loop.
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
        for (std::uint32_t q = 0; q < (windowed_ ? count + 1 : 1); ++q)
            queues_.push_back(EventQueue::for_share(partitions_));
        running_partitions_ = std::vector<Running>(windowed_ ? count : 0);
        for (std::uint32_t p = 0; p < running_partitions_.size(); ++p)
            running_partitions_[p].partition = p;
    }
    bool windowed() const { return windowed_; }
    /// Windows run so far (each a synchronisation of the partitions' threads).
    std::uint64_t windows_run() const { return windows_run_; }
    /// How the windows' events split over 1..64 threads (sim/thread_balance.hpp).
    const ThreadBalance& thread_balance() const { return balance_; }
    std::uint32_t partitions() const { return partitions_; }
    /// The partition whose events this thread is handling (0 outside windows: the observer's
    /// and set-up's state, which then runs alone, may be kept with partition 0's).
    static std::uint32_t partition() {
        const Running* r = running_;
        return r ? r->partition : 0;
    }
    /// Threads that run a window's partitions (at most one per partition). Results do not
    /// depend on it: partitions in a window touch only their own state.
    void set_threads(std::uint32_t n) { threads_ = std::max<std::uint32_t>(1, n); }
    std::uint32_t threads() const { return windowed_ ? std::min(threads_, partitions_) : 1; }

    /// Spreads a windowed run over `ranks` (null, or one rank: this process runs it all).
    /// Partition 0, whose state the observer's writes share, runs on rank 0; the others are
    /// dealt longest first by `load` (each partition's expected events, the same on every rank;
    /// empty: all alike), each to the rank with the least so far -- a partition's state stays on
    /// its rank, so unlike threads' the deal is made once. Set after the partitions, before
    /// anything is scheduled. Events for another rank's partition scheduled outside a window
    /// (set-up, the observer, which every rank runs alike) are that rank's to schedule; inside
    /// a window they travel to it.
    void set_ranks(Ranks* ranks, std::span<const std::uint64_t> load = {}) {
        if (pending() != 0) throw std::logic_error("ranks set after events were scheduled");
        ranks_ = windowed_ && ranks && ranks->count() > 1 ? ranks : nullptr;
        local_.assign(std::size_t{partitions_} + 1, true);  // the observer's: every rank's
        if (!ranks_) return;
        rank_of_ = deal_to_ranks(load, partitions_, ranks_->count());
        for (std::uint32_t p = 0; p < partitions_; ++p) local_[p] = rank_of_[p] == ranks_->rank();
    }
    /// The ranks the run is spread over, or null when this process runs all of it.
    Ranks* ranks() const { return ranks_; }
    /// Whether this rank runs partition `p` (every partition without ranks).
    bool local(std::uint32_t partition) const { return !ranks_ || local_[partition]; }
    std::uint32_t partition_of(std::uint32_t process) const { return partition_of_[process]; }
    /// The rank that runs partition `p` (with ranks set).
    std::uint32_t rank_of(std::uint32_t partition) const { return rank_of_[partition]; }
    /// Events pending over every rank (a collective when ranked: every rank asks alike, from
    /// the observer, which all of them run).
    std::uint64_t pending_everywhere() {
        std::uint64_t n = pending();
        if (!ranks_) return n;
        const std::uint64_t observer = queues_.back().size();
        std::uint64_t mine[1] = {n - observer};
        ranks_->sum(mine);
        return mine[0] + observer;
    }

    /// An event for `process` to handle at `at`.
    void schedule(Time at, std::uint32_t target, std::uint32_t kind, std::uint32_t process) {
        Running* r = running_;
        const std::uint32_t from = r ? r->current : current_;
#ifndef NDEBUG
        // Debug builds (the sanitizer pass) check the lookahead the windows rest on.
        if (windowed_ && at <= window_last_ && partition_of_[process] != partition_of_[from])
            throw std::logic_error("an event for another partition inside the window");
#endif
        const std::uint64_t seq =
            std::uint64_t{from} << kSequenceBits | process_state_[from].issued++;
        Event e{at, seq, target, kind & 0xffu};
        e.process = process & ((1u << kProcessBits) - 1);
        push(e, r);
    }
    /// An event that stands for a state of its target rather than for what sent it (a port's
    /// one wanted wake-up): ordered as sent by `process` itself, after that process's other
    /// events at the same time, by target -- the same place whoever asked for it, and whenever.
    void schedule_own(Time at, std::uint32_t target, std::uint32_t kind, std::uint32_t process) {
        const std::uint64_t seq =
            std::uint64_t{process} << kSequenceBits | kOwnSequence | std::uint64_t{target};
        Event e{at, seq, target, kind & 0xffu};
        e.process = process & ((1u << kProcessBits) - 1);
        push(e, running_);
    }
    /// An event for the process being handled.
    void schedule(Time at, std::uint32_t target, std::uint32_t kind) {
        schedule(at, target, kind, current_process());
    }
    /// Stops the run: at once in the plain loop, at the window's end when windowed.
    void request_stop() {
        stop_requested_.store(true, std::memory_order_relaxed);
    }

    /// Runs until no event is left, the next event lies beyond `limit`, or stop is requested.
    /// `on_progress` is called every `progress_every` events (for a wall-clock progress line;
    /// when windowed, at the end of the window in which that many more were handled).
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

    /// With ranks, a collective: a process's digest is kept by the rank that runs it (the
    /// observer's, which every rank runs alike, by rank 0); the others hold the basis.
    std::uint64_t fingerprint() const {
        std::vector<std::uint64_t> digests(process_state_.size());
        for (std::size_t p = 0; p < digests.size(); ++p) digests[p] = process_state_[p].fingerprint;
        if (ranks_) {
            for (std::size_t p = 0; p < digests.size(); ++p) {
                const bool mine = p == processes_ ? ranks_->rank() == 0 : local_[partition_of_[p]];
                digests[p] = mine ? digests[p] ^ EventFingerprint::kBasis : 0;
            }
            ranks_->allreduce(digests, Ranks::Reduce::Xor);
            for (std::uint64_t& d : digests) d ^= EventFingerprint::kBasis;
        }
        std::uint64_t value = EventFingerprint::kBasis;
        for (const std::uint64_t d : digests) value = EventFingerprint::fold(value, d);
        return value;
    }

  private:
    // What a partition's thread keeps while it handles the partition's events in a window:
    // the clock, the process, what it sent to other partitions (queued at the window's end).
    // A line of its own, so that threads do not share one.
    struct alignas(64) Running {
        Time now;
        std::uint32_t current = 0;
        std::uint32_t partition = 0;
        std::uint64_t events = 0;
        std::uint64_t dealt_at = 0;  // `events` when it was last dealt to a thread
        std::vector<Event> outbox;   // events for other partitions
        std::exception_ptr error;
    };
    // The partition this thread is running, or null (plain loop, observer, set-up).
    static inline thread_local Running* running_ = nullptr;

    void push(const Event& e, Running* r) {
        if (!windowed_) {
            queues_[0].push(e);
            return;
        }
        const std::uint32_t to = partition_of_[e.process];
        if (r && to != r->partition)
            r->outbox.push_back(e);  // another thread (or rank) may be running its queue
        else if (!r && ranks_ && !local_[to]) [[unlikely]]
            return;  // set-up or the observer: the rank that runs `to` schedules it too
        else
            queues_[to].push(e);
    }

    template <bool Fingerprint, class H, class Progress>
    StopReason loop(H& handler, Time limit, Progress& on_progress, std::uint64_t progress_every) {
        if (windowed_) return windows<Fingerprint>(handler, limit, on_progress, progress_every);
        EventQueue& queue = queues_[0];
        std::uint64_t until_progress = progress_every;
        while (!queue.empty()) {
            if (stop_requested_.load(std::memory_order_relaxed)) break;
            if (queue.top().time > limit) {
                now_ = limit;
                current_ = processes_;
                return StopReason::TimeLimit;
            }
            run_one<Fingerprint>(handler, queue);
            if (--until_progress == 0) {
                until_progress = progress_every;
                on_progress(*this);
            }
        }
        current_ = processes_;
        return stopped() ? StopReason::Requested : StopReason::QueueEmpty;
    }
    bool stopped() const {
        return stop_requested_.load(std::memory_order_relaxed);
    }

    // The next event of `queue`, with the clock, process and count of whoever runs it (the
    // simulator's own on the plain loop and the observer's queue, a partition's in a window).
    template <bool Fingerprint, class H>
    void handle_next(H& handler, EventQueue& queue, Time& now, std::uint32_t& current,
                     std::uint64_t& events) {
        const Event e = queue.pop();
        if constexpr (PrefetchingHandler<H>)
            if (!queue.empty()) handler.prefetch(queue.top());
        now = e.time;
        current = e.process;
        ++events;
        if constexpr (Fingerprint) fold(process_state_[e.process].fingerprint, e);
        handler.handle(e);
    }
    template <bool Fingerprint, class H>
    void run_one(H& handler, EventQueue& queue) {
        handle_next<Fingerprint>(handler, queue, now_, current_, events_processed_);
    }

    // A partition's events up to `last`, on the calling thread.
    template <bool Fingerprint, class H>
    void run_partition(H& handler, std::uint32_t p, Time last) {
        Running& r = running_partitions_[p];
        EventQueue& queue = queues_[p];
        running_ = &r;
        try {
            while (!queue.empty() && queue.top().time <= last)
                handle_next<Fingerprint>(handler, queue, r.now, r.current, r.events);
        } catch (...) {
            r.error = std::current_exception();
        }
        running_ = nullptr;
    }

    // Waits for `a` to stop holding `old` (or, with `until`, to hold it): a window lasts
    // microseconds, so the waiter spins first and sleeps (futex) only after a while, which
    // matters when there are more threads than cores.
    static void await(const std::atomic<std::uint32_t>& a, std::uint32_t value, bool until) {
        for (int spin = 0; spin < 4096; ++spin) {
            if ((a.load(std::memory_order_acquire) == value) == until) return;
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
        for (;;) {
            const std::uint32_t v = a.load(std::memory_order_acquire);
            if ((v == value) == until) return;
            a.wait(v, std::memory_order_acquire);
        }
    }

    // The threads of a windowed run: each runs the partitions assigned to it, so that a
    // partition's state stays in one core's caches (taking partitions from a shared list each
    // window moved them between cores and made two threads slower than one). Every
    // kRebalanceWindows windows the partitions are dealt again by the events they handled
    // since, heaviest first to the least loaded thread (Unison's load-adaptive scheduling).
    // The caller starts a window by counting it (`started_`) and waits until every worker has
    // counted itself through it (`finished_`). Stopped and joined on destruction.
    static constexpr std::uint64_t kRebalanceWindows = ThreadBalance::kRebalanceWindows;
    template <bool Fingerprint, class H>
    class Crew {
      public:
        Crew(Simulator& sim, H& handler, std::uint32_t threads)
            : sim_(sim), handler_(handler), mine_(threads) {
            deal();
            for (std::uint32_t t = 1; t < threads; ++t)
                workers_.emplace_back([this, t] {
                    for (std::uint32_t seen = 0;;) {
                        await(started_, seen, false);
                        seen = started_.load(std::memory_order_acquire);
                        if (done_) return;
                        take(t);
                        finished_.fetch_add(1, std::memory_order_release);
                        finished_.notify_one();
                    }
                });
        }
        ~Crew() {
            done_ = true;
            started_.fetch_add(1, std::memory_order_release);
            started_.notify_all();
        }
        Crew(const Crew&) = delete;
        Crew& operator=(const Crew&) = delete;
        // Every partition's events up to `last`, each partition on its thread.
        void run(Time last) {
            last_ = last;
            if (++windows_ % kRebalanceWindows == 0) deal();
            if (workers_.empty()) {
                take(0);
                return;
            }
            finished_.store(0, std::memory_order_relaxed);
            started_.fetch_add(1, std::memory_order_release);
            started_.notify_all();
            take(0);
            await(finished_, static_cast<std::uint32_t>(workers_.size()), true);
        }

      private:
        void take(std::uint32_t thread) {
            for (const std::uint32_t p : mine_[thread])
                sim_.template run_partition<Fingerprint>(handler_, p, last_);
        }
        // Longest processing time first: partitions by events since the last deal (ties by
        // index), each to the thread with the fewest so far.
        void deal() {
            std::vector<Running>& parts = sim_.running_partitions_;
            std::vector<std::uint64_t> load(parts.size());
            for (std::uint32_t p = 0; p < parts.size(); ++p) {
                // Another rank's partitions (their counts are that rank's) have no events here.
                load[p] = sim_.local(p) ? parts[p].events - parts[p].dealt_at : 0;
                parts[p].dealt_at = parts[p].events;
            }
            const std::vector<std::uint32_t> thread_of =
                deal_longest_first(load, static_cast<std::uint32_t>(mine_.size()));
            for (auto& m : mine_) m.clear();
            for (std::uint32_t p = 0; p < parts.size(); ++p) mine_[thread_of[p]].push_back(p);
        }
        Simulator& sim_;
        H& handler_;
        std::vector<std::vector<std::uint32_t>> mine_;  // per thread (0: the caller's)
        Time last_;
        std::uint64_t windows_ = 0;
        std::atomic<std::uint32_t> started_{0}, finished_{0};
        bool done_ = false;
        std::vector<std::jthread> workers_;  // last: joined before the counters go
    };

    // Conservative windows: from the earliest pending event T, every partition runs its events
    // up to T + lookahead (exclusive), or up to the observer's next event (inclusive), which
    // then runs alone. Events one partition sends another are queued at the window's end: they
    // are due after it, and the queues order events by (time, source, sequence), so when they
    // are queued does not matter. A stop asked for inside a window takes effect at its end, so
    // that it does not depend on the order the partitions ran in (or on the threads).
    template <bool Fingerprint, class H, class Progress>
    StopReason windows(H& handler, Time limit, Progress& on_progress,
                       std::uint64_t progress_every) {
        std::uint64_t progress_at = events_processed() + progress_every;
        EventQueue& observer = queues_.back();
        Crew<Fingerprint, H> crew(*this, handler, threads());
        balance_.start(partitions_);
        std::vector<std::uint64_t> handled(partitions_, 0);
        Time latest = now_;
        auto finish = [&](StopReason r) {
            now_ = r == StopReason::TimeLimit ? limit : latest;
            current_ = processes_;
            return r;
        };
        for (;;) {
            Time next = Time::never();
            for (std::uint32_t p = 0; p < partitions_; ++p)
                if (!queues_[p].empty()) next = std::min(next, queues_[p].top().time);
            bool stop = stopped();
            if (ranks_) agree(next, stop);
            if (stop) break;
            const Time watch = observer.empty() ? Time::never() : observer.top().time;
            const Time first = std::min(next, watch);
            if (first == Time::never()) return finish(StopReason::QueueEmpty);
            if (first > limit) return finish(StopReason::TimeLimit);
            if (watch < next) {
                while (!observer.empty() && observer.top().time == watch)
                    run_one<Fingerprint>(handler, observer);
                latest = std::max(latest, now_);
            } else {
                // Partitions no channel joins (pods of a fabric) run to the observer's next
                // event: nothing can reach them from another before it.
                const Time reach = lookahead_ == Time::never()
                                       ? Time::never()
                                       : next + (lookahead_ - Time::from_ps(1));
                const Time last = std::min({reach, watch, limit});
                window_last_ = last;
                balance_.begin_window();
                crew.run(last);
                ++windows_run_;
                for (Running& r : running_partitions_)
                    if (r.error) std::rethrow_exception(r.error);
                if (ranks_) {
                    if constexpr (RankedHandler<H>)
                        swap_with_ranks(handler);
                    else
                        throw std::logic_error("a model that cannot be spread over ranks");
                }
                for (Running& r : running_partitions_) {
                    latest = std::max(latest, r.now);
                    handled[r.partition] = r.events;
                }
                balance_.end_window(handled);
                for (Running& r : running_partitions_) {
                    for (const Event& e : r.outbox) queues_[partition_of_[e.process]].push(e);
                    r.outbox.clear();
                }
                now_ = latest;
            }
            window_last_ = Time::from_ps(std::numeric_limits<std::int64_t>::min());
            if constexpr (WindowedHandler<H>) handler.end_window();
            if (const std::uint64_t n = events_processed(); n >= progress_at) {
                progress_at = n + progress_every;
                on_progress(*this);
            }
        }
        return finish(StopReason::Requested);
    }

    // Ranks: the earliest event over every rank, and whether any asked to stop.
    void agree(Time& next, bool& stop) {
        std::uint64_t words[2] = {static_cast<std::uint64_t>(next.ps()), stop ? 1u : 0u};
        ranks_->allgather(words, gathered_);
        for (std::size_t i = 0; i < gathered_.size(); i += 2) {
            next = std::min(next, Time::from_ps(static_cast<std::int64_t>(gathered_[i])));
            stop = stop || gathered_[i + 1] != 0;
        }
        if (stop) stop_requested_.store(true, std::memory_order_relaxed);
    }

    // Ranks, after a window, in one exchange: events for other ranks' partitions travel to
    // them (with what the handler adds to each), then what the partitions hand over without
    // events and the handler's window counts, then each partition's events and clock, which
    // every rank keeps, so that counts, the thread balance and the run's end agree everywhere.
    template <class H>
    void swap_with_ranks(H& handler) {
        const std::uint32_t ranks = ranks_->count(), me = ranks_->rank();
        out_.resize(ranks);
        for (auto& o : out_) {
            o.clear();
            ByteWriter{o}.put(std::uint64_t{0});  // the count of events, written below
        }
        std::vector<std::uint64_t>& counts = rank_events_;
        counts.assign(ranks, 0);
        for (Running& r : running_partitions_) {
            if (!local_[r.partition]) continue;
            std::size_t kept = 0;
            for (const Event& e : r.outbox) {
                const std::uint32_t to = partition_of_[e.process];
                if (to == partitions_)
                    throw std::logic_error("an event for the observer in a window");
                if (local_[to]) {
                    r.outbox[kept++] = e;
                    continue;
                }
                const std::uint32_t rank = rank_of(to);
                ++counts[rank];
                ByteWriter w{out_[rank]};
                w.put(e);
                handler.pack_event(e, w);
            }
            r.outbox.resize(kept);
        }
        // The event count leads each rank's message; the hand-offs follow.
        std::vector<ByteWriter> writers;  // references: a few per window, none per event
        for (std::uint32_t rank = 0; rank < ranks; ++rank) {
            std::memcpy(out_[rank].data(), &counts[rank], sizeof(std::uint64_t));
            writers.push_back(ByteWriter{out_[rank]});
        }
        handler.pack_window(std::span<ByteWriter>(writers));
        // Then each of this rank's partitions' events and clock, which every rank keeps.
        for (std::uint32_t rank = 0; rank < ranks; ++rank) {
            if (rank == me) continue;
            ByteWriter w{out_[rank]};
            for (const Running& r : running_partitions_)
                if (local_[r.partition]) {
                    w.put(r.partition);
                    w.put(r.events);
                    w.put(r.now);
                }
        }
        out_[me].clear();
        ranks_->exchange(out_, in_);
        for (std::uint32_t rank = 0; rank < ranks; ++rank) {
            if (rank == me) continue;
            ByteReader r(in_[rank]);
            for (auto n = r.get<std::uint64_t>(); n > 0; --n) {
                const Event e = r.get<Event>();
                handler.unpack_event(e, r);
                queues_[partition_of_[e.process]].push(e);
            }
            handler.unpack_window(r);
            while (!r.done()) {
                const auto p = r.get<std::uint32_t>();
                if (p >= partitions_ || local_[p] || rank_of(p) != rank)
                    throw std::logic_error("a rank's message names a partition it does not run");
                Running& other = running_partitions_[p];
                other.events = r.get<std::uint64_t>();
                other.now = r.get<Time>();
            }
        }
    }

    std::vector<EventQueue> queues_ = std::vector<EventQueue>(1);  // per partition, observer last
    Ranks* ranks_ = nullptr;                                       // set_ranks
    std::vector<bool> local_ = {true};    // per partition and the observer's: run on this rank
    std::vector<std::uint32_t> rank_of_;  // per partition, with ranks set
    std::vector<std::vector<std::byte>> out_, in_;       // per rank, reused window to window
    std::vector<std::uint64_t> gathered_, rank_events_;  // reused likewise
    ThreadBalance balance_;
    std::vector<std::uint32_t> partition_of_ = {0};  // per process
    std::vector<Running> running_partitions_;        // per partition (windowed)
    bool windowed_ = false;
    std::uint32_t partitions_ = 1;
    std::uint32_t threads_ = 1;
    Time lookahead_ = Time::never();
    // The window's last picosecond while partitions run (events for another partition must be
    // due after it); before the first, between windows and for the observer, the distant past.
    Time window_last_ = Time::from_ps(std::numeric_limits<std::int64_t>::min());
    Time now_;
    std::uint64_t events_processed_ = 0;  // the plain loop's, and the observer's when windowed
    std::uint64_t windows_run_ = 0;
    std::atomic<bool> stop_requested_ = false;
    std::uint32_t processes_ = 0;
    std::uint32_t current_ = 0;
    // Per process, on a line of its own: partitions' threads count their processes' events.
    struct alignas(64) ProcessState {
        std::uint64_t issued = 0;  // events it has scheduled
        std::uint64_t fingerprint = EventFingerprint::kBasis;
    };
    std::vector<ProcessState> process_state_ = std::vector<ProcessState>(1);
    static void fold(std::uint64_t& fingerprint, const Event& e) {
        fingerprint = EventFingerprint::fold(fingerprint, e);
    }
};

}  // namespace clustersim
