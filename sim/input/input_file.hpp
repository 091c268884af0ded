#pragma once
// Opens a user's input file, or says in one line why it cannot (missing, unreadable, a folder,
// which an ifstream would otherwise open and read as empty, a device or FIFO, which would be
// read without end or block, or larger than the reader's cap).
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/input/input_error.hpp"

namespace clustersim {

/// `expected` completes "(expected ...)", e.g. "a readable YAML file".
inline std::ifstream open_input_file(const std::string& path, const std::string& what,
                                     const std::string& expected,
                                     std::uintmax_t max_bytes = std::uintmax_t{1} << 31) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw InputError(path, "is a folder, not " + what + " (expected " + expected + ")");
    const auto status = std::filesystem::status(path, ec);
    if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
        throw InputError(path, "is a device, pipe or socket, not " + what + " (expected " +
                                   expected + ")");
    if (const auto size = std::filesystem::file_size(path, ec); !ec && size > max_bytes)
        throw InputError(path, what + " has " + std::to_string(size) + " bytes (expected at most " +
                                   std::to_string(max_bytes) + ")");
    std::ifstream in(path);
    if (!in) throw InputError(path, "cannot open " + what + " (expected " + expected + ")");
    return in;
}

}  // namespace clustersim
