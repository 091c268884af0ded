#pragma once
// Link and bus rates in bits per second, and the one place where bytes become serialisation time.
#include <cstdint>

#include "sim/time.hpp"
#include "sim/wide_int.hpp"

namespace clustersim {

class DataRate {
  public:
    constexpr DataRate() = default;
    static constexpr DataRate from_bps(std::int64_t bps) { return DataRate(bps); }
    static constexpr DataRate from_gbps(double gbps) {
        return DataRate(static_cast<std::int64_t>(gbps * 1e9 + 0.5));
    }
    /// Bytes per second as vendors quote buses (GB = 10^9 B).
    static constexpr DataRate from_gigabytes_per_s(double gBps) { return from_gbps(gBps * 8.0); }

    constexpr std::int64_t bps() const { return bps_; }
    constexpr double gbps() const { return static_cast<double>(bps_) * 1e-9; }
    constexpr double gigabytes_per_s() const { return static_cast<double>(bps_) / 8e9; }
    /// Whole bytes sent in `t` at this rate (rounded up: a byte begun counts).
    constexpr std::int64_t bytes_in(Time t) const {
        const uint128 bits = static_cast<uint128>(t.ps()) * static_cast<uint128>(bps_);
        constexpr uint128 kBitsPerBytePs = static_cast<uint128>(8) * 1'000'000'000'000ULL;
        return static_cast<std::int64_t>((bits + kBitsPerBytePs - 1) / kBitsPerBytePs);
    }
    constexpr auto operator<=>(const DataRate&) const = default;

  private:
    constexpr explicit DataRate(std::int64_t bps) : bps_(bps) {}
    std::int64_t bps_ = 0;
};

/// Precomputed picoseconds per byte in 32.32 fixed point, rounded up, so that the per-packet
/// serialisation time is one multiply and shift instead of a division, is never early, and is
/// late by less than 1 ps + 2^-32 ps per byte.
class SerialisationClock {
  public:
    constexpr SerialisationClock() = default;
    constexpr explicit SerialisationClock(DataRate rate) {
        if (rate.bps() <= 0) return;
        const uint128 numerator = static_cast<uint128>(8'000'000'000'000ULL) << kFractionBits;
        const auto bps = static_cast<uint128>(rate.bps());
        // Fits 64 bits for any rate above ~2 kb/s; slower rates saturate (a link that never
        // finishes a packet, which the loader's range checks already exclude).
        const uint128 fixed = (numerator + bps - 1) / bps;
        fixed_ps_per_byte_ = fixed > UINT64_MAX ? UINT64_MAX : static_cast<std::uint64_t>(fixed);
    }
    constexpr Time time_for(std::uint64_t bytes) const {
        const uint128 scaled = static_cast<uint128>(bytes) * fixed_ps_per_byte_;
        return Time::from_ps(static_cast<std::int64_t>((scaled + kRoundUp) >> kFractionBits));
    }

  private:
    static constexpr unsigned kFractionBits = 32;
    static constexpr uint128 kRoundUp = (static_cast<uint128>(1) << kFractionBits) - 1;
    std::uint64_t fixed_ps_per_byte_ = 0;  // 32.32 fixed point: 8 bytes keeps the link record small
};

}  // namespace clustersim
