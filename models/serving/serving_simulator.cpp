#include "models/serving/serving_simulator.hpp"

#include <algorithm>
#include <deque>
#include <queue>
#include <stdexcept>
#include <utility>

#include "sim/random.hpp"

namespace clustersim {
namespace {

enum class Ev : std::uint8_t { Arrival, PrefillDone, KvDone, DecodeDone };

struct Event {
    Time at;
    std::uint64_t sequence = 0;  // equal times: in the order scheduled
    Ev kind = Ev::Arrival;
    std::uint32_t target = 0;
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
    Instance(std::uint32_t ep, std::uint32_t first) : ep_size(ep), first_gpu(first) {}
    std::uint32_t ep_size = 1;
    std::uint32_t first_gpu = 0;
    std::deque<Chunk> waiting;  // prompts (what is left of them), first come first served
    std::uint64_t waiting_tokens = 0;
    std::vector<Chunk> prefilling;  // this step's chunks
    std::vector<std::uint32_t> running;
    std::deque<std::uint32_t> admit;  // KV cache here, no place in the batch yet
    std::uint32_t assigned = 0;       // decode: requests sent here and not finished
    std::uint32_t next_rank = 0;      // decode: the attention rank the next request takes
    std::size_t step = 0;             // the record of its step in progress
    bool busy = false;
};

class Run {
  public:
    Run(const ServingDeployment& d, std::span<const ServingRequest> requests, StepTimes& steps,
        std::uint64_t seed)
        : d_(d), req_(requests), steps_(steps), rng_(seed, "serving-mtp") {
        out_.requests.resize(requests.size());
        left_.resize(requests.size());
        generated_.assign(requests.size(), 0);
        const bool dis = d.kind == DeploymentKind::Disaggregated;
        std::uint32_t gpu = 0;
        if (dis)
            for (std::uint32_t i = 0; i < d.prefill.instances; ++i, gpu += d.prefill.ep_size)
                prefill_.emplace_back(d.prefill.ep_size, gpu);
        for (std::uint32_t i = 0; i < d.decode.instances; ++i, gpu += d.decode.ep_size)
            decode_.emplace_back(d.decode.ep_size, gpu);
        const std::uint32_t ports =
            d.kv_via == KvVia::Storage ? (gpu + d.gpus_per_node - 1) / d.gpus_per_node : gpu;
        tx_free_.assign(ports, Time::zero());
        rx_free_.assign(ports, Time::zero());
        sending_.resize(ports);
        receiving_.resize(ports);
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
                    prefill_done(e.target);
                    break;
                case Ev::KvDone:
                    kv_done(e.target);
                    break;
                case Ev::DecodeDone:
                    decode_done(e.target);
                    break;
            }
        }
        out_.end = now_;
        return std::move(out_);
    }

  private:
    bool colocated() const { return d_.kind == DeploymentKind::Colocated; }
    // Prefill instances: their own in a disaggregated deployment, the decode ones colocated.
    std::vector<Instance>& prefillers() { return colocated() ? decode_ : prefill_; }
    std::uint32_t capacity(const Instance& in) const {
        return d_.decode_requests_per_gpu * in.ep_size;
    }

    void schedule(Time at, Ev kind, std::uint32_t target) {
        events_.push(Event{at, sequence_++, kind, target});
    }

    void arrive(std::uint32_t r) {
        ++in_system_;
        std::vector<Instance>& pool = prefillers();
        std::uint32_t best = 0;
        for (std::uint32_t i = 1; i < pool.size(); ++i)
            if (load(pool[i]) < load(pool[best])) best = i;
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
            colocated() ? 0 : kv_in_flight(in, sending_)};
        const StepTime took = steps_.prefill(shape);
        in.busy = true;
        in.step = out_.steps.size();
        out_.steps.push_back(StepRecord{now_, took.total, i, true,
                                        static_cast<std::uint32_t>(total), shape.tokens_per_gpu, 0,
                                        shape.kv_bytes, took.kv_slowdown});
        schedule(now_ + took.total, Ev::PrefillDone, i);
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

    // The KV cache of request r goes from the prefill GPU that held its attention (its chunk's
    // place in the step, dealt over the instance's ranks) to the decode instance with the
    // fewest requests, to its next attention rank.
    void send_kv(std::uint32_t r, const Instance& from, std::uint32_t place) {
        std::uint32_t best = 0;
        for (std::uint32_t i = 1; i < decode_.size(); ++i)
            if (decode_[i].assigned < decode_[best].assigned) best = i;
        Instance& to = decode_[best];
        ++to.assigned;
        out_.requests[r].decode_instance = best;
        const std::uint32_t src_gpu = from.first_gpu + place % from.ep_size;
        const std::uint32_t dst_gpu = to.first_gpu + to.next_rank;
        to.next_rank = to.next_rank + 1 == to.ep_size ? 0 : to.next_rank + 1;
        const std::uint64_t bytes = std::uint64_t{req_[r].prompt_tokens} * d_.kv_bytes_per_token;
        const bool storage = d_.kv_via == KvVia::Storage;
        const std::uint32_t src = storage ? src_gpu / d_.gpus_per_node : src_gpu;
        const std::uint32_t dst = storage ? dst_gpu / d_.gpus_per_node : dst_gpu;
        const Time took =
            storage ? SerialisationClock(d_.storage_rate).time_for(bytes) + d_.storage_latency
                    : steps_.kv_transfer(bytes);
        const Time start = std::max({now_, tx_free_[src], rx_free_[dst]});
        tx_free_[src] = rx_free_[dst] = start + took;
        if (!storage) {  // beside the expert traffic on both GPUs' NICs
            sending_[src].push_back(Transfer{start, start + took, bytes});
            receiving_[dst].push_back(Transfer{start, start + took, bytes});
        }
        schedule(start + took, Ev::KvDone, r);
    }

    void kv_done(std::uint32_t r) {
        RequestTimes& t = out_.requests[r];
        t.kv_ready = now_;
        Instance& in = decode_[t.decode_instance];
        in.admit.push_back(r);
        if (!in.busy) start_decode(t.decode_instance);
    }

    void start_decode(std::uint32_t i) {
        Instance& in = decode_[i];
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
        const DecodeShape shape{(n + slots - 1) / slots,
                                static_cast<std::uint32_t>((context + n / 2) / n),
                                colocated() ? 0 : kv_in_flight(in, receiving_)};
        const StepTime took = steps_.decode(shape);
        in.busy = true;
        in.step = out_.steps.size();
        out_.steps.push_back(StepRecord{now_, took.total, i, false, n, shape.requests_per_gpu, 0,
                                        shape.kv_bytes, took.kv_slowdown});
        schedule(now_ + took.total, Ev::DecodeDone, i);
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
        --in_system_;
        if (decoder) --decoder->assigned;
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
    std::vector<Instance> prefill_, decode_;
    std::vector<std::uint32_t> left_;                        // prompt tokens not yet prefilled
    std::vector<std::uint32_t> generated_;                   // output tokens so far
    std::vector<Time> tx_free_, rx_free_;                    // KV transfers: each NIC free from
    std::vector<std::deque<Transfer>> sending_, receiving_;  // over the fabric, by GPU
    std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
    std::uint64_t sequence_ = 0;
    std::uint64_t in_system_ = 0;
    Time now_;
    ServingOutcome out_;
};

}  // namespace

ServingOutcome simulate_serving(const ServingDeployment& deployment,
                                std::span<const ServingRequest> requests, StepTimes& steps,
                                std::uint64_t seed) {
    return Run(deployment, requests, steps, seed).run();
}

}  // namespace clustersim
