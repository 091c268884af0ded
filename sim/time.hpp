#pragma once
// Simulated time as a strong type over integer picoseconds: exact, deterministic arithmetic and
// about 106 days of range, far beyond any run.
#include <compare>
#include <cstdint>
#include <limits>

namespace clustersim {

class Time {
  public:
    constexpr Time() = default;
    static constexpr Time from_ps(std::int64_t ps) { return Time(ps); }
    static constexpr Time from_ns(double ns) { return Time(round_to_ps(ns * 1e3)); }
    static constexpr Time from_us(double us) { return Time(round_to_ps(us * 1e6)); }
    static constexpr Time zero() { return Time(0); }
    static constexpr Time never() { return Time(std::numeric_limits<std::int64_t>::max()); }

    constexpr std::int64_t ps() const { return ps_; }
    constexpr double ns() const { return static_cast<double>(ps_) * 1e-3; }
    constexpr double us() const { return static_cast<double>(ps_) * 1e-6; }
    constexpr double ms() const { return static_cast<double>(ps_) * 1e-9; }
    constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }

    constexpr Time operator+(Time o) const { return Time(ps_ + o.ps_); }
    constexpr Time operator-(Time o) const { return Time(ps_ - o.ps_); }
    constexpr Time& operator+=(Time o) {
        ps_ += o.ps_;
        return *this;
    }
    constexpr auto operator<=>(const Time&) const = default;

  private:
    constexpr explicit Time(std::int64_t ps) : ps_(ps) {}
    static constexpr std::int64_t round_to_ps(double ps) {
        return static_cast<std::int64_t>(ps < 0 ? ps - 0.5 : ps + 0.5);
    }
    std::int64_t ps_ = 0;
};

}  // namespace clustersim
