#include "topologies/galois_field.hpp"

namespace clustersim {

std::optional<std::pair<std::uint32_t, std::uint32_t>> prime_power(std::uint32_t q) {
    if (q < 2) return std::nullopt;
    std::uint32_t p = 2;
    while (p * p <= q && q % p != 0) ++p;
    if (q % p != 0) p = q;  // q is prime
    std::uint32_t n = 0, r = q;
    while (r % p == 0) {
        r /= p;
        ++n;
    }
    if (r != 1) return std::nullopt;
    return std::make_pair(p, n);
}

std::uint32_t GaloisField::add(std::uint32_t a, std::uint32_t b) const {
    std::uint32_t out = 0, scale = 1;
    for (std::uint32_t i = 0; i < n_; ++i) {
        out += ((a % p_ + b % p_) % p_) * scale;
        a /= p_;
        b /= p_;
        scale *= p_;
    }
    return out;
}

std::uint32_t GaloisField::neg(std::uint32_t a) const {
    std::uint32_t out = 0, scale = 1;
    for (std::uint32_t i = 0; i < n_; ++i) {
        out += ((p_ - a % p_) % p_) * scale;
        a /= p_;
        scale *= p_;
    }
    return out;
}

std::uint32_t GaloisField::mul(std::uint32_t a, std::uint32_t b) const {
    if (a == 0 || b == 0) return 0;
    return exp_[(log_[a] + log_[b]) % (q_ - 1)];
}

std::optional<GaloisField> GaloisField::make(std::uint32_t q) {
    const auto pp = prime_power(q);
    if (!pp) return std::nullopt;
    GaloisField f;
    f.p_ = pp->first;
    f.n_ = pp->second;
    f.q_ = q;
    const std::uint32_t p = f.p_, n = f.n_;
    // Multiply a polynomial (base-p digits) by x modulo the monic polynomial x^n + low(x),
    // where `low` is encoded like an element: x^n = -low(x).
    auto times_x = [&](std::uint32_t a, std::uint32_t low) {
        std::vector<std::uint32_t> c(n + 1, 0);
        for (std::uint32_t i = 0; i < n; ++i) {
            c[i + 1] = a % p;
            a /= p;
        }
        const std::uint32_t top = c[n];
        std::uint32_t out = 0, scale = 1;
        std::uint32_t l = low;
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t li = l % p;
            l /= p;
            out += ((c[i] + (p - (top * li) % p)) % p) * scale;
            scale *= p;
        }
        return out;
    };
    // For n = 1 the "polynomial" is a residue and x is replaced by a candidate generator g.
    for (std::uint32_t cand = 1; cand < q; ++cand) {
        std::vector<std::uint32_t> exp(q - 1);
        std::vector<bool> seen(q, false);
        std::uint32_t v = 1;
        bool primitive = true;
        for (std::uint32_t k = 0; k < q - 1; ++k) {
            if (seen[v] || v == 0) {
                primitive = false;
                break;
            }
            seen[v] = true;
            exp[k] = v;
            v = n == 1 ? (v * cand) % p : times_x(v, cand);
        }
        if (!primitive || v != 1) continue;
        f.exp_ = std::move(exp);
        f.log_.assign(q, 0);
        for (std::uint32_t k = 0; k < q - 1; ++k) f.log_[f.exp_[k]] = k;
        return f;
    }
    return std::nullopt;
}

}  // namespace clustersim
