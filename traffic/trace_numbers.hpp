#pragma once
// The numbers both trace readers (.cm and CSV) accept, so that one trace means the same in
// either: integers are plain decimal digits (no sign, exponent or fraction: `1e3` is refused by
// both), ids and byte counts at most 2^53 (exact in the double of a JSON or CSV reader
// downstream).
#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

namespace clustersim {

inline constexpr std::uint64_t kMaxTraceId = std::uint64_t{1} << 53;
inline constexpr std::uint64_t kMaxTraceBytes = std::uint64_t{1} << 53;

/// `text` as an integer of at most `max`, or nothing.
inline std::optional<std::uint64_t> trace_integer(std::string_view text, std::uint64_t max) {
    std::uint64_t v = 0;
    if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size() || v > max) return std::nullopt;
    return v;
}

}  // namespace clustersim
