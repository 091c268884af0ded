#include <catch2/catch.hpp>

#include <set>

#include "models/serving/serving_simulator.hpp"
#include "support.hpp"
#include "traffic/serving_requests.hpp"

using namespace clustersim;

namespace {

// Step times that grow with the shape (and, when asked, the instance), so that batching shows:
// every call is kept.
class LinearSteps final : public StepTimes {
  public:
    Time prefill_base = Time::from_us(20'000), prefill_per_token = Time::from_ns(2'000);
    Time decode_base = Time::from_us(20'000), decode_per_request = Time::from_us(100);
    Time per_instance = Time::zero();
    Time kv = Time::from_us(300);
    std::vector<PrefillShape> prefills;
    std::vector<DecodeShape> decodes;
    Time prefill_time(std::uint32_t tokens_per_gpu, std::uint32_t instance) const {
        return prefill_base + Time::from_ps(prefill_per_token.ps() * tokens_per_gpu) +
               Time::from_ps(per_instance.ps() * instance);
    }
    Time decode_time(std::uint32_t requests_per_gpu, std::uint32_t instance) const {
        return decode_base + Time::from_ps(decode_per_request.ps() * requests_per_gpu) +
               Time::from_ps(per_instance.ps() * instance);
    }
    StepTime prefill(PrefillShape s) override {
        prefills.push_back(s);
        return {prefill_time(s.tokens_per_gpu, s.instance), {}};
    }
    StepTime decode(DecodeShape s) override {
        decodes.push_back(s);
        return {decode_time(s.requests_per_gpu, s.instance), {}};
    }
    Time kv_transfer(std::uint64_t) override { return kv; }
};

ServingDeployment small(DeploymentKind kind = DeploymentKind::Disaggregated) {
    ServingDeployment d;
    d.kind = kind;
    d.prefill = {1, 4};
    d.decode = {1, 4};
    d.gpus_per_node = 4;
    d.prefill_tokens_per_gpu = 1000;
    d.decode_requests_per_gpu = 8;
    d.micro_batches = 2;
    d.kv_bytes_per_token = 70272;
    d.kv_via = KvVia::Fabric;
    return d;
}

// Poisson arrivals with prompts of 100 to 3,000 tokens and outputs of 1 to `max_output`.
std::vector<ServingRequest> uniform_requests(double rate_per_s, double duration_s,
                                             std::uint32_t max_output, std::uint64_t seed) {
    KvLengthDistribution prompt, output;
    prompt.kind = output.kind = KvLengthKind::Uniform;
    prompt.min_tokens = 100, prompt.max_tokens = 3000;
    output.min_tokens = 1, output.max_tokens = max_output;
    return poisson_requests(rate_per_s, duration_s, prompt, output, seed);
}

ServingRequest at_ms(double ms, std::uint32_t prompt, std::uint32_t output) {
    return ServingRequest{Time::from_us(ms * 1e3), prompt, output};
}

}  // namespace

TEST_CASE(
    "far below capacity, the first token is the prefill step, the second follows the KV "
    "transfer and a decode step, and each later one a decode step",
    "[serving]") {
    LinearSteps steps;
    const ServingDeployment d = small();
    // Requests 10 s apart: each finds the instances idle.
    const std::vector<ServingRequest> reqs = {at_ms(0, 1000, 11), at_ms(10'000, 1000, 11)};
    const ServingOutcome out = simulate_serving(d, reqs, steps, 1);
    const Time prefill = steps.prefill_base + Time::from_ps(steps.prefill_per_token.ps() * 250);
    const Time decode = steps.decode_base + steps.decode_per_request;  // 1 request per GPU
    for (std::size_t i = 0; i < reqs.size(); ++i) {
        const RequestTimes& t = out.requests[i];
        CHECK(t.prefill_start == reqs[i].arrival);
        CHECK(t.first_token - reqs[i].arrival == prefill);  // TTFT, no queue
        CHECK(t.kv_ready - t.first_token == steps.kv);
        CHECK(t.decode_start == t.kv_ready);
        // Ten more tokens, one per decode step: TPOT is the KV transfer spread over them plus
        // the step.
        CHECK(t.finish - t.decode_start == Time::from_ps(decode.ps() * 10));
        const double tpot_ms = (t.finish - t.first_token).ms() / 10;
        CHECK(tpot_ms == Approx((decode.ms() * 10 + steps.kv.ms()) / 10));
        CHECK(tpot_ms == Approx(decode.ms()).epsilon(0.02));
    }
    CHECK(steps.prefills.front().tokens_per_gpu == 250);
    CHECK(steps.prefills.front().prompt_tokens == 1000);
    CHECK(steps.decodes.front().requests_per_gpu == 1);
    CHECK(steps.decodes.front().context_tokens == 1001);  // the prompt and the first token
    CHECK(out.output_tokens == 22);
}

TEST_CASE("requests are conserved and Little's law holds over a drained run", "[serving]") {
    LinearSteps steps;
    ServingDeployment d = small();
    d.prefill.instances = 2;
    d.decode.instances = 2;
    const std::vector<ServingRequest> reqs = uniform_requests(40, 20, 200, 7);
    REQUIRE(reqs.size() > 600);
    const ServingOutcome out = simulate_serving(d, reqs, steps, 7);
    double in_system_s = 0;
    for (std::size_t i = 0; i < reqs.size(); ++i) {
        REQUIRE(out.requests[i].finish != Time::never());
        in_system_s += (out.requests[i].finish - reqs[i].arrival).ms() / 1e3;
    }
    const double end_s = out.end.ms() / 1e3;
    const double lambda = static_cast<double>(reqs.size()) / end_s;
    const double w = in_system_s / static_cast<double>(reqs.size());
    CHECK(out.request_seconds / end_s == Approx(lambda * w).epsilon(1e-9));
    // Tokens conserved too: every request got what it asked for, each from one step.
    std::uint64_t asked = 0, yielded = 0;
    for (const ServingRequest& r : reqs) asked += r.output_tokens;
    for (const StepRecord& st : out.steps) yielded += st.tokens;
    CHECK(out.output_tokens == asked);
    CHECK(yielded == asked);
}

TEST_CASE("each step takes the time of the instance that runs it", "[serving]") {
    LinearSteps steps;
    steps.per_instance = Time::from_us(1'000);  // instance i: i ms slower
    ServingDeployment d = small();
    d.prefill.instances = 3;
    d.decode.instances = 3;
    const ServingOutcome out = simulate_serving(d, uniform_requests(60, 5, 50, 3), steps, 3);
    std::set<std::pair<bool, std::uint32_t>> stepped;
    for (const StepRecord& st : out.steps) {
        CHECK(st.duration == (st.prefill ? steps.prefill_time(st.shape, st.instance)
                                         : steps.decode_time(st.shape, st.instance)));
        stepped.insert({st.prefill, st.instance});
    }
    CHECK(stepped.size() == 6);  // every instance of both kinds stepped
}

TEST_CASE(
    "a decode instance never runs more requests than it has room for, the rest waiting "
    "for a step boundary",
    "[serving]") {
    LinearSteps steps;
    ServingDeployment d = small();
    d.decode_requests_per_gpu = 1;  // 4 requests at once
    std::vector<ServingRequest> reqs;
    for (int i = 0; i < 10; ++i) reqs.push_back(at_ms(0, 100, 50));
    const ServingOutcome out = simulate_serving(d, reqs, steps, 1);
    std::uint32_t waited = 0;
    for (const StepRecord& st : out.steps)
        if (!st.prefill) CHECK(st.batch <= 4);
    for (const RequestTimes& t : out.requests) {
        CHECK(t.decode_start >= t.kv_ready);
        waited += t.decode_start > t.kv_ready;
        // Admitted only when a step ends (or the instance is idle): at a step's start.
        bool at_step = false;
        for (const StepRecord& st : out.steps)
            at_step = at_step || (!st.prefill && st.start == t.decode_start);
        CHECK(at_step);
    }
    CHECK(waited >= 6);
}

TEST_CASE("a prompt longer than the token budget is prefilled in chunks, first come first served",
          "[serving]") {
    LinearSteps steps;
    ServingDeployment d = small();
    d.prefill_tokens_per_gpu = 100;  // 400 tokens per step over 4 GPUs
    const std::vector<ServingRequest> reqs = {at_ms(0, 1000, 2), at_ms(0.001, 100, 2)};
    const ServingOutcome out = simulate_serving(d, reqs, steps, 1);
    REQUIRE(steps.prefills.size() >= 3);
    CHECK(steps.prefills[0].tokens_per_gpu == 100);  // 400 of the first prompt
    CHECK(steps.prefills[1].tokens_per_gpu == 100);  // 400 more
    // The last 200 of it and all 100 of the second share the third step.
    CHECK(steps.prefills[2].tokens_per_gpu == 75);
    CHECK(steps.prefills[2].prompt_tokens == (200 * 1000 + 100 * 100 + 150) / 300);
    const Time full = steps.prefill_base + Time::from_ps(steps.prefill_per_token.ps() * 100);
    const Time last = steps.prefill_base + Time::from_ps(steps.prefill_per_token.ps() * 75);
    CHECK(out.requests[0].first_token == full + full + last);
    CHECK(out.requests[1].first_token == out.requests[0].first_token);
    CHECK(out.requests[1].prefill_start == full + full);  // it queued behind
}

TEST_CASE("KV transfers into one GPU queue behind each other", "[serving]") {
    LinearSteps steps;
    ServingDeployment d = small();
    d.decode = {1, 1};
    // The first starts a prefill step alone; the next three arrive during it and are
    // prefilled together in the next, so their caches leave at once for the same GPU.
    const std::vector<ServingRequest> reqs = {at_ms(0, 100, 5), at_ms(1, 100, 5), at_ms(1, 100, 5),
                                              at_ms(1, 100, 5)};
    const ServingOutcome out = simulate_serving(d, reqs, steps, 1);
    const Time done = out.requests[1].first_token;
    REQUIRE(out.requests[3].first_token == done);
    CHECK(out.requests[1].kv_ready == done + steps.kv);
    CHECK(out.requests[2].kv_ready == done + steps.kv + steps.kv);
    CHECK(out.requests[3].kv_ready == done + steps.kv + steps.kv + steps.kv);
}

TEST_CASE(
    "a step is told the KV bytes still in flight through its instance's busiest NIC over the "
    "fabric, and none over the storage network",
    "[serving]") {
    LinearSteps steps;
    steps.kv = Time::from_us(30'000);
    ServingDeployment d = small();
    // A is prefilled from 0 to 20.5 ms, its cache then leaves prefill GPU 0 for decode GPU 4
    // (20.5 to 50.5 ms). B's prefill (25 to 45.5 ms) meets A's cache leaving; B's cache waits
    // for GPU 0's NIC and goes to decode GPU 5 from 50.5 to 80.5 ms, as A's first decode step
    // begins (20.1 ms long) and the one after it.
    const std::vector<ServingRequest> reqs = {at_ms(0, 1000, 4), at_ms(25, 1000, 4)};
    const double cache = 1000.0 * 70272;
    const ServingOutcome out = simulate_serving(d, reqs, steps, 1);
    REQUIRE(out.requests[1].kv_ready == Time::from_us(80'500));
    REQUIRE(steps.prefills.size() == 2);
    CHECK(steps.prefills[0].kv_bytes == 0);
    CHECK(static_cast<double>(steps.prefills[1].kv_bytes) == Approx(cache * 25.5 / 30));
    REQUIRE(steps.decodes.size() >= 2);
    CHECK(static_cast<double>(steps.decodes[0].kv_bytes) == Approx(cache));  // all still to go
    CHECK(static_cast<double>(steps.decodes[1].kv_bytes) == Approx(cache * 9.9 / 30));
    CHECK(out.steps[1].kv_bytes == steps.prefills[1].kv_bytes);
    // Caches leaving two GPUs of one instance: the step is told the busiest NIC's bytes, not
    // their sum. X (100 tokens) is prefilled alone (0 to 20.05 ms) and leaves GPU 0 until
    // 50.05 ms; A (1000) and B (2000) share the next step (to 41.55 ms): A waits for GPU 0
    // (all of it to go), B leaves GPU 1 until 71.55 ms. C's prefill starts at 45 ms: GPU 0 has
    // X's last 5.05 ms and all of A (71.5 MB), GPU 1 B's last 26.55 ms (124.4 MB).
    LinearSteps two;
    two.kv = Time::from_us(30'000);
    (void)simulate_serving(d,
                           std::vector<ServingRequest>{at_ms(0, 100, 4), at_ms(1, 1000, 4),
                                                       at_ms(1, 2000, 4), at_ms(45, 100, 4)},
                           two, 1);
    REQUIRE(two.prefills.size() == 3);
    CHECK(static_cast<double>(two.prefills[2].kv_bytes) == Approx(2000.0 * 70272 * 26.55 / 30));
    // Over the storage network the expert traffic's NICs carry none of it.
    LinearSteps stored;
    d.kv_via = KvVia::Storage;
    d.storage_rate = DataRate::from_gbps(8);
    (void)simulate_serving(d, reqs, stored, 1);
    for (const PrefillShape& p : stored.prefills) CHECK(p.kv_bytes == 0);
    for (const DecodeShape& q : stored.decodes) CHECK(q.kv_bytes == 0);
}

TEST_CASE("over the storage network a transfer takes its bytes at the storage NIC's rate",
          "[serving]") {
    LinearSteps steps;
    ServingDeployment d = small();
    d.kv_via = KvVia::Storage;
    d.storage_rate = DataRate::from_gbps(400);
    d.storage_latency = Time::from_us(20);
    const std::vector<ServingRequest> reqs = {at_ms(0, 1000, 3)};
    const ServingOutcome out = simulate_serving(d, reqs, steps, 1);
    const RequestTimes& t = out.requests[0];
    // 1000 tokens x 70,272 B at 50 GB/s = 1,405.44 us, plus 20 us.
    CHECK((t.kv_ready - t.first_token).us() == Approx(1405.44 + 20).epsilon(1e-6));
}

TEST_CASE(
    "in pods, a KV cache goes to a decode instance of its own pod over the fabric, and to "
    "another pod's over the storage network only when none in its own can take it",
    "[serving]") {
    ServingDeployment d = small();
    d.pods = 2;
    d.prefill = {2, 4};
    d.decode = {2, 4};
    d.storage_rate = DataRate::from_gbps(400);
    d.storage_latency = Time::from_us(20);
    // Pod q: prefill GPUs 8q to 8q + 3, decode GPUs 8q + 4 to 8q + 7.
    CHECK(d.pod_gpus() == 8);
    CHECK(d.prefill_first_gpu(1) == 8);
    CHECK(d.decode_first_gpu(0) == 4);
    CHECK(d.decode_first_gpu(1) == 12);
    CHECK(d.instance_of_gpu(9) == std::pair{true, 1u});
    CHECK(d.instance_of_gpu(13) == std::pair{false, 1u});
    // A (4,000 tokens) holds prefill 0 until 22 ms and B waits behind it; C finds B's tokens
    // waiting there and takes prefill 1 (pod 1), done at 20.55 ms: before A, with both decode
    // instances empty, C's cache goes to pod 1's.
    const std::vector<ServingRequest> reqs = {at_ms(0, 4000, 3), at_ms(0.5, 100, 3),
                                              at_ms(0.5, 100, 3)};
    LinearSteps steps;
    const ServingOutcome out = simulate_serving(d, reqs, steps, 1);
    REQUIRE(out.requests[2].first_token < out.requests[0].first_token);
    CHECK(out.requests[0].decode_instance == 0);
    CHECK(out.requests[1].decode_instance == 0);
    CHECK(out.requests[2].decode_instance == 1);
    for (const RequestTimes& t : out.requests) CHECK_FALSE(t.kv_cross_pod);
    CHECK(out.kv_cross_pod == 0);
    CHECK(out.requests[2].kv_ready - out.requests[2].first_token == steps.kv);
    // With pod 1's decode instance stopped, C's cache crosses to pod 0's over the storage
    // network: 100 tokens x 70,272 B at 50 GB/s is 140.544 us, plus 20 us.
    ServingFault down;
    down.effect = ServingFaultEffect::Stops;
    down.decode_instances = {1};
    const std::vector<ServingFault> faults = {down};
    LinearSteps crossed;
    const ServingOutcome x = simulate_serving(d, reqs, crossed, 1, faults);
    CHECK(x.requests[2].decode_instance == 0);
    CHECK(x.requests[2].kv_cross_pod);
    CHECK_FALSE(x.requests[0].kv_cross_pod);
    CHECK(x.kv_cross_pod == 1);
    CHECK((x.requests[2].kv_ready - x.requests[2].first_token).us() ==
          Approx(140.544 + 20).epsilon(1e-6));
    CHECK(x.requests[2].finish != Time::never());
    // Room first: with one request per GPU (four per instance), pod 1's decode instance fills
    // and the next cache from pod 1 goes to pod 0's, which has room. A (4,000 tokens) and B
    // (3,000) hold prefill 0; C to G (100 each) go to prefill 1: C alone (to 20.55 ms), then
    // D to G together (to 40.75 ms). C, D, E and F fill decode 1; G crosses to decode 0,
    // which holds A alone.
    d.decode_requests_per_gpu = 1;
    std::vector<ServingRequest> skewed = {at_ms(0, 4000, 1000), at_ms(0.5, 3000, 1000)};
    for (int k = 0; k < 5; ++k) skewed.push_back(at_ms(0.5, 100, 1000));
    LinearSteps full;
    const ServingOutcome f = simulate_serving(d, skewed, full, 1);
    for (std::size_t r = 2; r < 6; ++r) {
        CHECK(f.requests[r].decode_instance == 1);
        CHECK_FALSE(f.requests[r].kv_cross_pod);
    }
    CHECK(f.requests[6].decode_instance == 0);
    CHECK(f.requests[6].kv_cross_pod);
    CHECK(f.requests[0].decode_instance == 0);
    CHECK(f.kv_cross_pod == 1);
}

TEST_CASE("colocated instances run a waiting prefill before the next decode step", "[serving]") {
    LinearSteps steps;
    const ServingDeployment d = small(DeploymentKind::Colocated);
    // The second request arrives while the first decodes.
    const std::vector<ServingRequest> reqs = {at_ms(0, 400, 20), at_ms(50, 400, 20)};
    const ServingOutcome out = simulate_serving(d, reqs, steps, 1);
    const RequestTimes& second = out.requests[1];
    // It waits only for the decode step in progress, then is prefilled.
    bool after_decode = false;
    for (const StepRecord& st : out.steps)
        if (!st.prefill && st.start < reqs[1].arrival && st.start + st.duration >= reqs[1].arrival)
            after_decode = second.prefill_start == st.start + st.duration;
    CHECK(after_decode);
    CHECK(out.requests[0].kv_ready == out.requests[0].first_token);  // nothing moves
}

TEST_CASE("MTP drafts add tokens per step as often as they are accepted", "[serving]") {
    LinearSteps steps;
    ServingDeployment d = small();
    d.mtp_draft_tokens = 1;
    d.mtp_acceptance = 1.0;
    const std::vector<ServingRequest> reqs = {at_ms(0, 100, 11)};
    ServingOutcome out = simulate_serving(d, reqs, steps, 1);
    std::uint32_t decodes = 0;
    for (const StepRecord& st : out.steps) decodes += !st.prefill;
    CHECK(decodes == 5);  // 10 tokens after the first, two a step
    d.mtp_acceptance = 0.0;
    out = simulate_serving(d, reqs, steps, 1);
    decodes = 0;
    for (const StepRecord& st : out.steps) decodes += !st.prefill;
    CHECK(decodes == 10);
}

TEST_CASE("a serving run repeats under its seed", "[serving]") {
    LinearSteps steps;
    ServingDeployment d = small();
    d.mtp_draft_tokens = 1;
    d.mtp_acceptance = 0.5;
    KvLengthDistribution prompt, output;
    prompt.kind = output.kind = KvLengthKind::Lognormal;
    prompt.mean_tokens = 500, output.mean_tokens = 100;
    prompt.max_tokens = output.max_tokens = 10000;
    const auto reqs = poisson_requests(20, 5, prompt, output, 3);
    const ServingOutcome a = simulate_serving(d, reqs, steps, 3);
    const ServingOutcome b = simulate_serving(d, reqs, steps, 3);
    const ServingOutcome c = simulate_serving(d, reqs, steps, 4);
    bool same = true, differ = false;
    for (std::size_t i = 0; i < reqs.size(); ++i) {
        same = same && a.requests[i].finish == b.requests[i].finish;
        differ = differ || a.requests[i].finish != c.requests[i].finish;
    }
    CHECK(same);
    CHECK(differ);
    CHECK(poisson_requests(20, 5, prompt, output, 3).size() == reqs.size());
}

TEST_CASE("Poisson arrivals come at the rate asked, their gaps exponential", "[serving]") {
    KvLengthDistribution len;
    const auto reqs = poisson_requests(100, 200, len, len, 11);
    // 20,000 expected; the count's standard deviation is sqrt(20,000) = 141.
    CHECK(std::abs(static_cast<double>(reqs.size()) - 20000.0) < 4 * 141.0);
    // An exponential's coefficient of variation is 1.
    double sum = 0, sq = 0;
    for (std::size_t i = 1; i < reqs.size(); ++i) {
        const double g = (reqs[i].arrival - reqs[i - 1].arrival).us();
        sum += g;
        sq += g * g;
    }
    const double n = static_cast<double>(reqs.size() - 1), mean = sum / n;
    CHECK(std::sqrt(sq / n - mean * mean) / mean == Approx(1.0).epsilon(0.03));
}
