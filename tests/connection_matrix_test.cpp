#include <catch2/catch.hpp>

#include <sstream>

#include "sim/input/input_error.hpp"
#include "support.hpp"
#include "traffic/connection_matrix.hpp"
#include "traffic/message_csv.hpp"

using namespace clustersim;
using namespace clustersim::test;

namespace {
ConnectionMatrix parse(const std::string& text) {
    std::istringstream in(text);
    return read_connection_matrix(in, "test.cm");
}
InputError parse_error(const std::string& text) {
    try {
        parse(text);
    } catch (const InputError& e) {
        return e;
    }
    FAIL("expected an InputError");
    return InputError("", "");
}
}  // namespace

TEST_CASE("connection matrix: header, connections, comments and triggers", "[trace]") {
    const auto cm = parse(
        "# a comment\n"
        "Nodes 4\n"
        "Connections 3\n"
        "Triggers 1\n"
        "0->1 id 1 start 0 size 1000 send_done_trigger 1\n"
        "\n"
        "2->3 id 2 trigger 1 size 2000\n"
        "1->2 id 3 start 1500000 size 3000 prio 2 recv_done_trigger 1\n"
        "trigger id 1 barrier count 2\n");
    CHECK(cm.nodes == 4);
    REQUIRE(cm.workload.messages.size() == 3);
    CHECK(cm.workload.messages[0].bytes == 1000);
    CHECK(cm.workload.start_of(2) == Time::from_us(1.5));
    CHECK(cm.workload.start_of(1) == Time::never());
    REQUIRE(cm.workload.joins.size() == 1);
    CHECK(cm.workload.joins[0].kind == JoinKind::All);
    CHECK(cm.workload.joins[0].count == 2);
    // The trigger is a join: message 0 sent and message 2 received feed it; it starts message 1.
    const TaskRef join{TaskKind::Join, 0};
    const std::vector<Dependency> expected = {{{TaskKind::Transfer, 0}, Completion::Sent, join},
                                              {join, Completion::Done, {TaskKind::Transfer, 1}},
                                              {{TaskKind::Transfer, 2}, Completion::Done, join}};
    REQUIRE(cm.workload.dependencies.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CHECK(cm.workload.dependencies[i].from == expected[i].from);
        CHECK(cm.workload.dependencies[i].on == expected[i].on);
        CHECK(cm.workload.dependencies[i].to == expected[i].to);
    }
}

TEST_CASE("connection matrix: malformed lines are input errors with their line and column",
          "[trace]") {
    auto e = parse_error("Nodes 4\nConnections 1\n0->1 start 0 size 10 colour blue\n");
    CHECK(e.line() == 3);
    CHECK(e.column() == 22);
    CHECK(std::string(e.what()).find("unknown token 'colour'") != std::string::npos);

    e = parse_error("Nodes 4\nConnections 1\n0->9 start 0 size 10\n");
    CHECK(e.line() == 3);
    CHECK(std::string(e.what()).find("Nodes 4") != std::string::npos);

    e = parse_error("Nodes 4\nConnections 1\n0->1 start 0 size x\n");
    CHECK(e.column() == 19);

    e = parse_error("Nodes 4\nConnections 2\n0->1 start 0 size 10\n");
    CHECK(std::string(e.what()).find("declared") != std::string::npos);

    e = parse_error("Nodes 4\nConnections 1\nFailures 1\n0->1 start 0 size 10\n");
    CHECK(e.line() == 3);
    CHECK(std::string(e.what()).find("not supported") != std::string::npos);

    e = parse_error("Nodes 4\nConnections 1\n0->1 trigger 5 size 10\n");
    CHECK(std::string(e.what()).find("never defined") != std::string::npos);

    e = parse_error("Nodes 4\nConnections 1\n0->1 size 10\n");
    CHECK(std::string(e.what()).find("no start") != std::string::npos);

    // Values that would overflow 64-bit picoseconds or wrap a 32-bit node index.
    e = parse_error("Nodes 4\nConnections 1\n0->1 start 9223372036854775000 size 10\n");
    CHECK(e.column() == 12);
    CHECK(std::string(e.what()).find("from 0 to 1e18") != std::string::npos);
    e = parse_error("Nodes 4\nConnections 1\n4294967297->1 start 0 size 10\n");
    CHECK(std::string(e.what()).find("not below Nodes 4") != std::string::npos);
    e = parse_error("Nodes 4\nConnections 1\n0->1 start 0 size 18446744073709551615\n");
    CHECK(std::string(e.what()).find("from 0 to 9007199254740992") != std::string::npos);
    e = parse_error(
        "Nodes 4\nConnections 1\nTriggers 1\n0->1 trigger 1 size 10\n"
        "trigger id 1 barrier count 4294967297\n");
    CHECK(e.line() == 5);
    CHECK(std::string(e.what()).find("count too large") != std::string::npos);
}

TEST_CASE("a trigger chain runs in order: each message starts when the previous one lands",
          "[trace][physics]") {
    // 0->1, then 1->2 on a oneshot trigger, then 2->3 on a barrier of 2 (recv of the second,
    // send-done of the first), then a multishot fired twice starts two messages one by one.
    const auto cm = parse(
        "Nodes 8\nConnections 6\nTriggers 4\n"
        "0->1 id 1 start 0 size 100000 recv_done_trigger 1 send_done_trigger 2\n"
        "1->2 id 2 trigger 1 size 100000 recv_done_trigger 2\n"
        "2->3 id 3 trigger 2 size 100000 recv_done_trigger 3\n"
        "3->4 id 4 trigger 3 size 100000 recv_done_trigger 4\n"
        "4->5 id 5 trigger 4 size 1000 recv_done_trigger 4\n"
        "5->6 id 6 trigger 4 size 1000\n"
        "trigger id 1 oneshot\n"
        "trigger id 2 barrier count 2\n"
        "trigger id 3 oneshot\n"
        "trigger id 4 multishot\n");
    const TestFabric f(small_ft2(4, 8));
    const SimulationResult r = run(f, cm.workload);
    REQUIRE(r.status == SimulationResult::Status::Completed);
    const auto& m = r.messages;
    CHECK(m[1].started == m[0].finished);
    CHECK(m[2].started == m[1].finished);  // after m[0]'s send-done, which came long before
    CHECK(m[3].started == m[2].finished);
    CHECK(m[4].started == m[3].finished);  // multishot: first activation starts the first target
    CHECK(m[5].started == m[4].finished);  // second activation starts the second
    for (std::size_t i = 1; i < m.size(); ++i) CHECK(m[i].started > m[i - 1].started);
}

TEST_CASE("message CSV: rows become messages -- out-of-range values are input errors with a column",
          "[trace]") {
    std::istringstream ok("src,dst,bytes,start_us,id\n0,3,4096,1.5,7\n2,1,10,0,8\n");
    const MessageList list = read_message_csv(ok, "m.csv");
    REQUIRE(list.workload.messages.size() == 2);
    CHECK(list.nodes == 4);
    CHECK(list.workload.start_of(0) == Time::from_ns(1500));
    CHECK(list.workload.label_of(0) == 7);

    const auto error_of = [](const std::string& text) -> std::string {
        std::istringstream in(text);
        try {
            read_message_csv(in, "m.csv");
        } catch (const InputError& e) {
            return std::to_string(e.line()) + ":" + std::to_string(e.column()) + " " + e.what();
        }
        return "no error";
    };
    const std::string header = "src,dst,bytes,start_us\n";
    CHECK(error_of(header + "1e12,1,10,0\n").starts_with("2:1 "));  // node index wraps
    CHECK(error_of(header + "0,1,1e30,0\n").find("bytes") != std::string::npos);
    CHECK(error_of(header + "0,1,10,1e13\n").find("start_us") != std::string::npos);  // > 11 days
    CHECK(error_of(header + "0,1,10,-1\n").starts_with("2:8 "));
}

TEST_CASE("the .cm and CSV readers accept the same numbers -- digits only, ids and sizes to 2^53",
          "[trace][csv][input]") {
    // Each reader's verdict on one value, written as that reader's field.
    const auto cm = [](const std::string& id, const std::string& size) {
        std::istringstream in("Nodes 4\nConnections 1\n0->1 id " + id + " start 0 size " + size +
                              "\n");
        try {
            (void)read_connection_matrix(in, "t.cm");
            return true;
        } catch (const InputError&) {
            return false;
        }
    };
    const auto csv = [](const std::string& id, const std::string& size) {
        std::istringstream in("src,dst,bytes,start_us,id\n0,1," + size + ",0," + id + "\n");
        try {
            (void)read_message_csv(in, "t.csv");
            return true;
        } catch (const InputError&) {
            return false;
        }
    };
    const std::string max = "9007199254740992";  // 2^53
    for (const auto& [id, size, ok] : std::vector<std::tuple<std::string, std::string, bool>>{
             {"1", "1000", true},
             {max, max, true},
             {"9007199254740993", "1000", false},      // an id past 2^53
             {"18446744073709551615", "1000", false},  // 2^64 - 1: the .cm reader took it
             {"1", "1e3", false},                      // the CSV reader took it
             {"1", "1000.0", false},
             {"1", "+1000", false},
             {"1", "9007199254740993", false}}) {
        INFO("id " << id << ", size " << size);
        CHECK(cm(id, size) == ok);
        CHECK(csv(id, size) == ok);
    }
}
