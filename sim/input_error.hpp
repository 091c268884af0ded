#pragma once
// A user's input is wrong: the one-line report `FILE:LINE:COL: key.path: message` (or
// `FILE: message` where there is no position), and exit code 2.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace clustersim {

class InputError : public std::runtime_error {
  public:
    InputError(std::string file, std::uint32_t line, std::uint32_t column, std::string key,
               const std::string& message)
        : std::runtime_error(message),
          file_(std::move(file)),
          line_(line),
          column_(column),
          key_(std::move(key)) {}
    InputError(std::string file, const std::string& message)
        : InputError(std::move(file), 0, 0, {}, message) {}

    /// The single line shown to the user.
    std::string formatted() const {
        // Built by append: GCC 12 misfires -Wrestrict on `":" + std::string` once inlined.
        std::string out = file_;
        if (line_ > 0)
            out.append(":")
                .append(std::to_string(line_))
                .append(":")
                .append(std::to_string(column_));
        out.append(": ");
        if (!key_.empty()) out.append(key_).append(": ");
        out.append(what());
        return out;
    }
    const std::string& file() const { return file_; }
    std::uint32_t line() const { return line_; }
    std::uint32_t column() const { return column_; }
    const std::string& key() const { return key_; }

  private:
    std::string file_;
    std::uint32_t line_ = 0, column_ = 0;
    std::string key_;
};

}  // namespace clustersim
