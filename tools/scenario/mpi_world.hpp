#pragma once
// The MPI world a sweep or a run works in: when the build has MPI (CMake option CLUSTERSIM_MPI)
// and the process was started by mpirun/srun, MPI is initialised; a sweep spreads its points
// over the ranks, a run its partitions (sim/ranks.hpp). Otherwise the world is this one process.
#include <cstddef>
#include <memory>

#include "sim/ranks.hpp"

#include "tools/scenario/sweep.hpp"

namespace clustersim {

class MpiSession {
  public:
    MpiSession(int& argc, char**& argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    std::size_t rank() const { return rank_; }
    std::size_t ranks() const { return ranks_; }
    /// Gathers each rank's text at rank 0, in rank order.
    GatherToRoot gather() const;
    /// The ranks one run's partitions spread over (null in a world of one).
    Ranks* run_ranks() const { return run_ranks_.get(); }
    /// Started by mpirun over several processes, but built without MPI (CLUSTERSIM_MPI off).
    bool unsupported() const { return unsupported_; }
    /// Ends every rank at once (an error on one rank would leave the others waiting).
    [[noreturn]] void abort(int code) const;

  private:
    [[maybe_unused]] bool active_ = false;  // MPI initialised here (MPI builds only)
    std::size_t rank_ = 0, ranks_ = 1;
    std::unique_ptr<Ranks> run_ranks_;
    bool unsupported_ = false;
};

}  // namespace clustersim
