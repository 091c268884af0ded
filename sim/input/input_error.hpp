#pragma once
// A user's input is wrong: the one-line report `FILE:LINE:COL: key.path: message` (or
// `FILE: message` where there is no position), and exit code 2. Whatever the input holds, the
// report stays one printable line: control and non-ASCII bytes are escaped (\n, \xHH) and each
// part is cut to a few hundred characters.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace clustersim {

class InputError : public std::runtime_error {
  public:
    InputError(std::string file, std::uint32_t line, std::uint32_t column, std::string key,
               const std::string& message)
        : std::runtime_error(message),
          message_(message),
          file_(std::move(file)),
          line_(line),
          column_(column),
          key_(std::move(key)) {}
    InputError(std::string file, const std::string& message)
        : InputError(std::move(file), 0, 0, {}, message) {}

    /// `text` as one printable line of at most `limit` characters.
    static std::string printable(const std::string& text, std::size_t limit = 300) {
        static constexpr char kHex[] = "0123456789abcdef";
        std::string out;
        for (const char ch : text) {
            if (out.size() >= limit) {
                out.append("...");
                break;
            }
            const auto c = static_cast<unsigned char>(ch);
            if (c == '\n') {
                out.append("\\n");
            } else if (c == '\t') {
                out.append("\\t");
            } else if (c < 0x20 || c >= 0x7f) {
                out.append("\\x").push_back(kHex[c >> 4]);
                out.push_back(kHex[c & 15]);
            } else {
                out.push_back(ch);
            }
        }
        return out;
    }

    /// The single line shown to the user.
    std::string formatted() const {
        // Built by append: GCC 12 misfires -Wrestrict on `":" + std::string` once inlined.
        std::string out = printable(file_);
        if (line_ > 0)
            out.append(":")
                .append(std::to_string(line_))
                .append(":")
                .append(std::to_string(column_));
        out.append(": ");
        if (!key_.empty()) out.append(printable(key_)).append(": ");
        out.append(printable(message_, 600));  // not what(): it would stop at a NUL
        return out;
    }
    const std::string& file() const { return file_; }
    std::uint32_t line() const { return line_; }
    std::uint32_t column() const { return column_; }
    const std::string& key() const { return key_; }

  private:
    std::string message_;
    std::string file_;
    std::uint32_t line_ = 0, column_ = 0;
    std::string key_;
};

}  // namespace clustersim
