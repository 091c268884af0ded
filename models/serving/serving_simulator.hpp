#pragma once
// A serving run at the level of requests and steps, in the order vLLM and SGLang schedule:
// requests queue first come first served at a prefill instance (the least loaded, by tokens
// waiting), whose steps take prompts up to a token budget (a prompt that does not fit is
// chunked over steps); the prefill's last step yields the first token; the request's KV cache
// then moves to a decode instance (one with room in the same pod first, then the fewest
// requests; disaggregated) or stays
// (colocated), and joins the running batch at the next step boundary while there is room;
// every decode step yields each running request one token plus its accepted MTP drafts.
// Colocated instances run a waiting prefill before the next decode step (SGLang's default,
// without mixing chunks into decode batches). Each step's time comes from StepTimes; the KV
// transfers queue first come first served at each GPU's NIC (fabric) or node's storage NIC; over
// the fabric, a step is told the KV bytes still in flight through its instance's busiest NIC.
// Faults (serving_fault.hpp) are taken at step boundaries: a step is told those present as it
// starts, and those its instance meets for the first time; a step that cannot complete with
// them stops its instance until the faults change; a hang holds its instance's step in flight;
// a stopped instance's requests fail (a request whose KV cache was on its way to it too), and
// arrivals and KV caches go to the instances still up (failing when none is).
#include <cstdint>
#include <span>
#include <vector>

#include "models/serving/serving_deployment.hpp"
#include "models/serving/serving_fault.hpp"
#include "models/serving/serving_request.hpp"
#include "models/serving/step_times.hpp"

namespace clustersim {

/// What became of one request (Time::never() for what never happened).
struct RequestTimes {
    Time prefill_start = Time::never();  // its first prefill step began
    Time first_token = Time::never();    // its last prefill step ended
    Time kv_ready = Time::never();       // its KV cache reached the decode instance
    Time decode_start = Time::never();   // it joined a running batch
    Time finish = Time::never();         // its last token
    Time failed = Time::never();         // its instance stopped (a fault) before it finished
    std::uint32_t decode_instance = 0;
    bool kv_cross_pod = false;  // its KV cache left its pod (over the storage network)
};

struct StepRecord {
    Time start;
    Time duration;
    std::uint32_t instance = 0;  // prefill instances and decode instances each counted from 0
    bool prefill = false;
    std::uint32_t batch = 0;     // requests decoding, or prompt tokens prefilled
    std::uint32_t shape = 0;     // requests per GPU per micro-batch, or tokens per GPU
    std::uint32_t tokens = 0;    // output tokens it yielded (a prefill: its prompts' first)
    std::uint64_t kv_bytes = 0;  // KV in flight through its busiest NIC as it began (fabric)
    Time kv_slowdown;            // what those transfers added to its time
    std::uint64_t faults = 0;    // the faults present as it began (bit i: faults[i])
    bool failed = false;         // it did not complete: cut by a stop, or failed with its faults
};

/// What each fault did to the serving run.
struct ServingFaultTally {
    std::uint64_t steps = 0;            // steps that began with it present
    std::uint64_t transient_steps = 0;  // of them, those that met it first on their instance
    std::uint64_t failed_steps = 0;     // of them, those that could not complete
    std::uint64_t instances_stopped = 0;
    std::uint64_t requests_failed = 0;  // requests its stops failed
};

struct ServingOutcome {
    std::vector<RequestTimes> requests;  // as the input's
    std::vector<StepRecord> steps;       // in the order they began
    Time end;                            // the last request finished
    double request_seconds = 0;          // the integral of requests in the system over time
    std::uint64_t output_tokens = 0;
    std::uint64_t kv_cross_pod = 0;         // KV caches sent to another pod's decode instance
    std::vector<ServingFaultTally> faults;  // per fault
};

/// Runs every request to its end (finished or failed). `requests` are in arrival order; at
/// most 64 faults.
ServingOutcome simulate_serving(const ServingDeployment& deployment,
                                std::span<const ServingRequest> requests, StepTimes& steps,
                                std::uint64_t seed, std::span<const ServingFault> faults = {});

}  // namespace clustersim
