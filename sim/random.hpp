#pragma once
// Seeded random streams: one xoshiro256** stream per component, each derived from the scenario
// seed and a stream name/index with SplitMix64, so adding a component never shifts another's draws.
#include <cstdint>
#include <string_view>

#include "sim/wide_int.hpp"

namespace clustersim {

constexpr std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/// A stateless 64-bit mix (the SplitMix64 finaliser), for hashes such as ECMP.
constexpr std::uint64_t mix64(std::uint64_t x) {
    std::uint64_t s = x;
    return splitmix64(s);
}

constexpr std::uint64_t hash_name(std::string_view name) {
    std::uint64_t h = 0xCBF29CE484222325ULL;  // FNV-1a
    for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ULL;
    return h;
}

class RandomStream {
  public:
    using result_type = std::uint64_t;

    RandomStream(std::uint64_t seed, std::string_view stream, std::uint64_t index = 0) {
        std::uint64_t sm = seed ^ mix64(hash_name(stream) + index);
        for (auto& w : s_) w = splitmix64(sm);
    }

    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return ~result_type{0}; }

    result_type operator()() {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    /// Uniform integer in [0, n) without modulo bias worth measuring (Lemire's multiply-shift).
    std::uint64_t below(std::uint64_t n) {
        return static_cast<std::uint64_t>((static_cast<uint128>((*this)()) * n) >> 64);
    }
    /// Uniform double in [0, 1).
    double uniform() { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }

  private:
    static constexpr std::uint64_t rotl(std::uint64_t x, int k) {
        return (x << k) | (x >> (64 - k));
    }
    std::uint64_t s_[4]{};
};

}  // namespace clustersim
