#pragma once
// The serving run's step times from packet-level runs of the scenario's fabric: a prefill or
// decode step of a shape is the scenario's moe step with that many tokens (or requests) per
// GPU and that context, on its instances' GPUs; a KV transfer is one RDMA message from a
// prefill GPU to a decode GPU. With the step cache on, sizes are simulated only on a grid of
// half octaves (1, 2, 3, 4, 6, 8, 12, ...) and contexts at two references, 1,024 and 8,192
// tokens; a step is interpolated between sizes and taken on the line through the references in
// context (a transfer between byte sizes), each grid point simulated once and reused; off, every
// distinct shape is simulated (the check of the interpolation, docs/serving.md).
// A step of a shape runs every instance of its kind at once (their traffic meets in the fabric);
// each instance takes its own EP group's time from that run, not the run's step.
// Steps run on the whole deployment's fabric, or on pods with nothing between them on the
// first pod's alone (first_pod_steps, below). KV transfers over it share NICs with a step's
// expert traffic: the step is also run with a KV cache streaming through the first instance's
// first NIC from its start to past its end, and a step whose busiest NIC has KV bytes in flight
// is slowed by that instance's difference times the fraction of the step the transfer lasts
// (alone).
// Faults present as a step starts (serving_faults.hpp says which each kind's steps take) are
// part of its shape: in their steady state (every reaction in place, as a fault present from a
// run's start), or, the first time its instance meets one, with the fault from the step's first
// nanosecond and the fabric's reaction at its own delay (an exact shape, not interpolated). A
// step that cannot complete with them is reported failed.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "models/serving/step_times.hpp"
#include "tools/scenario/scenario.hpp"
#include "tools/scenario/serving_faults.hpp"
#include "tools/scenario/step_simulation.hpp"
#include "tools/scenario/step_store.hpp"

namespace clustersim {

struct SimulatedFabric;

class PacketStepTimes final : public StepTimes {
  public:
    PacketStepTimes(const Scenario& s, bool progress);
    ~PacketStepTimes() override;
    StepTime prefill(PrefillShape shape) override;
    StepTime decode(DecodeShape shape) override;
    Time kv_transfer(std::uint64_t bytes) override;

    /// The scenario of one step of a shape (also used to check the deployment before the run),
    /// with those of the scenario's faults (a step with faults is placed where the deployment
    /// puts its kind; without, from GPU 0: fat trees are symmetric in this).
    static Scenario step_scenario(const Scenario& s, MoePhase phase, std::uint32_t per_gpu,
                                  std::uint32_t context, StepFaults faults = {});
    const std::vector<StepSimulation>& simulations() const { return runs_; }
    std::uint64_t cache_hits() const { return hits_; }
    /// Of simulations(), those read from the step store (serving.step_store) and not run.
    std::uint64_t runs_from_store() const { return from_store_; }
    const ServingFaults& faults() const { return faults_; }

  private:
    enum class What : std::uint8_t { Prefill, Decode, Transfer };
    // The EP group of a step run that instance `instance` of the kind takes its time from.
    std::uint32_t group_of(What what, std::uint32_t instance) const;
    // A grid point: with_kv runs a step beside a KV cache streaming through one of its NICs;
    // the faults it runs with (present, transient).
    using Key = std::tuple<What, std::uint64_t, std::uint64_t, bool, std::uint64_t, std::uint64_t>;
    const StepSimulation& simulated(What what, std::uint64_t size, std::uint64_t context,
                                    bool with_kv, StepFaults faults = {});
    double interpolated_ms(What what, std::uint64_t size, std::uint64_t context,
                           std::uint32_t instance, StepFaults f, bool& completed);
    double grid_transfer_ms(std::uint64_t bytes);  // between the half-octave grid's sizes
    double kv_delta_ms(What what, std::uint64_t size, std::uint64_t context, StepFaults f);
    StepTime step(What what, std::uint64_t size, std::uint64_t context, std::uint32_t instance,
                  std::uint64_t kv_bytes, StepFaults faults);
    StepSimulation run_step(What what, std::uint64_t per_gpu, std::uint64_t context,
                            std::uint64_t kv_bytes, StepFaults faults);
    StepSimulation run_transfer(std::uint64_t bytes);

    const Scenario& s_;
    bool progress_ = false;
    ServingFaults faults_;
    std::map<Key, std::size_t> known_;  // the run in runs_
    std::vector<StepSimulation> runs_;
    std::uint64_t hits_ = 0;
    std::optional<StepStore> store_;
    std::uint64_t from_store_ = 0;
    std::unique_ptr<SimulatedFabric> fabric_;  // the whole deployment's, for transfers
};

/// The half-octave grid points around `x` (1, 2, 3, 4, 6, 8, 12, ...): the largest at or
/// below it and the smallest at or above it (equal when x is one).
std::pair<std::uint64_t, std::uint64_t> half_octave_bracket(std::uint64_t x);

/// Whether the run's steps simulate its first pod alone: pods share no cable, so a step there
/// runs as it would beside the others, and each other pod's instance takes its counterpart's
/// time (serving.step_pods: first, the default; not with faults, which may be in any pod).
bool first_pod_steps(const Scenario& s);

}  // namespace clustersim
