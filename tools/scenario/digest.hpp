#pragma once
// FNV-1a, 64 bits, over length-prefixed parts, so that no two different lists of parts spell
// the same bytes: the names of sweep point records and of step store entries.
#include <cstdint>
#include <string>
#include <string_view>

namespace clustersim {

class Digest {
  public:
    void part(std::string_view text) {
        bytes(std::to_string(text.size()) + ":");
        bytes(text);
    }
    void bytes(std::string_view text) {
        for (const char c : text) {
            h_ ^= static_cast<unsigned char>(c);
            h_ *= 0x100000001b3ull;
        }
    }
    std::uint64_t value() const { return h_; }

  private:
    std::uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace clustersim
