// libFuzzer target: any bytes as a CSV message list. The reader must return the messages or
// throw an InputError; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "sim/input/input_error.hpp"
#include "traffic/message_csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
        (void)clustersim::read_message_csv(in, "fuzz/messages.csv");
    } catch (const clustersim::InputError& e) {
        if (e.formatted().find('\n') != std::string::npos) std::abort();  // one line, always
    }
    return 0;
}
