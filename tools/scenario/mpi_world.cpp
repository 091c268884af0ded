#include "tools/scenario/mpi_world.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#ifdef CLUSTERSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace clustersim {

namespace {
bool started_by_mpi_launcher() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
        if (std::getenv(v)) return true;
    return false;
}
}  // namespace

#ifdef CLUSTERSIM_HAVE_MPI
namespace {

int count_of(std::size_t n) {
    if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw std::length_error("more than 2^31 bytes for one MPI message");
    return static_cast<int>(n);
}

// One run's partitions over MPI_COMM_WORLD.
class MpiRanks final : public Ranks {
  public:
    MpiRanks(std::uint32_t rank, std::uint32_t count) : rank_(rank), count_(count) {}
    std::uint32_t rank() const override { return rank_; }
    std::uint32_t count() const override { return count_; }
    void exchange(std::span<const std::vector<std::byte>> out,
                  std::vector<std::vector<std::byte>>& in) override {
        std::vector<int> send_counts(count_), send_at(count_), recv_counts(count_), recv_at(count_);
        int total = 0;
        for (std::uint32_t r = 0; r < count_; ++r) {
            send_counts[r] = r == rank_ ? 0 : count_of(out[r].size());
            send_at[r] = total;
            total = count_of(std::size_t(total) + std::size_t(send_counts[r]));
        }
        MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT,
                     MPI_COMM_WORLD);
        send_.resize(static_cast<std::size_t>(total));
        for (std::uint32_t r = 0; r < count_; ++r)
            if (send_counts[r] > 0)
                std::copy(out[r].begin(), out[r].end(), send_.begin() + send_at[r]);
        int received = 0;
        for (std::uint32_t r = 0; r < count_; ++r) {
            recv_at[r] = received;
            received = count_of(std::size_t(received) + std::size_t(recv_counts[r]));
        }
        recv_.resize(static_cast<std::size_t>(received));
        MPI_Alltoallv(send_.data(), send_counts.data(), send_at.data(), MPI_BYTE, recv_.data(),
                      recv_counts.data(), recv_at.data(), MPI_BYTE, MPI_COMM_WORLD);
        in.resize(count_);
        for (std::uint32_t r = 0; r < count_; ++r)
            in[r].assign(recv_.begin() + recv_at[r], recv_.begin() + recv_at[r] + recv_counts[r]);
    }
    void allgather(std::span<const std::uint64_t> mine, std::vector<std::uint64_t>& all) override {
        all.resize(mine.size() * count_);
        MPI_Allgather(mine.data(), count_of(mine.size()), MPI_UINT64_T, all.data(),
                      count_of(mine.size()), MPI_UINT64_T, MPI_COMM_WORLD);
    }
    void allreduce(std::span<std::uint64_t> words, Reduce op) override {
        const MPI_Datatype type = op == Reduce::MinSigned ? MPI_INT64_T : MPI_UINT64_T;
        const MPI_Op mpi_op = op == Reduce::Sum   ? MPI_SUM
                              : op == Reduce::Max ? MPI_MAX
                              : op == Reduce::Xor ? MPI_BXOR
                                                  : MPI_MIN;
        // In pieces of at most 2^28 words, within MPI's int counts.
        constexpr std::size_t kPiece = std::size_t{1} << 28;
        for (std::size_t at = 0; at < words.size(); at += kPiece)
            MPI_Allreduce(MPI_IN_PLACE, words.data() + at,
                          static_cast<int>(std::min(kPiece, words.size() - at)), type, mpi_op,
                          MPI_COMM_WORLD);
    }

  private:
    std::uint32_t rank_, count_;
    std::vector<std::byte> send_, recv_;
};
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
    if (size > 1)
        run_ranks_ = std::make_unique<MpiRanks>(static_cast<std::uint32_t>(rank),
                                                static_cast<std::uint32_t>(size));
}

void MpiSession::abort(int code) const {
    if (active_) MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
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
// Started by mpirun without MPI built in, each process would run the whole job and write the
// same files: said instead (MpiSession::unsupported).
MpiSession::MpiSession(int&, char**&) {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
        if (const char* n = std::getenv(v); n && started_by_mpi_launcher() && std::atoi(n) > 1)
            unsupported_ = true;
}
MpiSession::~MpiSession() = default;
void MpiSession::abort(int code) const {
    std::exit(code);
}
GatherToRoot MpiSession::gather() const {
    return [](const std::string& text) { return std::vector<std::string>{text}; };
}
#endif

}  // namespace clustersim
