#pragma once
// Arithmetic in GF(q), q = p^n a prime power, for the Slim Fly (MMS) construction. Elements
// are the integers 0..q-1 (base-p digits = polynomial coefficients); multiplication goes through
// log/antilog tables of a primitive element.
#include <cstdint>
#include <optional>
#include <vector>

namespace clustersim {

class GaloisField {
  public:
    /// Nothing when q is not a prime power.
    static std::optional<GaloisField> make(std::uint32_t q);

    std::uint32_t order() const { return q_; }
    std::uint32_t characteristic() const { return p_; }
    std::uint32_t add(std::uint32_t a, std::uint32_t b) const;
    std::uint32_t neg(std::uint32_t a) const;
    std::uint32_t sub(std::uint32_t a, std::uint32_t b) const { return add(a, neg(b)); }
    std::uint32_t mul(std::uint32_t a, std::uint32_t b) const;
    /// xi^k for the primitive element xi.
    std::uint32_t power_of_primitive(std::uint32_t k) const { return exp_[k % (q_ - 1)]; }

  private:
    std::uint32_t p_ = 0, n_ = 0, q_ = 0;
    std::vector<std::uint32_t> exp_, log_;
};

/// p and n with q = p^n, or nothing.
std::optional<std::pair<std::uint32_t, std::uint32_t>> prime_power(std::uint32_t q);

}  // namespace clustersim
