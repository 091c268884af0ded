#include <catch2/catch.hpp>

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "models/faults/fault_plan.hpp"
#include "models/network/simulation.hpp"
#include "sim/ranks.hpp"
#include "support.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {

// Ranks inside one process, one thread each, meeting at a barrier: the MPI build's
// collectives (tools/scenario/mpi_world.cpp) with shared memory, so that the ranked run is
// tested by every build, the sanitizers' included.
// Every rank waits until all have come (a generation count under a mutex).
class Meeting {
  public:
    explicit Meeting(std::uint32_t ranks) : ranks_(ranks) {}
    void arrive_and_wait() {
        std::unique_lock lock(mutex_);
        const std::uint64_t generation = generation_;
        if (++arrived_ == ranks_) {
            arrived_ = 0;
            ++generation_;
            all_.notify_all();
            return;
        }
        all_.wait(lock, [&] { return generation_ != generation; });
    }

  private:
    std::mutex mutex_;
    std::condition_variable all_;
    std::uint32_t ranks_, arrived_ = 0;
    std::uint64_t generation_ = 0;
};

struct Board {
    explicit Board(std::uint32_t ranks)
        : count(ranks),
          meet(ranks),
          mail(ranks, std::vector<std::vector<std::byte>>(ranks)),
          words(ranks) {}
    std::uint32_t count;
    Meeting meet;
    std::vector<std::vector<std::vector<std::byte>>> mail;  // [from][to]
    std::vector<std::vector<std::uint64_t>> words;          // per rank
};

class ThreadRanks final : public Ranks {
  public:
    ThreadRanks(Board& board, std::uint32_t rank) : board_(board), rank_(rank) {}
    std::uint32_t rank() const override { return rank_; }
    std::uint32_t count() const override { return board_.count; }
    void exchange(std::span<const std::vector<std::byte>> out,
                  std::vector<std::vector<std::byte>>& in) override {
        for (std::uint32_t r = 0; r < count(); ++r)
            board_.mail[rank_][r] = r == rank_ ? std::vector<std::byte>{} : out[r];
        board_.meet.arrive_and_wait();
        in.assign(count(), {});
        for (std::uint32_t r = 0; r < count(); ++r) in[r] = board_.mail[r][rank_];
        board_.meet.arrive_and_wait();
    }
    void allgather(std::span<const std::uint64_t> mine, std::vector<std::uint64_t>& all) override {
        board_.words[rank_].assign(mine.begin(), mine.end());
        board_.meet.arrive_and_wait();
        all.clear();
        for (const auto& w : board_.words) all.insert(all.end(), w.begin(), w.end());
        board_.meet.arrive_and_wait();
    }
    void allreduce(std::span<std::uint64_t> words, Reduce op) override {
        std::vector<std::uint64_t> all;
        allgather(words, all);
        for (std::size_t i = 0; i < words.size(); ++i) {
            std::uint64_t v = all[i];
            for (std::size_t at = i + words.size(); at < all.size(); at += words.size()) {
                const std::uint64_t w = all[at];
                switch (op) {
                    case Reduce::Sum:
                        v += w;
                        break;
                    case Reduce::Max:
                        v = std::max(v, w);
                        break;
                    case Reduce::Xor:
                        v ^= w;
                        break;
                    case Reduce::MinSigned:
                        v = static_cast<std::int64_t>(w) < static_cast<std::int64_t>(v) ? w : v;
                        break;
                }
            }
            words[i] = v;
        }
    }

  private:
    Board& board_;
    std::uint32_t rank_;
};

// `run(options)` on `ranks` threads, one rank each: every rank's result.
template <class Run>
std::vector<SimulationResult> on_ranks(std::uint32_t ranks, Run run) {
    Board board(ranks);
    std::vector<SimulationResult> results(ranks);
    {
        std::vector<std::jthread> threads;
        for (std::uint32_t r = 0; r < ranks; ++r)
            threads.emplace_back([&, r] {
                ThreadRanks mine(board, r);
                SimulationOptions o;
                o.ranks = &mine;
                o.fingerprint = true;
                results[r] = run(o);
            });
    }
    return results;
}

// What a run's outputs are made of, without wall-clock fields.
void check_same(const SimulationResult& a, const SimulationResult& b) {
    CHECK(a.status == b.status);
    CHECK(a.end_time == b.end_time);
    CHECK(a.events == b.events);
    CHECK(a.fingerprint == b.fingerprint);
    CHECK(a.windows == b.windows);
    CHECK(a.peak_packets == b.peak_packets);
    CHECK(a.busiest_thread_events == b.busiest_thread_events);
    CHECK(std::memcmp(&a.counters, &b.counters, sizeof(NetworkCounters)) == 0);
    REQUIRE(a.messages.size() == b.messages.size());
    for (std::size_t m = 0; m < a.messages.size(); ++m) {
        CHECK(a.messages[m].started == b.messages[m].started);
        CHECK(a.messages[m].first_sent == b.messages[m].first_sent);
        CHECK(a.messages[m].finished == b.messages[m].finished);
    }
    REQUIRE(a.channels.size() == b.channels.size());
    for (std::size_t c = 0; c < a.channels.size(); ++c) {
        CHECK(a.channels[c].bytes == b.channels[c].bytes);
        CHECK(a.channels[c].max_queue_bytes == b.channels[c].max_queue_bytes);
        CHECK(a.channels[c].drops == b.channels[c].drops);
    }
    REQUIRE(a.queue_samples.size() == b.queue_samples.size());
    for (std::size_t i = 0; i < a.queue_samples.size(); ++i) {
        CHECK(a.queue_samples[i].at == b.queue_samples[i].at);
        CHECK(a.queue_samples[i].channel == b.queue_samples[i].channel);
        CHECK(a.queue_samples[i].queued_bytes == b.queue_samples[i].queued_bytes);
    }
    CHECK(a.samples_truncated == b.samples_truncated);
    REQUIRE(a.tiers.points() == b.tiers.points());
    for (std::size_t p = 0; p < a.tiers.points(); ++p)
        for (std::size_t t = 0; t < a.tiers.tiers().size(); ++t) {
            CHECK(a.tiers.point(p, t).bytes == b.tiers.point(p, t).bytes);
            CHECK(a.tiers.point(p, t).queued_sum == b.tiers.point(p, t).queued_sum);
            CHECK(a.tiers.point(p, t).max_queue_channel == b.tiers.point(p, t).max_queue_channel);
        }
    CHECK(a.path_spread.flows == b.path_spread.flows);
    CHECK(a.path_spread.paths_sum == b.path_spread.paths_sum);
    REQUIRE(a.unfinished_received.size() == b.unfinished_received.size());
    for (std::size_t i = 0; i < a.unfinished_received.size(); ++i) {
        CHECK(a.unfinished_received[i].message == b.unfinished_received[i].message);
        CHECK(a.unfinished_received[i].bytes == b.unfinished_received[i].bytes);
    }
}

// All to all (32 KiB) on a 32-host two-tier fat tree with shallow buffers: credits cross the
// cut, packets queue, and the switches have path choices.
struct Case {
    TestFabric fabric{[] {
        FatTreeTwoLayerParams ft = small_ft2(16, 32);
        ft.fabric.port_buffer_bytes = 2 * (4096 + 26);
        ft.fabric.cut_through = true;
        return ft;
    }()};
    Workload workload;
    NetworkParams params = ib_params();
    Case() {
        const std::uint32_t n = fabric.topology.graph.endpoint_count();
        for (std::uint32_t s = 0; s < n; ++s)
            for (std::uint32_t d = 0; d < n; ++d)
                if (s != d) workload.add_message({s, d, 32 * 1024, Time{}});
        params.sample_period = Time::from_ns(500);
    }
    SimulationResult run(SimulationOptions o) const {
        return simulate(fabric.topology.graph, fabric.routes, workload, params, o);
    }
};

}  // namespace

TEST_CASE("a run spread over ranks gives the one-process run's results, on every rank",
          "[ranks][network]") {
    const Case c;
    SimulationOptions one;
    one.fingerprint = true;
    const SimulationResult serial = c.run(one);
    REQUIRE(serial.partitions > 1);
    REQUIRE(!serial.queue_samples.empty());
    for (const std::uint32_t ranks : {2u, 3u}) {
        const auto results = on_ranks(ranks, [&](const SimulationOptions& o) { return c.run(o); });
        for (const SimulationResult& r : results) {
            CHECK(r.ranks == ranks);
            CHECK(r.ranks_note.empty());
            check_same(serial, r);
        }
    }
}

TEST_CASE("queue samples cut at sample_rows over ranks as in one process", "[ranks][network]") {
    Case c;
    c.params.sample_rows = 7;
    const SimulationResult serial = c.run({});
    REQUIRE(serial.samples_truncated);
    const auto results = on_ranks(2, [&](const SimulationOptions& o) { return c.run(o); });
    CHECK(results[0].samples_truncated);
    CHECK(results[0].queue_samples.size() == 7);
    for (std::size_t i = 0; i < 7; ++i)
        CHECK(results[0].queue_samples[i].channel == serial.queue_samples[i].channel);
}

TEST_CASE("a run stopped early over ranks: the bytes unfinished messages received, merged",
          "[ranks][network]") {
    const Case c;
    SimulationOptions one;
    one.fingerprint = true;
    one.max_time = Time::from_us(3);
    const SimulationResult serial = c.run(one);
    REQUIRE(serial.status == SimulationResult::Status::TimeLimit);
    REQUIRE(!serial.unfinished_received.empty());
    const auto results = on_ranks(2, [&](SimulationOptions o) {
        o.max_time = Time::from_us(3);
        return c.run(o);
    });
    check_same(serial, results[0]);
    check_same(serial, results[1]);
}

TEST_CASE("a model with faults runs whole on every rank, and says so", "[ranks][network]") {
    const Case c;
    FaultPlan plan;
    plan.faults = 1;
    plan.actions.push_back({Time::from_us(1), FaultActionKind::ChannelRate, 0, 0, 0.5, Time{}});
    SimulationOptions one;
    one.fingerprint = true;
    one.faults = &plan;
    const SimulationResult serial = c.run(one);
    const auto results = on_ranks(2, [&](SimulationOptions o) {
        o.faults = &plan;
        return c.run(o);
    });
    CHECK(results[1].ranks == 1);
    CHECK(results[1].ranks_note.find("faults") != std::string::npos);
    check_same(serial, results[1]);
}
