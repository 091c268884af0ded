#pragma once
// The MPI world a sweep runs in: when the build has MPI (CMake option CLUSTERSIM_MPI) and the
// process was started by mpirun/srun, MPI is initialised and points are spread over the ranks;
// otherwise the world is this one process.
#include <cstddef>

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

  private:
    [[maybe_unused]] bool active_ = false;  // MPI initialised here (MPI builds only)
    std::size_t rank_ = 0, ranks_ = 1;
};

}  // namespace clustersim
