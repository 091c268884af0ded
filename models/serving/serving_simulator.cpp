#include "models/serving/serving_simulator.hpp"

#include <algorithm>
#include <bit>
#include <deque>
#include <queue>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "sim/random.hpp"

namespace clustersim {
namespace {

enum class Ev : std::uint8_t {
    Arrival,
    PrefillDone,
    KvDone,
    DecodeDone,
    FaultStart,
    FaultEnd,
    WakePrefill,  // a frozen instance thaws
    WakeDecode,
};

constexpr std::uint32_t kNone32 = ~std::uint32_t{0};  // no instance

struct Event {
    Time at;
    std::uint64_t sequence = 0;  // equal times: in the order scheduled
    Ev kind = Ev::Arrival;
    std::uint32_t target = 0;
    std::uint32_t generation = 0;  // a step's end: the instance's step_generation, as it began
    bool operator>(const Event& o) const { return at != o.at ? at > o.at : sequence > o.sequence; }
};

// A KV transfer through a NIC: what it carries, and when.
struct Transfer {
    Time start, end;
    std::uint64_t bytes = 0;
};

struct Chunk {
    std::uint32_t request = 0;
    std::uint32_t tokens = 0;
};

// One instance: its prefill queue and step, its decoding batch and the requests waiting for a
// place in it. A disaggregated deployment uses the first half in prefill instances and the
// second in decode instances; a colocated one both in each.
struct Instance {
    Instance(std::uint32_t ep, std::uint32_t first, std::uint32_t pod_of)
        : ep_size(ep), first_gpu(first), pod(pod_of) {}
    std::uint32_t ep_size = 1;
    std::uint32_t first_gpu = 0;
    std::uint32_t pod = 0;
    std::deque<Chunk> waiting;  // prompts (what is left of them), first come first served
    std::uint64_t waiting_tokens = 0;
    std::vector<Chunk> prefilling;  // this step's chunks
    std::vector<std::uint32_t> running;
    std::deque<std::uint32_t> admit;  // KV cache here, no place in the batch yet
    std::uint32_t assigned = 0;       // decode: requests sent here and not finished
    std::uint32_t next_rank = 0;      // decode: the attention rank the next request takes
    std::size_t step = 0;             // the record of its step in progress
    Time step_end;                    // and when it ends
    bool busy = false;
    // Faults: a stopped instance is down (stopped_by: the fault blamed; by_step: a step that
    // failed with it, so it tries again when the faults change); `generation` counts its stops
    // (a KV cache sent before one fails as it arrives), `step_generation` its stops and
    // freezes (a step's end scheduled before one is void). A frozen one starts no step before
    // frozen_until. `seen`: the faults it has stepped with.
    bool down = false;
    bool by_step = false;
    std::uint32_t stopped_by = 0;
    std::uint32_t generation = 0;
    std::uint32_t step_generation = 0;
    Time frozen_until = Time::zero();
    bool wake_pending = false;
    std::uint64_t seen = 0;
};

class Run {
  public:
    Run(const ServingDeployment& d, std::span<const ServingRequest> requests, StepTimes& steps,
        std::uint64_t seed, std::span<const ServingFault> faults)
        : d_(d), req_(requests), steps_(steps), rng_(seed, "serving-mtp"), faults_(faults) {
        if (faults.size() > 64) throw std::invalid_argument("more than 64 serving faults");
        out_.requests.resize(requests.size());
        out_.faults.resize(faults.size());
        left_.resize(requests.size());
        generated_.assign(requests.size(), 0);
        kv_generation_.assign(requests.size(), 0);
        const bool dis = d.kind == DeploymentKind::Disaggregated;
        if (d.pods == 0 || (dis && d.prefill.instances % d.pods != 0) ||
            d.decode.instances % d.pods != 0)
            throw std::invalid_argument("serving instances not a whole share per pod");
        if (dis)
            for (std::uint32_t i = 0; i < d.prefill.instances; ++i)
                prefill_.emplace_back(d.prefill.ep_size, d.prefill_first_gpu(i), d.prefill_pod(i));
        for (std::uint32_t i = 0; i < d.decode.instances; ++i)
            decode_.emplace_back(d.decode.ep_size, d.decode_first_gpu(i), d.decode_pod(i));
        const std::uint32_t gpus = d.pods * d.pod_gpus();
        fabric_tx_free_.assign(gpus, Time::zero());
        fabric_rx_free_.assign(gpus, Time::zero());
        sending_.resize(gpus);
        receiving_.resize(gpus);
        const std::uint32_t nodes = (gpus + d.gpus_per_node - 1) / d.gpus_per_node;
        storage_tx_free_.assign(nodes, Time::zero());
        storage_rx_free_.assign(nodes, Time::zero());
        // Faults first: one at an arrival's time is there when the request arrives. Present
        // from the start, a fault is in its steady state for every step (long reacted to).
        for (std::uint32_t k = 0; k < faults.size(); ++k) {
            schedule(faults[k].at, Ev::FaultStart, k);
            if (faults[k].until != Time::never()) schedule(faults[k].until, Ev::FaultEnd, k);
            if (faults[k].at == Time::zero() || !faults[k].reacts)
                from_start_ |= std::uint64_t{1} << k;
        }
        for (Instance& in : prefill_) in.seen = from_start_;
        for (Instance& in : decode_) in.seen = from_start_;  // nothing to react to: no transient
        for (std::uint32_t r = 0; r < requests.size(); ++r) {
            if (r > 0 && requests[r].arrival < requests[r - 1].arrival)
                throw std::invalid_argument("serving requests out of arrival order");
            schedule(requests[r].arrival, Ev::Arrival, r);
        }
    }

    ServingOutcome run() {
        Time last = Time::zero();
        while (!events_.empty()) {
            const Event e = events_.top();
            events_.pop();
            out_.request_seconds += static_cast<double>(in_system_) * (e.at - last).us() * 1e-6;
            last = e.at;
            now_ = e.at;
            switch (e.kind) {
                case Ev::Arrival:
                    arrive(e.target);
                    break;
                case Ev::PrefillDone:
                    if (e.generation == prefillers()[e.target].step_generation)
                        prefill_done(e.target);
                    break;
                case Ev::KvDone:
                    kv_done(e.target);
                    break;
                case Ev::DecodeDone:
                    if (e.generation == decode_[e.target].step_generation) decode_done(e.target);
                    break;
                case Ev::FaultStart:
                    fault_start(e.target);
                    break;
                case Ev::FaultEnd:
                    fault_end(e.target);
                    break;
                case Ev::WakePrefill:
                    prefillers()[e.target].wake_pending = false;
                    next_step(e.target);
                    break;
                case Ev::WakeDecode:
                    decode_[e.target].wake_pending = false;
                    if (colocated())
                        next_step(e.target);
                    else
                        start_decode(e.target);
                    break;
            }
        }
        out_.end = last_done_;  // fault events after the last request are not part of the run
        return std::move(out_);
    }

  private:
    bool colocated() const { return d_.kind == DeploymentKind::Colocated; }
    // Prefill instances: their own in a disaggregated deployment, the decode ones colocated.
    std::vector<Instance>& prefillers() { return colocated() ? decode_ : prefill_; }
    std::uint32_t capacity(const Instance& in) const {
        return d_.decode_requests_per_gpu * in.ep_size;
    }

    void schedule(Time at, Ev kind, std::uint32_t target, std::uint32_t generation = 0) {
        events_.push(Event{at, sequence_++, kind, target, generation});
    }

    void arrive(std::uint32_t r) {
        ++in_system_;
        std::vector<Instance>& pool = prefillers();
        std::uint32_t best = kNone32;
        for (std::uint32_t i = 0; i < pool.size(); ++i)
            if (!pool[i].down && (best == kNone32 || load(pool[i]) < load(pool[best]))) best = i;
        // Every one stopped: blamed on what holds the first down.
        if (best == kNone32) return fail(r, pool.front().stopped_by);
        Instance& in = pool[best];
        left_[r] = req_[r].prompt_tokens;
        in.waiting.push_back(Chunk{r, req_[r].prompt_tokens});
        in.waiting_tokens += req_[r].prompt_tokens;
        if (!in.busy) next_step(best);
    }
    // A prefill instance's load: the prompt tokens it has yet to take, then (colocated) the
    // requests it holds.
    std::pair<std::uint64_t, std::uint32_t> load(const Instance& in) const {
        return {in.waiting_tokens, colocated() ? in.assigned : 0};
    }

    // The instance's transmitter is free: a prefill step if prompts wait (colocated: and the
    // batch has room for them), else a decode step if anything decodes, else idle.
    void next_step(std::uint32_t i) {
        Instance& in = colocated() ? decode_[i] : prefill_[i];
        if (in.busy || !may_step(in, i, !colocated())) return;
        if (colocated()) {
            const bool room = in.assigned < capacity(in);
            if (!in.waiting.empty() && room) return start_prefill(in, i);
            return start_decode(i);
        }
        if (!in.waiting.empty()) start_prefill(in, i);
    }

    void start_prefill(Instance& in, std::uint32_t i) {
        std::uint64_t budget = std::uint64_t{d_.prefill_tokens_per_gpu} * in.ep_size;
        std::uint64_t total = 0;
        double weighted = 0;
        in.prefilling.clear();
        while (!in.waiting.empty() && budget > 0) {
            Chunk& c = in.waiting.front();
            if (colocated() && left_[c.request] == req_[c.request].prompt_tokens) {
                if (in.assigned >= capacity(in)) break;  // no room to decode it
                ++in.assigned;
            }
            const auto take = static_cast<std::uint32_t>(std::min<std::uint64_t>(c.tokens, budget));
            RequestTimes& t = out_.requests[c.request];
            if (t.prefill_start == Time::never()) t.prefill_start = now_;
            in.prefilling.push_back(Chunk{c.request, take});
            budget -= take;
            total += take;
            weighted += static_cast<double>(take) * req_[c.request].prompt_tokens;
            in.waiting_tokens -= take;
            c.tokens -= take;
            if (c.tokens == 0) in.waiting.pop_front();
        }
        if (total == 0) {  // colocated, and no room to decode what waits
            if (colocated()) start_decode(i);
            return;
        }
        const PrefillShape shape{
            static_cast<std::uint32_t>((total + in.ep_size - 1) / in.ep_size),
            static_cast<std::uint32_t>(weighted / static_cast<double>(total) + 0.5),
            colocated() ? 0 : kv_in_flight(in, sending_), step_faults(in, i, true), i};
        const StepTime took = steps_.prefill(shape);
        begin_step(in, i, true, static_cast<std::uint32_t>(total), shape.tokens_per_gpu,
                   shape.kv_bytes, shape.faults, took);
    }

    // The step's faults: those present now that change its kind's steps, and of them the ones
    // new to this instance that the fabric reacts to.
    // A fault that names instances (a GPU's) changes theirs alone.
    StepFaults step_faults(Instance& in, std::uint32_t i, bool prefill) {
        StepFaults f;
        for (std::uint32_t k = 0; k < faults_.size(); ++k) {
            const ServingFault& x = faults_[k];
            const bool kind = colocated() || (prefill ? x.prefill_steps : x.decode_steps);
            const std::vector<std::uint32_t>& named =
                prefill && !colocated() ? x.prefill_instances : x.decode_instances;
            const bool mine =
                kind && (named.empty() || std::find(named.begin(), named.end(), i) != named.end());
            if (x.effect == ServingFaultEffect::Steps && mine && x.present_at(now_))
                f.present |= std::uint64_t{1} << k;
        }
        f.transient = f.present & ~in.seen;
        in.seen |= f.present;
        for (std::uint32_t k = 0; k < faults_.size(); ++k) {
            if (!(f.present >> k & 1)) continue;
            ++out_.faults[k].steps;
            out_.faults[k].transient_steps += f.transient >> k & 1;
        }
        return f;
    }

    void begin_step(Instance& in, std::uint32_t i, bool prefill, std::uint32_t batch,
                    std::uint32_t shape, std::uint64_t kv_bytes, StepFaults faults,
                    const StepTime& took) {
        in.step = out_.steps.size();
        out_.steps.push_back(StepRecord{now_, took.total, i, prefill, batch, shape, 0, kv_bytes,
                                        took.kv_slowdown, faults.present, took.failed});
        if (took.failed) {
            // The library aborts: the instance stops. Failed in a fault's transient, it
            // restarts at once (restart time not modelled) and meets the fault's steady state;
            // failed in the steady state, it waits for the faults to change.
            for (std::uint32_t k = 0; k < faults_.size(); ++k)
                out_.faults[k].failed_steps += faults.present >> k & 1;
            out_.steps[in.step].duration = Time::zero();
            const auto blamed = static_cast<std::uint32_t>(
                std::countr_zero(faults.transient != 0 ? faults.transient : faults.present));
            stop(in, i, prefill && !colocated(), blamed, true);
            if (faults.transient != 0) in.down = false;
            return;
        }
        in.busy = true;
        in.step_end = now_ + took.total;
        schedule(in.step_end, prefill ? Ev::PrefillDone : Ev::DecodeDone, i, in.step_generation);
    }

    // Whether the instance may begin a step now: not while stopped; while frozen, it wakes
    // when the freeze ends.
    bool may_step(Instance& in, std::uint32_t i, bool prefill_side) {
        if (in.down) return false;
        if (now_ < in.frozen_until) {
            if (!in.wake_pending)
                schedule(in.frozen_until, prefill_side ? Ev::WakePrefill : Ev::WakeDecode, i);
            in.wake_pending = true;
            return false;
        }
        return true;
    }

    void prefill_done(std::uint32_t i) {
        Instance& in = colocated() ? decode_[i] : prefill_[i];
        in.busy = false;
        for (std::uint32_t k = 0; k < in.prefilling.size(); ++k) {
            const Chunk c = in.prefilling[k];
            left_[c.request] -= c.tokens;
            if (left_[c.request] > 0) continue;
            RequestTimes& t = out_.requests[c.request];
            t.first_token = now_;
            generated_[c.request] = 1;
            ++out_.output_tokens;
            ++out_.steps[in.step].tokens;
            if (req_[c.request].output_tokens <= 1) {
                finish(c.request, colocated() ? &in : nullptr);
                continue;
            }
            if (colocated()) {
                t.decode_instance = i;
                t.kv_ready = now_;
                in.admit.push_back(c.request);
            } else {
                send_kv(c.request, in, k);
            }
        }
        in.prefilling.clear();
        next_step(i);
    }

    // The decode instance for a finished prefill from pod `pod`: of those up, one with room
    // before one without, one in the same pod before one in another (the vendor's pods keep
    // PD pairs in a pod), then the fewest requests, then the lowest index. kNone32: none up.
    std::uint32_t choose_decode(std::uint32_t pod) const {
        std::uint32_t best = kNone32;
        auto key = [&](std::uint32_t i) {
            const Instance& in = decode_[i];
            return std::tuple{in.assigned >= capacity(in), in.pod != pod, in.assigned};
        };
        for (std::uint32_t i = 0; i < decode_.size(); ++i)
            if (!decode_[i].down && (best == kNone32 || key(i) < key(best))) best = i;
        return best;
    }

    // The KV cache of request r goes from the prefill GPU that held its attention (its chunk's
    // place in the step, dealt over the instance's ranks) to the decode instance chosen, to
    // its next attention rank: over the fabric, or the storage network (kv_transfer.via, and
    // always between pods, which the fabric does not connect).
    void send_kv(std::uint32_t r, const Instance& from, std::uint32_t place) {
        const std::uint32_t best = choose_decode(from.pod);
        if (best == kNone32) return fail(r, decode_.front().stopped_by);  // none is up
        Instance& to = decode_[best];
        ++to.assigned;
        out_.requests[r].decode_instance = best;
        kv_generation_[r] = to.generation;
        const std::uint32_t src_gpu = from.first_gpu + place % from.ep_size;
        const std::uint32_t dst_gpu = to.first_gpu + to.next_rank;
        to.next_rank = to.next_rank + 1 == to.ep_size ? 0 : to.next_rank + 1;
        const std::uint64_t bytes = std::uint64_t{req_[r].prompt_tokens} * d_.kv_bytes_per_token;
        const bool cross_pod = to.pod != from.pod;
        out_.requests[r].kv_cross_pod = cross_pod;
        if (cross_pod) ++out_.kv_cross_pod;
        Time start;
        if (d_.kv_via == KvVia::Storage || cross_pod) {
            const std::uint32_t src = src_gpu / d_.gpus_per_node, dst = dst_gpu / d_.gpus_per_node;
            const Time took =
                SerialisationClock(d_.storage_rate).time_for(bytes) + d_.storage_latency;
            start = std::max({now_, storage_tx_free_[src], storage_rx_free_[dst]});
            storage_tx_free_[src] = storage_rx_free_[dst] = start + took;
            return schedule(start + took, Ev::KvDone, r);
        }
        const Time took = steps_.kv_transfer(bytes);
        start = std::max({now_, fabric_tx_free_[src_gpu], fabric_rx_free_[dst_gpu]});
        fabric_tx_free_[src_gpu] = fabric_rx_free_[dst_gpu] = start + took;
        // Beside the expert traffic on both GPUs' NICs.
        sending_[src_gpu].push_back(Transfer{start, start + took, bytes});
        receiving_[dst_gpu].push_back(Transfer{start, start + took, bytes});
        schedule(start + took, Ev::KvDone, r);
    }

    void kv_done(std::uint32_t r) {
        RequestTimes& t = out_.requests[r];
        Instance& in = decode_[t.decode_instance];
        // Its instance stopped while the cache was on its way: the request failed with it.
        if (in.generation != kv_generation_[r]) return fail(r, in.stopped_by);
        t.kv_ready = now_;
        in.admit.push_back(r);
        if (!in.busy) start_decode(t.decode_instance);
    }

    void start_decode(std::uint32_t i) {
        Instance& in = decode_[i];
        if (in.busy || !may_step(in, i, false)) return;
        while (!in.admit.empty() && in.running.size() < capacity(in)) {
            const std::uint32_t r = in.admit.front();
            in.admit.pop_front();
            out_.requests[r].decode_start = now_;
            in.running.push_back(r);
        }
        if (in.running.empty()) return;
        std::uint64_t context = 0;
        for (const std::uint32_t r : in.running) context += req_[r].prompt_tokens + generated_[r];
        const auto n = static_cast<std::uint32_t>(in.running.size());
        const std::uint32_t slots = in.ep_size * d_.micro_batches;
        const DecodeShape shape{
            (n + slots - 1) / slots, static_cast<std::uint32_t>((context + n / 2) / n),
            colocated() ? 0 : kv_in_flight(in, receiving_), step_faults(in, i, false), i};
        const StepTime took = steps_.decode(shape);
        begin_step(in, i, false, n, shape.requests_per_gpu, shape.kv_bytes, shape.faults, took);
    }

    void decode_done(std::uint32_t i) {
        Instance& in = decode_[i];
        in.busy = false;
        std::size_t kept = 0;
        for (const std::uint32_t r : in.running) {
            std::uint32_t tokens = 1;
            for (std::uint32_t k = 0; k < d_.mtp_draft_tokens; ++k) {
                if (rng_.uniform() >= d_.mtp_acceptance) break;
                ++tokens;
            }
            const std::uint32_t want = req_[r].output_tokens;
            tokens = std::min(tokens, want - generated_[r]);
            generated_[r] += tokens;
            out_.output_tokens += tokens;
            out_.steps[in.step].tokens += tokens;
            if (generated_[r] >= want) {
                finish(r, &in);
                continue;
            }
            in.running[kept++] = r;
        }
        in.running.resize(kept);
        next_step_after_decode(i);
    }

    void next_step_after_decode(std::uint32_t i) {
        if (colocated()) return next_step(i);
        start_decode(i);
    }

    void finish(std::uint32_t r, Instance* decoder) {
        out_.requests[r].finish = now_;
        last_done_ = now_;
        --in_system_;
        if (decoder) --decoder->assigned;
    }

    void fail(std::uint32_t r, std::uint32_t fault) {
        RequestTimes& t = out_.requests[r];
        if (t.failed != Time::never() || t.finish != Time::never()) return;
        t.failed = now_;
        last_done_ = now_;
        --in_system_;
        if (fault < faults_.size()) ++out_.faults[fault].requests_failed;
    }

    // The instance stops: every request it holds fails (those whose KV caches are on their way
    // to it fail as the caches arrive: its generation changed), its step in flight is cut.
    void stop(Instance& in, std::uint32_t i, bool prefill_side, std::uint32_t fault,
              bool step_failed) {
        if (fault < faults_.size()) ++out_.faults[fault].instances_stopped;
        if (in.down) {  // already down: this fault holds it now
            in.stopped_by = fault;
            in.by_step = false;
            return;
        }
        if (in.busy) {
            StepRecord& st = out_.steps[in.step];
            st.duration = now_ - st.start;
            st.failed = true;
        }
        for (const Chunk& c : in.prefilling) fail(c.request, fault);
        for (const Chunk& c : in.waiting) fail(c.request, fault);
        for (const std::uint32_t r : in.running) fail(r, fault);
        for (const std::uint32_t r : in.admit) fail(r, fault);
        in.prefilling.clear();
        in.waiting.clear();
        in.waiting_tokens = 0;
        in.running.clear();
        in.admit.clear();
        in.assigned = 0;
        in.busy = false;
        in.down = true;
        in.stopped_by = fault;
        in.by_step = step_failed;
        if (step_failed) retry_.emplace_back(prefill_side, i);
        ++in.generation;
        ++in.step_generation;
    }

    // A stops fault present now that names the instance (kNone32: none).
    std::uint32_t stop_holding(std::uint32_t i, bool prefill_side) const {
        for (std::uint32_t k = 0; k < faults_.size(); ++k) {
            const ServingFault& f = faults_[k];
            const std::vector<std::uint32_t>& named =
                prefill_side ? f.prefill_instances : f.decode_instances;
            if (f.effect == ServingFaultEffect::Stops && f.present_at(now_) &&
                std::find(named.begin(), named.end(), i) != named.end())
                return k;
        }
        return kNone32;
    }

    // Up again, unless a stops fault still holds it (then blamed on that one).
    void restart_if_free(Instance& in, std::uint32_t i, bool prefill_side) {
        if (const std::uint32_t k = stop_holding(i, prefill_side); k != kNone32) {
            in.stopped_by = k;
            in.by_step = false;
            return;
        }
        restart(in, i, prefill_side);
    }

    void restart(Instance& in, std::uint32_t i, bool prefill_side) {
        in.down = false;
        if (prefill_side || colocated())
            next_step(i);
        else
            start_decode(i);
    }

    // The instances a fault hits: prefill ones, then decode ones (colocated: decode alone).
    template <typename F>
    void for_hit(const ServingFault& f, F&& act) {
        if (!colocated())
            for (const std::uint32_t i : f.prefill_instances)
                if (i < prefill_.size()) act(prefill_[i], i, true);
        for (const std::uint32_t i : f.decode_instances)
            if (i < decode_.size()) act(decode_[i], i, false);
    }

    void fault_start(std::uint32_t k) {
        const ServingFault& f = faults_[k];
        if (f.effect == ServingFaultEffect::Stops)
            for_hit(f, [&](Instance& in, std::uint32_t i, bool prefill_side) {
                stop(in, i, prefill_side, k, false);
            });
        if (f.effect == ServingFaultEffect::Freezes)
            for_hit(f, [&](Instance& in, std::uint32_t i, bool) { freeze(in, i, f.until); });
        retry_failed_steps();
    }

    void fault_end(std::uint32_t k) {
        const ServingFault& f = faults_[k];
        if (f.effect == ServingFaultEffect::Stops)
            for_hit(f, [&](Instance& in, std::uint32_t i, bool prefill_side) {
                if (in.down && !in.by_step && in.stopped_by == k)
                    restart_if_free(in, i, prefill_side);
            });
        retry_failed_steps();
    }

    // A hang holds the instance: its step in flight ends that much later (every rank waits in
    // the all-to-all), and no step begins before it is over.
    void freeze(Instance& in, std::uint32_t i, Time until) {
        if (in.down) return;
        in.frozen_until = std::max(in.frozen_until, until);
        if (!in.busy) return;
        const Time held = until - now_;
        in.step_end = in.step_end + held;
        out_.steps[in.step].duration = out_.steps[in.step].duration + held;
        ++in.step_generation;  // the step's old end is void
        schedule(in.step_end, out_.steps[in.step].prefill ? Ev::PrefillDone : Ev::DecodeDone, i,
                 in.step_generation);
    }

    // Instances a step's faults stopped try again whenever a fault starts or ends.
    void retry_failed_steps() {
        std::vector<std::pair<bool, std::uint32_t>> stopped;
        stopped.swap(retry_);
        for (const auto& [prefill_side, i] : stopped) {
            Instance& in = prefill_side ? prefill_[i] : decode_[i];
            if (in.down && in.by_step) restart_if_free(in, i, prefill_side);
        }
    }

    // The KV bytes the instance's busiest NIC has still to send (or receive) over the fabric:
    // of each transfer through it, all if it has not begun, else the part its time has left.
    // Transfers that have ended are dropped.
    std::uint64_t kv_in_flight(const Instance& in, std::vector<std::deque<Transfer>>& ports) {
        if (d_.kv_via == KvVia::Storage) return 0;  // a network of its own
        std::uint64_t most = 0;
        for (std::uint32_t g = in.first_gpu; g < in.first_gpu + in.ep_size; ++g) {
            std::deque<Transfer>& q = ports[g];
            while (!q.empty() && q.front().end <= now_) q.pop_front();
            double left = 0;
            for (const Transfer& t : q)
                left += t.start >= now_ ? static_cast<double>(t.bytes)
                                        : static_cast<double>(t.bytes) *
                                              static_cast<double>((t.end - now_).ps()) /
                                              static_cast<double>((t.end - t.start).ps());
            most = std::max(most, static_cast<std::uint64_t>(left + 0.5));
        }
        return most;
    }

    const ServingDeployment& d_;
    std::span<const ServingRequest> req_;
    StepTimes& steps_;
    RandomStream rng_;
    std::span<const ServingFault> faults_;
    std::uint64_t from_start_ = 0;                       // faults present from time 0
    std::vector<std::pair<bool, std::uint32_t>> retry_;  // stopped by a failed step: side, index
    std::vector<std::uint32_t> kv_generation_;  // per request: its decode instance's, as sent
    std::vector<Instance> prefill_, decode_;
    std::vector<std::uint32_t> left_;       // prompt tokens not yet prefilled
    std::vector<std::uint32_t> generated_;  // output tokens so far
    // KV transfers: when each GPU's NIC (fabric) and each node's storage NIC is free again,
    // and the transfers over the fabric through each GPU's NIC.
    std::vector<Time> fabric_tx_free_, fabric_rx_free_, storage_tx_free_, storage_rx_free_;
    std::vector<std::deque<Transfer>> sending_, receiving_;
    std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
    std::uint64_t sequence_ = 0;
    std::uint64_t in_system_ = 0;
    Time now_;
    Time last_done_;  // the last request finished or failed
    ServingOutcome out_;
};

}  // namespace

ServingOutcome simulate_serving(const ServingDeployment& deployment,
                                std::span<const ServingRequest> requests, StepTimes& steps,
                                std::uint64_t seed, std::span<const ServingFault> faults) {
    return Run(deployment, requests, steps, seed, faults).run();
}

}  // namespace clustersim
