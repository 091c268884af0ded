#pragma once
// Text from input must be valid UTF-8 before it reaches a JSON, HTML or CSV writer (nlohmann's
// dump throws on anything else). RFC 3629: no overlong forms, no surrogates, nothing past
// U+10FFFF.
#include <cstddef>
#include <string_view>

namespace clustersim {

/// Offset of the first byte that does not start a valid UTF-8 sequence, or npos.
inline std::size_t invalid_utf8_at(std::string_view text) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const auto continuation = [&](std::size_t i) {
        return i < text.size() && (byte(i) & 0xC0) == 0x80;
    };
    for (std::size_t i = 0; i < text.size();) {
        const unsigned char c = byte(i);
        std::size_t n = 0;
        unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
        if (c < 0x80) {
            ++i;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            if (c == 0xE0) lo = 0xA0;  // overlong
            if (c == 0xED) hi = 0x9F;  // surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            if (c == 0xF0) lo = 0x90;  // overlong
            if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
        } else {
            return i;
        }
        if (i + 1 >= text.size() || byte(i + 1) < lo || byte(i + 1) > hi) return i;
        for (std::size_t k = 2; k <= n; ++k)
            if (!continuation(i + k)) return i;
        i += n + 1;
    }
    return std::string_view::npos;
}

}  // namespace clustersim
