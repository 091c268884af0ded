#pragma once
// The MPI ranks one windowed run is spread over (`mpirun -n R clustersim run ...`): every rank
// builds the whole model and runs the partitions dealt to it; at each window's end the events
// and hand-offs that cross ranks are swapped and a few totals agreed, so that the run handles
// the serial run's events in its order. The kernel sees only this interface, called a few times
// per window and never per event; tools/scenario/mpi_world.cpp implements it over MPI.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace clustersim {

class Ranks {
  public:
    virtual ~Ranks() = default;
    virtual std::uint32_t rank() const = 0;
    virtual std::uint32_t count() const = 0;
    /// Sends `out[r]` to every other rank r; `in[r]` is what rank r sent this one (`in[rank()]`
    /// is left empty). Every rank calls it at the same point of the run.
    virtual void exchange(std::span<const std::vector<std::byte>> out,
                          std::vector<std::vector<std::byte>>& in) = 0;
    /// Every rank's `mine` (of one length on all of them), rank after rank, into `all`.
    virtual void allgather(std::span<const std::uint64_t> mine,
                           std::vector<std::uint64_t>& all) = 0;

    /// Element-wise over the ranks, in place: sums (wrapping, so signed counts add too), the
    /// largest unsigned, the smallest signed (times), bitwise exclusive or.
    enum class Reduce : std::uint8_t { Sum, Max, MinSigned, Xor };
    virtual void allreduce(std::span<std::uint64_t> words, Reduce op) = 0;
    void sum(std::span<std::uint64_t> words) { allreduce(words, Reduce::Sum); }
};

/// What crosses ranks, written and read back in one order: trivially copyable values.
struct ByteWriter {
    std::vector<std::byte>& bytes;
    template <class T>
    void put(const T& value) requires std::is_trivially_copyable_v<T> {
        const std::size_t at = bytes.size();
        bytes.resize(at + sizeof(T));
        std::memcpy(bytes.data() + at, &value, sizeof(T));
    }
};

class ByteReader {
  public:
    explicit ByteReader(std::span<const std::byte> bytes) : bytes_(bytes) {}
    template <class T>
    T get() requires std::is_trivially_copyable_v<T> {
        if (bytes_.size() - at_ < sizeof(T)) throw std::logic_error("a rank's message ran short");
        T value;
        std::memcpy(&value, bytes_.data() + at_, sizeof(T));
        at_ += sizeof(T);
        return value;
    }
    bool done() const { return at_ == bytes_.size(); }

  private:
    std::span<const std::byte> bytes_;
    std::size_t at_ = 0;
};

/// Every rank's records, this rank's first and then the others' in rank order (each sends its
/// own to all): for state each rank holds a part of, merged by the caller's order.
template <class T>
std::vector<T> gather_records(Ranks& ranks, std::span<const T> mine) {
    std::vector<std::byte> bytes;
    ByteWriter w{bytes};
    for (const T& record : mine) w.put(record);
    const std::vector<std::vector<std::byte>> out(ranks.count(), bytes);
    std::vector<std::vector<std::byte>> in;
    ranks.exchange(out, in);
    std::vector<T> all(mine.begin(), mine.end());
    for (std::uint32_t r = 0; r < ranks.count(); ++r) {
        if (r == ranks.rank()) continue;
        ByteReader reader(in[r]);
        while (!reader.done()) all.push_back(reader.get<T>());
    }
    return all;
}

}  // namespace clustersim
