#include <catch2/catch.hpp>

#include <vector>

#include "models/transport/rdma_transport.hpp"
#include "support.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {
// InfiniBand parameters on a lossy fabric: reliable connections, so timers run.
NetworkParams lossy_ib_params() {
    NetworkParams p = ib_params();
    p.flow_control = FlowControl::Lossy;
    return p;
}
}  // namespace

namespace {

// Packet `seq` of message m, 4,096 B of payload.
Packet full_packet(std::uint32_t m, std::uint32_t seq) {
    Packet p;
    p.message = m;
    p.sequence = seq;
    p.payload_bytes = 4096;
    return p;
}

// A receiver's NACK of message 0 asking for `sequence` again.
Packet nack_of(std::uint32_t sequence) {
    Packet nack;
    nack.message = 0;
    nack.kind = PacketKind::Nack;
    nack.sequence = sequence;
    return nack;
}

}  // namespace

TEST_CASE(
    "a receiver completes a message once every distinct packet arrived, in any order, and "
    "ignores duplicates",
    "[transport]") {
    const TestFabric f(small_ft2(4, 2));
    Workload w;
    w.add_message(MessageSpec{.src = 0, .dst = 1, .bytes = 4 * 4096 + 100, .start = Time::zero()});
    RdmaTransport t(f.topology.graph, w, ib_params(), nullptr);
    auto packet = [](std::uint32_t seq, std::uint32_t payload) {
        Packet p;
        p.message = 0;
        p.sequence = seq;
        p.payload_bytes = payload;
        return p;
    };
    // Five packets: 0..3 of 4,096 B, 4 of 100 B, delivered 3, 1, 4, 1 (again), 0, 2.
    CHECK_FALSE(t.receive(packet(3, 4096)).completes);
    CHECK_FALSE(t.receive(packet(1, 4096)).completes);
    CHECK_FALSE(t.receive(packet(4, 100)).completes);
    CHECK_FALSE(t.receive(packet(1, 4096)).completes);  // duplicate
    CHECK_FALSE(t.receive(packet(0, 4096)).completes);
    CHECK(t.bytes_received(0) == 3 * 4096 + 100);
    CHECK(t.receive(packet(2, 4096)).completes);
    CHECK(t.bytes_received(0) == 4 * 4096 + 100);
    CHECK(t.counters().duplicate_packets == 1);
    CHECK_FALSE(t.receive(packet(2, 4096)).completes);  // a late duplicate never completes it twice
    CHECK(t.counters().duplicate_packets == 2);
}

TEST_CASE(
    "a receiver holds reordering of any depth: packets 300 apart, reversed, then a second "
    "message reusing the first's spill",
    "[transport]") {
    const TestFabric f(small_ft2(4, 2));
    Workload w;
    const std::uint32_t n = 301;
    for (int k = 0; k < 2; ++k)
        w.add_message(MessageSpec{
            .src = 0, .dst = 1, .bytes = std::uint64_t{n} * 4096, .start = Time::zero()});
    RdmaTransport t(f.topology.graph, w, ib_params(), nullptr);
    const auto packet = full_packet;
    for (std::uint32_t m = 0; m < 2; ++m) {
        INFO("message " << m);
        // Every packet but the first, last first; then duplicates far ahead; then the first.
        for (std::uint32_t seq = n - 1; seq >= 1; --seq)
            CHECK_FALSE(t.receive(packet(m, seq)).completes);
        const std::uint64_t dups = t.counters().duplicate_packets;
        for (std::uint32_t seq : {1u, 63u, 64u, 65u, 200u, 300u})
            CHECK_FALSE(t.receive(packet(m, seq)).completes);
        CHECK(t.counters().duplicate_packets == dups + 6);
        CHECK(t.bytes_received(m) == std::uint64_t{n - 1} * 4096);
        CHECK(t.receive(packet(m, 0)).completes);  // all 301 in order now
        CHECK(t.bytes_received(m) == std::uint64_t{n} * 4096);
        CHECK_FALSE(t.receive(packet(m, 150)).completes);  // below next_expected: a duplicate
    }
    // One after the other, the two messages were received in the same slot.
    CHECK(t.receiver_slots() == 1);
}

TEST_CASE(
    "a message received whole gives its receiver's slot back, and a late duplicate is still "
    "ACKed for every packet",
    "[transport]") {
    const TestFabric f(small_ft2(4, 2));
    Workload w;
    for (int k = 0; k < 3; ++k)
        w.add_message(MessageSpec{.src = 0, .dst = 1, .bytes = 2 * 4096, .start = Time::zero()});
    RdmaTransport t(f.topology.graph, w, lossy_ib_params(), nullptr);
    const auto packet = full_packet;
    // Messages 0 and 1 arrive interleaved (two slots), then message 2 (a freed one).
    CHECK_FALSE(t.receive(packet(0, 0)).completes);
    CHECK_FALSE(t.receive(packet(1, 0)).completes);
    CHECK(t.receive(packet(0, 1)).completes);
    CHECK(t.receive(packet(1, 1)).completes);
    CHECK_FALSE(t.receive(packet(2, 0)).completes);
    CHECK(t.receive(packet(2, 1)).completes);
    CHECK(t.receiver_slots() == 2);
    // Each message's ACKs are queued at the receiver; drain them, then send a late copy.
    const Delivery late = t.receive(packet(0, 1));
    CHECK_FALSE(late.completes);
    CHECK(t.counters().duplicate_packets == 1);
    REQUIRE(late.reply_channel != kNone);
    Packet last;
    bool sent_all = false;
    while (t.has_more(late.reply_channel))
        last = t.take_packet(late.reply_channel, Time::zero(), sent_all);
    CHECK(last.kind == PacketKind::Ack);
    CHECK(last.message == 0);
    CHECK(last.sequence == 2);  // every packet of message 0 is here
}

TEST_CASE("a sender numbers its packets and marks the one that carries the last byte",
          "[transport]") {
    const TestFabric f(small_ft2(4, 2));
    Workload w;
    w.add_message(MessageSpec{.src = 0, .dst = 1, .bytes = 2 * 4096 + 1, .start = Time::zero()});
    const NetworkParams p = ib_params();
    RdmaTransport t(f.topology.graph, w, p, nullptr);
    const std::uint32_t ch = t.enqueue(0);
    std::vector<Packet> sent;
    bool last = false;
    while (t.has_more(ch)) {
        CHECK(t.next_wire_bytes(ch) > p.header_bytes);
        sent.push_back(t.take_packet(ch, Time::zero(), last));
    }
    REQUIRE(sent.size() == 3);
    CHECK(last);
    for (std::uint32_t i = 0; i < 3; ++i) {
        CHECK(sent[i].sequence == i);
        CHECK(sent[i].src == 0);
        CHECK(sent[i].dst == 1);
        CHECK(sent[i].kind == PacketKind::Data);
    }
    CHECK(sent[2].payload_bytes == 1);
}

TEST_CASE(
    "a go-back-N receiver discards packets past a gap and NACKs it once -- a "
    "selective-repeat receiver places them and NACKs only the gap",
    "[transport]") {
    const TestFabric f(small_ft2(4, 2));
    Workload w;
    w.add_message(MessageSpec{.src = 0, .dst = 1, .bytes = 4 * 4096, .start = Time::zero()});
    auto packet = [](std::uint32_t seq) {
        Packet p;
        p.message = 0;
        p.sequence = seq;
        p.payload_bytes = 4096;
        return p;
    };
    for (const Retransmission mode : {Retransmission::GoBackN, Retransmission::SelectiveRepeat}) {
        NetworkParams params = ib_params();
        params.retransmission = mode;
        params.flow_control = FlowControl::Lossy;  // reliable connections run
        params.ack_every = 2;
        RdmaTransport t(f.topology.graph, w, params, nullptr);
        const bool gbn = mode == Retransmission::GoBackN;
        CHECK_FALSE(t.receive(packet(0)).completes);
        const Delivery gap = t.receive(packet(2));  // 1 is missing
        CHECK(gap.reply_channel != kNone);
        CHECK(t.receive(packet(3)).reply_channel == kNone);  // the gap is NACKed once
        CHECK(t.counters().nacks == 1);
        CHECK(t.counters().discarded_out_of_order == (gbn ? 2u : 0u));
        CHECK(t.bytes_received(0) == (gbn ? 4096u : 3 * 4096u));
        // The sender's answer to that NACK: resend from packet 1 (go-back-N), or packet 1 only.
        const std::uint32_t ch = t.enqueue(0);
        bool last = false;
        for (int i = 0; i < 4; ++i) (void)t.take_packet(ch, Time::zero(), last);
        bool acked_all = false;
        CHECK(t.on_control(nack_of(1), Time::zero(), acked_all) == ch);
        std::vector<std::uint32_t> resent;
        while (t.has_more(ch)) {
            const Packet p = t.take_packet(ch, Time::zero(), last);
            if (p.kind == PacketKind::Data) resent.push_back(p.sequence);
        }
        CHECK(resent ==
              (gbn ? std::vector<std::uint32_t>{1, 2, 3} : std::vector<std::uint32_t>{1}));
        CHECK(t.counters().retransmitted_packets == resent.size());
    }
}

TEST_CASE("an RC queue pair's local ACK timeout is 4.096 us x 2^exponent, none at 0",
          "[transport]") {
    NetworkParams p;
    CHECK(p.ack_timeout_exponent == 20);  // NCCL's and NVSHMEM's default
    CHECK(p.retry_count == 7);
    CHECK(p.ack_timeout() == Time::from_ps(4'294'967'296'000));  // 4.29 s
    p.ack_timeout_exponent = 1;
    CHECK(p.ack_timeout() == Time::from_ns(8192));
    p.ack_timeout_exponent = 31;
    CHECK(p.ack_timeout().seconds() == Approx(8796.09).epsilon(1e-5));
    p.ack_timeout_exponent = 0;
    CHECK(p.ack_timeout() == Time::never());
    // No timeout: no timer is armed at all.
    const TestFabric f(small_ft2(4, 2));
    Workload w;
    w.add_message(MessageSpec{.src = 0, .dst = 1, .bytes = 4096, .start = Time::zero()});
    NetworkParams lossy = lossy_ib_params();
    lossy.ack_timeout_exponent = 0;
    RdmaTransport t(f.topology.graph, w, lossy, nullptr);
    CHECK_FALSE(t.arm_timer(0, Time::zero()));
}

TEST_CASE(
    "ConnectX's adaptive timer starts short, doubles per timeout up to the queue pair's and "
    "fails only after ack timeout x retry count without progress",
    "[transport]") {
    const TestFabric f(small_ft2(4, 2));
    Workload w;
    w.add_message(MessageSpec{.src = 0, .dst = 1, .bytes = 8 * 4096, .start = Time::zero()});
    NetworkParams params = lossy_ib_params();
    params.ack_timeout_exponent = 4;  // 65.536 us
    params.retry_count = 2;
    params.adaptive_initial_timeout = Time::from_us(16);
    CHECK(params.first_timeout() == Time::from_us(16));
    RdmaTransport t(f.topology.graph, w, params, nullptr);
    const std::uint32_t ch = t.enqueue(0);
    bool last = false;
    (void)t.take_packet(ch, Time::zero(), last);
    REQUIRE(t.arm_timer(0, Time::zero()));
    Time next;
    // Early: not due yet, it says when.
    CHECK(t.on_timer(0, Time::from_us(10), next) == kNone);
    CHECK(next == Time::from_us(16));
    // Due at 16 us; then 32, 64 and capped at the queue pair's 65.536 us.
    std::vector<Time> gaps;
    Time now = Time::from_us(16);
    while (t.counters().connections_failed == 0) {
        (void)t.on_timer(0, now, next);
        if (next == Time::never()) break;
        gaps.push_back(next - now);
        now = next;
    }
    REQUIRE(gaps.size() >= 3);
    CHECK(gaps[0] == Time::from_us(32));
    CHECK(gaps[1] == Time::from_us(64));
    CHECK(gaps[2] == params.ack_timeout());
    // It fails once no progress came for 2 x 65.536 us, after more timeouts than the retry
    // count would allow the fixed timer.
    CHECK(t.counters().connections_failed == 1);
    CHECK(now >= Time::from_ps(2 * params.ack_timeout().ps()));
    CHECK(t.counters().timeouts > params.retry_count + 1);
}

TEST_CASE(
    "a queue pair past its retry limit fails once -- it leaves its NIC, arms no timer and "
    "ignores a late NACK",
    "[transport]") {
    const TestFabric f(small_ft2(4, 2));
    Workload w;
    w.add_message(MessageSpec{.src = 0, .dst = 1, .bytes = 8 * 4096, .start = Time::zero()});
    NetworkParams params = lossy_ib_params();
    RdmaTransport t(f.topology.graph, w, params, nullptr);
    const std::uint32_t ch = t.enqueue(0);
    bool last = false;
    (void)t.take_packet(ch, Time::zero(), last);  // one of eight sent
    REQUIRE(t.arm_timer(0, Time::zero()));
    // Every timeout without progress: the sender resends until the limit, then gives up.
    Time now = Time::zero(), next;
    for (std::uint32_t k = 0; k <= params.retry_count; ++k) {
        CHECK(t.counters().connections_failed == 0);
        now = now + params.ack_timeout();
        (void)t.on_timer(0, now, next);
    }
    CHECK(t.counters().timeouts == params.retry_count + 1);
    CHECK(t.counters().connections_failed == 1);
    CHECK(next == Time::never());      // no timer left
    CHECK_FALSE(t.has_more(ch));       // out of its NIC's round robin
    CHECK_FALSE(t.arm_timer(0, now));  // and none armed again
    // A NACK that arrives late does not bring it back, nor does a timer count it again.
    bool acked_all = false;
    CHECK(t.on_control(nack_of(0), now, acked_all) == kNone);
    CHECK_FALSE(t.has_more(ch));
    (void)t.on_timer(0, now + params.ack_timeout(), next);
    CHECK(t.counters().connections_failed == 1);
}
