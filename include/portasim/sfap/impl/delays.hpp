#pragma once
// The nerve-path delays of sfap::compute and its MUAP: each SFAP delayed by the FFT-defined
// fractional delay of the spec, as an exact real circular convolution with the kernel whose
// DFT is its phase ramp (physics.hpp, delay_kernel), then summed over fibers in fiber order.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "portasim/core/compat.hpp"
#include "portasim/core/counter_rng.hpp"
#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/impl/batch_pool.hpp"
#include "portasim/sfap/impl/host_kernels.hpp"
#include "portasim/sfap/impl/projection.hpp"
#include "portasim/sfap/physics.hpp"

namespace portasim::sfap::impl {

// Delay kernels c_f[u] (N_fibers, N') and integer shifts.
template <class ExecutionSpace>
void delay_kernels(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& delay_samples,
    const Matrix<typename ExecutionSpace::memory_space>& kernel,
    const Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space>& shift,
    bool split_integer) {
  const std::int64_t nf = kernel.extent(0), np = kernel.extent(1);
  Kokkos::parallel_for(
      "portasim::sfap::delay_kernels", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nf * np),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const std::int64_t f = i / np, u = i % np;
        const DelaySplit delay = split_delay(delay_samples(f), split_integer);
        kernel(f, u) = delay_kernel(u, delay.phase, np);
        if (u == 0) shift(f) = delay.shift;
      });
}

template <class ExecutionSpace>
void apply_delays(
    const ExecutionSpace& exec,
    const Kokkos::View<const double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>&
        S,
    const Matrix<typename ExecutionSpace::memory_space>& kernel,
    const Kokkos::View<const std::int64_t*, typename ExecutionSpace::memory_space>& shift,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>&
        out) {
  using team_policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using member = typename team_policy::member_type;
  using scratch_view =
      Kokkos::View<double*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                           typename ExecutionSpace::memory_space>::accessible) {
    apply_delays_on_host(exec, S, kernel, shift, out);
    return;
  }
  const std::int64_t nt = S.extent(0), ne = S.extent(1), nf = S.extent(2), np = kernel.extent(1);
  // One team per (fiber, electrode): the integer-shifted series x' and the fiber's kernel twice
  // over (cc[u] = c[u mod N'], so that c[(j - m) mod N'] = cc[j - m + N'] without a branch) go
  // to scratch. A thread sums four outputs, j + q ceil(nt/4), over m ascending, so that each
  // load of x'(m) serves four independent sums, and only over the rows m that the shift
  // fills (the others are exact zeros and add nothing).
  constexpr int outputs = 4;
  const std::int64_t rows = (nt + outputs - 1) / outputs;
  const std::size_t bytes = scratch_view::shmem_size(nt) + scratch_view::shmem_size(2 * np);
  // A long series goes to level-1 scratch (device memory, through the caches), which has no
  // such bound as the shared memory of level 0.
  const int level = bytes <= static_cast<std::size_t>(team_policy::scratch_size_max(0)) ? 0 : 1;
  Kokkos::parallel_for(
      "portasim::sfap::delay",
      team_policy(exec, static_cast<int>(nf * ne), Kokkos::AUTO)
          .set_scratch_size(level, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const member& team) {
        const std::int64_t f = team.league_rank() / ne, e = team.league_rank() % ne;
        const scratch_view x(team.team_scratch(level), nt), cc(team.team_scratch(level), 2 * np);
        const std::int64_t n = shift(f);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * np), [&](const std::int64_t u) {
          cc(u) = kernel(f, u < np ? u : u - np);
          if (u < nt) {
            const std::int64_t src = shifted_source(u, n, nt);
            x(u) = src >= 0 ? S(src, e, f) : 0.0;
          }
        });
        team.team_barrier();
        const std::int64_t m0 = n < 0 ? 0 : (n > nt ? nt : n);
        const std::int64_t m1 = nt + n < 0 ? 0 : (nt + n > nt ? nt : nt + n);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](const std::int64_t row) {
          std::int64_t j[outputs];
          double y[outputs];
          PORTASIM_UNROLL
          for (int q = 0; q < outputs; ++q) {
            // An output past the series repeats the row's first and is never stored.
            j[q] = row + q * rows < nt ? row + q * rows : row;
            y[q] = 0.0;
          }
          for (std::int64_t m = m0; m < m1; ++m) {
            const double xm = x(m);
            PORTASIM_UNROLL
            for (int q = 0; q < outputs; ++q) y[q] += xm * cc(j[q] - m + np);
          }
          PORTASIM_UNROLL
          for (int q = 0; q < outputs; ++q)
            if (row + q * rows < nt) out(j[q], e, f) = y[q];
        });
      });
}

// The post-shift SFAPs (nerve-path delays), the jittered ones where asked, and the MUAP, into
// the result's arrays, which compute allocated before it queued any work.
template <class ExecutionSpace>
void add_delays_and_muap(const ExecutionSpace& exec,
                         const Inputs<typename ExecutionSpace::memory_space>& in, const Options& o,
                         double dt, std::int64_t first_fiber,
                         Result<typename ExecutionSpace::memory_space>& res) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  const std::int64_t nt = res.nt, ne = res.n_electrodes, nf = res.n_fibers;
  const std::int64_t np = odd_length(nt);
  const auto samples_block = call_temporary<double>(exec, nf, "sfap_delay_samples");
  const Kokkos::View<double*, MemorySpace> delay_samples = samples_block.view;
  {
    const auto paths = in.nerve_paths;
    const auto delays_s = res.delays_s;
    const double v0 = o.nmj_velocity_0, v1 = o.nmj_velocity_1;
    Kokkos::parallel_for(
        "portasim::sfap::nerve_delays", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nf),
        KOKKOS_LAMBDA(const std::int64_t f) {
          const double delay = paths(f, 0) / v0 + paths(f, 1) / v1;
          delays_s(f) = delay;
          delay_samples(f) = delay / dt;
        });
  }
  const auto kernel_block = call_temporary<double>(exec, nf * np, "sfap_delay_kernel");
  const Matrix<MemorySpace> kernel(kernel_block.view.data(), nf, np);
  const auto shift_block = call_temporary<std::int64_t>(exec, nf, "sfap_delay_shift");
  const Kokkos::View<std::int64_t*, MemorySpace> shift = shift_block.view;
  delay_kernels(exec, Kokkos::View<const double*, MemorySpace>(delay_samples), kernel, shift, true);
  apply_delays(exec,
               Kokkos::View<const double***, Kokkos::LayoutRight, MemorySpace>(res.sfaps_pre_shift),
               kernel, Kokkos::View<const std::int64_t*, MemorySpace>(shift), res.sfaps_post_shift);

  // ---- MUAP: the sum over fibers, in fiber order, of the post-shift SFAPs, or with jitter of
  // the jittered SFAPs (a further N(0, sd)/dt samples per fiber through the same FFT-defined
  // delay). Jittered SFAPs are kept as their own cube so that a rank of a split run hands the
  // same per-fiber terms to the ordered MUAP reduction (distributed::gather_result) as a
  // single rank sums here.
  auto terms = res.sfaps_post_shift;
  if (o.jitter_sd_s > 0) {
    const double scale = o.jitter_sd_s / dt;
    const std::uint64_t seed = o.jitter_seed;
    Kokkos::parallel_for(
        "portasim::sfap::jitter_draws", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nf),
        KOKKOS_LAMBDA(const std::int64_t f) {
          // hr_shift_template(x, jitter): earlier by the draw, i.e. a delay of -jitter samples.
          delay_samples(f) =
              -counter_normal(seed, static_cast<std::uint64_t>(first_fiber + f), 0) * scale;
        });
    delay_kernels(exec, Kokkos::View<const double*, MemorySpace>(delay_samples), kernel, shift,
                  false);
    apply_delays(
        exec, Kokkos::View<const double***, Kokkos::LayoutRight, MemorySpace>(res.sfaps_post_shift),
        kernel, Kokkos::View<const std::int64_t*, MemorySpace>(shift), res.sfaps_jittered);
    terms = res.sfaps_jittered;
  }
  const auto muap = res.muap;
  Kokkos::parallel_for(
      "portasim::sfap::muap", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nt * ne),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const std::int64_t j = i / ne, e = i % ne;
        double sum = 0;
        for (std::int64_t f = 0; f < nf; ++f) sum += terms(j, e, f);
        muap(j, e) = sum;
      });
}

}  // namespace portasim::sfap::impl
