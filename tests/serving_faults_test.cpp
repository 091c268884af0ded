#include <catch2/catch.hpp>

#include "models/serving/serving_simulator.hpp"
#include "traffic/serving_requests.hpp"

using namespace clustersim;

namespace {

// Fixed step times, every call kept; decode steps fail while any fault is present when asked.
class FixedSteps final : public StepTimes {
  public:
    Time prefill_time = Time::from_us(20'000), decode_time = Time::from_us(10'000);
    Time kv = Time::from_us(300);
    bool decode_fails_with_faults = false;
    bool decode_fails_in_transients = false;
    std::vector<PrefillShape> prefills;
    std::vector<DecodeShape> decodes;
    StepTime prefill(PrefillShape s) override {
        prefills.push_back(s);
        return {prefill_time, {}};
    }
    StepTime decode(DecodeShape s) override {
        decodes.push_back(s);
        if (decode_fails_with_faults && s.faults.present != 0) return {{}, {}, true};
        if (decode_fails_in_transients && s.faults.transient != 0) return {{}, {}, true};
        return {decode_time, {}};
    }
    Time kv_transfer(std::uint64_t) override { return kv; }
};

ServingDeployment two_by_two() {
    ServingDeployment d;
    d.prefill = {2, 4};
    d.decode = {2, 4};
    d.gpus_per_node = 4;
    d.prefill_tokens_per_gpu = 1000;
    d.decode_requests_per_gpu = 8;
    d.kv_bytes_per_token = 70272;
    return d;
}

std::vector<ServingRequest> load(double rate, double seconds, std::uint64_t seed) {
    KvLengthDistribution prompt, output;
    prompt.kind = output.kind = KvLengthKind::Uniform;
    prompt.min_tokens = 100, prompt.max_tokens = 3000;
    output.min_tokens = 2, output.max_tokens = 200;
    return poisson_requests(rate, seconds, prompt, output, seed);
}

Time s(double seconds) {
    return Time::from_us(seconds * 1e6);
}

ServingFault stops_decode_0(Time at, Time until) {
    ServingFault f;
    f.effect = ServingFaultEffect::Stops;
    f.at = at;
    f.until = until;
    f.decode_instances = {0};
    return f;
}

// Every request ends once, finished or failed, and Little's law holds with failed requests
// leaving the system as they fail.
void check_conserved(std::span<const ServingRequest> reqs, const ServingOutcome& out) {
    double in_system_s = 0;
    for (std::size_t i = 0; i < reqs.size(); ++i) {
        const RequestTimes& t = out.requests[i];
        REQUIRE((t.finish == Time::never()) != (t.failed == Time::never()));
        const Time left = t.finish != Time::never() ? t.finish : t.failed;
        in_system_s += (left - reqs[i].arrival).ms() / 1e3;
    }
    const double end_s = out.end.ms() / 1e3;
    const double lambda = static_cast<double>(reqs.size()) / end_s;
    CHECK(out.request_seconds / end_s ==
          Approx(lambda * in_system_s / static_cast<double>(reqs.size())).epsilon(1e-9));
}

}  // namespace

TEST_CASE(
    "a stopped instance fails the requests it holds and takes none until its fault is over, and "
    "requests stay conserved",
    "[serving][faults]") {
    FixedSteps steps;
    const ServingDeployment d = two_by_two();
    const auto reqs = load(40, 20, 5);
    const std::vector<ServingFault> faults = {stops_decode_0(s(5), s(8))};
    const ServingOutcome out = simulate_serving(d, reqs, steps, 5, faults);
    check_conserved(reqs, out);
    std::uint64_t failed = 0, at_stop = 0, later = 0;
    for (const RequestTimes& t : out.requests) {
        if (t.failed != Time::never()) {
            ++failed;
            CHECK(t.failed >= s(5));
            CHECK(t.decode_instance == 0);
            at_stop += t.failed == s(5);
            // Failed later: its KV cache was on its way as the instance stopped.
            if (t.failed > s(5)) CHECK(t.failed <= s(5) + steps.kv);
        }
        if (t.decode_instance == 0 && t.decode_start != Time::never()) {
            CHECK_FALSE((t.decode_start >= s(5) && t.decode_start < s(8)));
            later += t.decode_start >= s(8);
        }
    }
    CHECK(at_stop > 10);  // a running batch and what waited to join it
    CHECK(later > 10);    // it serves again once the fault is over
    for (const StepRecord& st : out.steps)
        if (!st.prefill && st.instance == 0) CHECK_FALSE((st.start >= s(5) && st.start < s(8)));
    REQUIRE(out.faults.size() == 1);
    CHECK(out.faults[0].requests_failed == failed);
    CHECK(out.faults[0].instances_stopped == 1);
}

TEST_CASE("when every instance of a kind is stopped, requests fail as they reach it",
          "[serving][faults]") {
    FixedSteps steps;
    ServingDeployment d = two_by_two();
    d.decode.instances = 1;
    const auto reqs = load(40, 10, 6);
    ServingFault all_prefill;
    all_prefill.effect = ServingFaultEffect::Stops;
    all_prefill.at = s(3);
    all_prefill.until = s(4);
    all_prefill.prefill_instances = {0, 1};
    const std::vector<ServingFault> faults = {all_prefill, stops_decode_0(s(6), s(7))};
    const ServingOutcome out = simulate_serving(d, reqs, steps, 6, faults);
    check_conserved(reqs, out);
    for (std::size_t i = 0; i < reqs.size(); ++i) {
        const RequestTimes& t = out.requests[i];
        const bool arrived_down = reqs[i].arrival >= s(3) && reqs[i].arrival < s(4);
        if (arrived_down) CHECK(t.failed == reqs[i].arrival);  // no prefill instance up
        // Prefilled while the decode instance was down: it fails as its cache would leave.
        if (t.first_token >= s(6) && t.first_token < s(7)) CHECK(t.failed == t.first_token);
    }
    CHECK(out.faults[0].requests_failed > 0);
    CHECK(out.faults[1].requests_failed > 0);
}

TEST_CASE("a hang holds its instance's step in flight for exactly as long as it lasts",
          "[serving][faults]") {
    FixedSteps steps;
    ServingDeployment d = two_by_two();
    d.prefill.instances = d.decode.instances = 1;
    // One request: prefill 0-20 ms, KV to 20.3 ms, decode steps of 10 ms from there.
    const std::vector<ServingRequest> reqs = {ServingRequest{Time::zero(), 1000, 11}};
    const ServingOutcome healthy = simulate_serving(d, reqs, steps, 1);
    ServingFault hang;
    hang.effect = ServingFaultEffect::Freezes;
    hang.at = Time::from_us(45'000);  // inside the third decode step (40.3 to 50.3 ms)
    hang.until = Time::from_us(95'000);
    hang.decode_instances = {0};
    const ServingOutcome held =
        simulate_serving(d, reqs, steps, 1, std::vector<ServingFault>{hang});
    CHECK(held.requests[0].finish - healthy.requests[0].finish == Time::from_us(50'000));
    for (const StepRecord& st : held.steps)
        if (!st.prefill) CHECK_FALSE((st.start > hang.at && st.start < hang.until));
    // Hung while idle: the first decode step waits for the hang's end.
    hang.at = Time::from_us(10'000);
    hang.until = Time::from_us(30'000);
    const ServingOutcome idle =
        simulate_serving(d, reqs, steps, 1, std::vector<ServingFault>{hang});
    CHECK(idle.requests[0].decode_start == Time::from_us(30'000));
    CHECK(idle.requests[0].finish - healthy.requests[0].finish == Time::from_us(30'000 - 20'300));
}

TEST_CASE(
    "a step is told the faults present as it starts, for its kind, and the first step of each "
    "instance after a fault the fabric reacts to meets its transient",
    "[serving][faults]") {
    FixedSteps steps;
    const ServingDeployment d = two_by_two();
    const auto reqs = load(40, 4, 7);
    ServingFault cable, slow_decode_gpu, from_start;
    cable.at = s(1);
    cable.until = s(2);
    cable.reacts = true;
    slow_decode_gpu.at = s(1.5);
    slow_decode_gpu.prefill_steps = false;
    from_start.reacts = true;  // at 0: long reacted to
    const std::vector<ServingFault> faults = {cable, slow_decode_gpu, from_start};
    const ServingOutcome out = simulate_serving(d, reqs, steps, 7, faults);
    std::size_t p = 0, q = 0;
    std::vector<std::uint32_t> transient_prefill(2, 0), transient_decode(2, 0);
    for (const StepRecord& st : out.steps) {
        const StepFaults f = st.prefill ? steps.prefills[p++].faults : steps.decodes[q++].faults;
        CHECK(f.present == st.faults);
        const bool cable_on = st.start >= s(1) && st.start < s(2);
        CHECK((f.present & 1) == (cable_on ? 1u : 0u));
        CHECK((f.present >> 1 & 1) == (!st.prefill && st.start >= s(1.5) ? 1u : 0u));
        CHECK((f.present >> 2 & 1) == 1u);
        CHECK((f.transient & ~std::uint64_t{1}) == 0);  // neither the slow GPU nor the old one
        if (f.transient & 1) ++(st.prefill ? transient_prefill : transient_decode)[st.instance];
    }
    CHECK(transient_prefill == std::vector<std::uint32_t>{1, 1});
    CHECK(transient_decode == std::vector<std::uint32_t>{1, 1});
    CHECK(out.faults[0].transient_steps == 4);
}

TEST_CASE("a step that cannot complete with its faults stops its instance until the faults change",
          "[serving][faults]") {
    FixedSteps steps;
    steps.decode_fails_with_faults = true;
    ServingDeployment d = two_by_two();
    d.prefill.instances = d.decode.instances = 1;
    const auto reqs = load(20, 6, 8);
    ServingFault plane;
    plane.at = s(2);
    plane.until = s(3);
    plane.reacts = true;
    const ServingOutcome out =
        simulate_serving(d, reqs, steps, 8, std::vector<ServingFault>{plane});
    check_conserved(reqs, out);
    std::uint64_t failed = 0, served_after = 0;
    for (std::size_t i = 0; i < reqs.size(); ++i) {
        const RequestTimes& t = out.requests[i];
        if (t.failed != Time::never()) {
            ++failed;
            CHECK(t.failed >= s(2));
            CHECK(t.failed < s(3));
        }
        served_after += t.decode_start >= s(3);
    }
    CHECK(failed > 0);
    CHECK(served_after > 0);
    // Two: the transient's, then (restarted at once) the steady state's; then the instance
    // waits for the change.
    CHECK(out.faults[0].failed_steps == 2);
    CHECK(out.faults[0].instances_stopped == 2);
    CHECK(out.faults[0].requests_failed == failed);
}

TEST_CASE("a hang delays the KV caches on their way to its instance, it does not fail them",
          "[serving][faults]") {
    FixedSteps steps;
    ServingDeployment d = two_by_two();
    d.decode.instances = 1;
    const auto reqs = load(40, 6, 9);
    ServingFault hang;
    hang.effect = ServingFaultEffect::Freezes;
    hang.at = s(3);
    hang.until = s(3.2);
    hang.decode_instances = {0};
    const ServingOutcome out = simulate_serving(d, reqs, steps, 9, std::vector<ServingFault>{hang});
    check_conserved(reqs, out);
    std::uint64_t arrived_during = 0;
    for (const RequestTimes& t : out.requests) {
        CHECK(t.failed == Time::never());
        arrived_during += t.kv_ready > hang.at && t.kv_ready < hang.until;
        // Caches that arrived during the hang join the batch after it.
        if (t.kv_ready > hang.at && t.kv_ready < hang.until) CHECK(t.decode_start >= hang.until);
    }
    CHECK(arrived_during > 0);
    CHECK(out.faults[0].requests_failed == 0);
}

TEST_CASE("an instance two stops overlap on stays down until both are over", "[serving][faults]") {
    FixedSteps steps;
    const ServingDeployment d = two_by_two();
    const auto reqs = load(40, 12, 10);
    // Overlapping, and one inside the other (its end must not bring the instance back).
    for (const Time second_end : {s(8), s(6)}) {
        const std::vector<ServingFault> faults = {stops_decode_0(s(2), s(8) + s(6) - second_end),
                                                  stops_decode_0(s(4), second_end)};
        const ServingOutcome out = simulate_serving(d, reqs, steps, 10, faults);
        check_conserved(reqs, out);
        std::uint64_t after = 0;
        for (const StepRecord& st : out.steps) {
            if (st.prefill || st.instance != 0) continue;
            CHECK_FALSE((st.start >= s(2) && st.start < s(8)));
            after += st.start >= s(8);
        }
        CHECK(after > 0);
        CHECK(out.faults[1].instances_stopped == 1);  // it held the instance too
    }
}

TEST_CASE("a fault that names an instance changes that instance's steps alone",
          "[serving][faults]") {
    FixedSteps steps;
    const ServingDeployment d = two_by_two();
    const auto reqs = load(40, 4, 11);
    ServingFault slow_gpu;  // a GPU of decode instance 1, from the start
    slow_gpu.prefill_steps = false;
    slow_gpu.decode_instances = {1};
    const ServingOutcome out =
        simulate_serving(d, reqs, steps, 11, std::vector<ServingFault>{slow_gpu});
    std::uint64_t on_one = 0;
    for (const StepRecord& st : out.steps) {
        CHECK(st.faults == (!st.prefill && st.instance == 1 ? 1u : 0u));
        on_one += st.faults;
    }
    CHECK(on_one > 0);
}

TEST_CASE(
    "an instance whose step failed in a fault's transient restarts at once and meets its "
    "steady state",
    "[serving][faults]") {
    FixedSteps steps;
    steps.decode_fails_in_transients = true;
    ServingDeployment d = two_by_two();
    d.prefill.instances = d.decode.instances = 1;
    const auto reqs = load(20, 6, 12);
    ServingFault plane;  // lost for good at 2 s (decode steps alone, to count them)
    plane.at = s(2);
    plane.reacts = true;
    plane.prefill_steps = false;
    const ServingOutcome out =
        simulate_serving(d, reqs, steps, 12, std::vector<ServingFault>{plane});
    check_conserved(reqs, out);
    std::uint64_t failed = 0, served_after = 0;
    for (const RequestTimes& t : out.requests) {
        failed += t.failed != Time::never();
        served_after += t.decode_start > s(2.1);
    }
    CHECK(failed > 0);         // the batch of the step that failed
    CHECK(served_after > 20);  // then it serves on, the fault still there
    CHECK(out.faults[0].failed_steps == 1);
    CHECK(out.faults[0].transient_steps == 1);
}
