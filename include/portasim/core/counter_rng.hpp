#pragma once
// Counter-based random numbers (Philox4x32-10, Salmon et al., SC'11; the generator behind
// cuRAND's and NumPy's Philox): a pure function of (seed, stream, counter), so that every
// backend, thread layout and chunking draws the same numbers with no generator state to
// carry. The integer outputs are bit-identical everywhere; the normal transform goes through
// log/sqrt/cos and may differ between CPU and GPU libraries in the last bits.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "portasim/core/compat.hpp"

namespace portasim {

struct Philox4x32 {
  std::uint32_t v[4];
};

namespace impl {
KOKKOS_INLINE_FUNCTION void mul_hi_lo(std::uint32_t a, std::uint32_t b, std::uint32_t& hi,
                                      std::uint32_t& lo) {
  const std::uint64_t product = static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b);
  hi = static_cast<std::uint32_t>(product >> 32);
  lo = static_cast<std::uint32_t>(product);
}
}  // namespace impl

// Ten rounds of Philox4x32 on counter (stream, counter) under key `seed`.
KOKKOS_INLINE_FUNCTION Philox4x32 philox4x32(std::uint64_t seed, std::uint64_t stream,
                                             std::uint64_t counter) {
  std::uint32_t c0 = static_cast<std::uint32_t>(counter),
                c1 = static_cast<std::uint32_t>(counter >> 32);
  std::uint32_t c2 = static_cast<std::uint32_t>(stream),
                c3 = static_cast<std::uint32_t>(stream >> 32);
  std::uint32_t k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    std::uint32_t hi0, lo0, hi1, lo1;
    impl::mul_hi_lo(0xD2511F53u, c0, hi0, lo0);
    impl::mul_hi_lo(0xCD9E8D57u, c2, hi1, lo1);
    const std::uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return Philox4x32{{c0, c1, c2, c3}};
}

// Uniform double in [0, 1) from 53 random bits.
KOKKOS_INLINE_FUNCTION double uniform_from_bits(std::uint32_t high, std::uint32_t low) {
  const std::uint64_t bits = (static_cast<std::uint64_t>(high) << 21) ^ (low >> 11);
  return static_cast<double>(bits & ((std::uint64_t(1) << 53) - 1)) * 0x1.0p-53;
}

KOKKOS_INLINE_FUNCTION double counter_uniform(std::uint64_t seed, std::uint64_t stream,
                                              std::uint64_t counter) {
  const Philox4x32 r = philox4x32(seed, stream, counter);
  return uniform_from_bits(r.v[0], r.v[1]);
}

// Standard normal by Box-Muller from one Philox block.
KOKKOS_INLINE_FUNCTION double counter_normal(std::uint64_t seed, std::uint64_t stream,
                                             std::uint64_t counter) {
  namespace m = compat::math;
  const Philox4x32 r = philox4x32(seed, stream, counter);
  const double u1 = 1.0 - uniform_from_bits(r.v[0], r.v[1]);  // (0, 1]: log stays finite
  const double u2 = uniform_from_bits(r.v[2], r.v[3]);
  return m::sqrt(-2.0 * m::log(u1)) * m::cos(6.283185307179586 * u2);
}

}  // namespace portasim
