#pragma once
// Packet-level step runs kept on disk across serving runs (`--step-store DIR`): a later run, a
// serve-search probe at another rate or a sweep resumed in another session reads a step it
// has run before instead of simulating it again. A run is found by a digest of all it depends
// on: the clustersim binary itself (all but the name of its commit), every resolved key but
// those no step reads (the request timeline's: arrivals, lengths, SLO, duration), the seed, the
// bytes of an expert-load file, and the step (kind, size, context, KV stream, faults). One small
// JSON file per run, written whole or not at all. Not for runs spread over MPI ranks (each rank
// would look on its own).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tools/scenario/scenario.hpp"
#include "tools/scenario/step_simulation.hpp"

namespace clustersim {

/// Which run: a step (prefill, decode) or a KV transfer of a size, context and faults, alone
/// or beside a KV stream.
struct StoredStepKey {
    std::string_view what;
    std::uint64_t size = 0;
    std::uint64_t context = 0;
    bool with_kv = false;
    StepFaults faults;
};

class StepStore {
  public:
    /// `dir` must exist (the command creates it); `s` is the serving run's scenario.
    StepStore(std::string dir, const Scenario& s);
    /// The run kept for `k`, if one is (a file that does not parse or does not match is none).
    std::optional<StepSimulation> find(const StoredStepKey& k) const;
    /// Keeps `r` as the run for `k`; a store it cannot write to is said once a process, on
    /// stderr.
    void keep(const StoredStepKey& k, const StepSimulation& r) const;
    /// The file `k`'s run is kept in.
    std::string path_of(const StoredStepKey& k) const;

  private:
    std::string dir_;
    std::string scenario_part_;  // the digest's text for the binary, the scenario and seed
};

/// The resolved keys a store's digest leaves out: no step run reads them. The request
/// timeline's (serving.arrival, lengths, slo, duration_s, timeline_s, step_cache), the name,
/// sim.replicates (a step runs one seed), `seed` (the seed the run uses is digested itself:
/// --seed and a sweep's seeds set it after loading) and the prices (`cost`).
bool outside_step_runs(std::string_view path);

/// A program's bytes digested with every copy of its commit's name and its ELF build ID (a hash
/// over the rest) blanked: two builds of one source at different commits (docs or tests
/// changed) digest alike.
std::string program_digest(std::string bytes, std::string_view commit);

/// Creates `dir` for a store (an InputError naming `option` if it cannot).
void prepare_step_store(const std::string& dir, const std::string& option = "--step-store");

}  // namespace clustersim
