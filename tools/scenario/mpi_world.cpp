#include "tools/scenario/mpi_world.hpp"

#include <cstdlib>

#ifdef CLUSTERSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace clustersim {

#ifdef CLUSTERSIM_HAVE_MPI
namespace {
bool started_by_mpi_launcher() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
        if (std::getenv(v)) return true;
    return false;
}
}  // namespace

MpiSession::MpiSession(int& argc, char**& argv) {
    if (!started_by_mpi_launcher()) return;
    MPI_Init(&argc, &argv);
    active_ = true;
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = static_cast<std::size_t>(rank);
    ranks_ = static_cast<std::size_t>(size);
}

MpiSession::~MpiSession() {
    if (active_) MPI_Finalize();
}

GatherToRoot MpiSession::gather() const {
    return [size = ranks_, me = rank_](const std::string& text) {
        const int length = static_cast<int>(text.size());
        std::vector<int> lengths(size, 0), offsets(size, 0);
        MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
        std::string all;
        if (me == 0) {
            int total = 0;
            for (std::size_t r = 0; r < size; ++r) offsets[r] = total, total += lengths[r];
            all.resize(static_cast<std::size_t>(total));
        }
        MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                    MPI_CHAR, 0, MPI_COMM_WORLD);
        std::vector<std::string> parts;
        if (me == 0)
            for (std::size_t r = 0; r < size; ++r)
                parts.push_back(all.substr(static_cast<std::size_t>(offsets[r]),
                                           static_cast<std::size_t>(lengths[r])));
        return parts;
    };
}
#else
MpiSession::MpiSession(int&, char**&) {}
MpiSession::~MpiSession() = default;
GatherToRoot MpiSession::gather() const {
    return [](const std::string& text) { return std::vector<std::string>{text}; };
}
#endif

}  // namespace clustersim
