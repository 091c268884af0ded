#include <catch2/catch.hpp>

#include <sstream>

#include "sim/input/input_error.hpp"
#include "support.hpp"
#include "traffic/message_csv.hpp"

using namespace clustersim;
using namespace clustersim::test;

TEST_CASE(
    "a CSV message list's 'after' column makes a message wait for others, then its "
    "start_us",
    "[trace][csv]") {
    std::istringstream in(
        "src,dst,bytes,start_us,id,after\n"
        "0,1,65536,0,10,\n"
        "2,3,65536,0,11,\n"
        "1,2,4096,1.5,12,10;11\n");
    const MessageList list = read_message_csv(in, "m.csv");
    REQUIRE(list.workload.messages.size() == 3);
    CHECK(list.workload.start_of(2) == Time::never());
    const TestFabric f(small_ft2(8, 4));
    const SimulationResult r = run(f, list.workload);
    REQUIRE(r.status == SimulationResult::Status::Completed);
    const Time both = std::max(r.messages[0].finished, r.messages[1].finished);
    CHECK(r.messages[2].started == both + Time::from_us(1.5));
}

TEST_CASE("'after' ids must exist, differ from the message and be unique", "[trace][csv][input]") {
    auto error = [](const std::string& text) {
        std::istringstream in(text);
        try {
            read_message_csv(in, "m.csv");
        } catch (const InputError& e) {
            return e.formatted();
        }
        return std::string("no error");
    };
    CHECK(error("src,dst,bytes,start_us,id,after\n0,1,64,0,1,7\n").find("m.csv:2:") == 0);
    CHECK(error("src,dst,bytes,start_us,id,after\n0,1,64,0,1,1\n").find("itself") !=
          std::string::npos);
    CHECK(error("src,dst,bytes,start_us,id,after\n0,1,64,0,1,\n1,0,64,0,1,1\n").find("twice") !=
          std::string::npos);
    CHECK(error("src,dst,bytes,start_us,after\n0,1,64,0,\n").find("'id' column") !=
          std::string::npos);
}
