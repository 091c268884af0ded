#pragma once
// Opens a user's input file, or says in one line why it cannot (missing, unreadable, or a
// folder, which an ifstream would otherwise open and read as empty).
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/input_error.hpp"

namespace clustersim {

/// `expected` completes "(expected ...)", e.g. "a readable YAML file".
inline std::ifstream open_input_file(const std::string& path, const std::string& what,
                                     const std::string& expected) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw InputError(path, "is a folder, not " + what + " (expected " + expected + ")");
    std::ifstream in(path);
    if (!in) throw InputError(path, "cannot open " + what + " (expected " + expected + ")");
    return in;
}

}  // namespace clustersim
