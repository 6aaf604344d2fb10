#pragma once
// The nerve-path delays of sfap::compute and its MUAP: each SFAP delayed by the FFT-defined
// fractional delay of the spec, as an exact real circular convolution with the kernel whose
// DFT is its phase ramp (physics.hpp, delay_kernel), then summed over fibers in fiber order.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "portasim/core/compat.hpp"
#include "portasim/core/counter_rng.hpp"
#include "portasim/core/error.hpp"
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
  // One team per (fiber, block of four electrodes): the block's integer-shifted series x'
  // (time-major, the block's electrodes fastest) and the fiber's kernel twice over
  // (cc[u] = c[u mod N'], so that c[(j - m) mod N'] = cc[j - m + N'] without a branch) go to
  // scratch. A thread sums four times j + q ceil(nt/4) of the four electrodes over m
  // ascending, so that each step loads four values of x' and four of cc for sixteen products,
  // and only over the rows m that the shift fills (the others are exact zeros and add
  // nothing). Each output is the same sum in the same order as one thread per output forms.
  constexpr int outputs = 4, electrodes = 4;
  const std::int64_t rows = (nt + outputs - 1) / outputs;
  const std::int64_t blocks = (ne + electrodes - 1) / electrodes;
  const std::size_t bytes =
      scratch_view::shmem_size(nt * electrodes) + scratch_view::shmem_size(2 * np);
  // A long series goes to level-1 scratch (device memory, through the caches), which has no
  // such bound as the shared memory of level 0.
  const int level = bytes <= static_cast<std::size_t>(team_policy::scratch_size_max(0)) ? 0 : 1;
  // A warp per 32 rows, at most 256 threads (longer series loop over their rows).
  const int team_size = static_cast<int>(rows < 256 ? (rows + 31) / 32 * 32 : 256);
  Kokkos::parallel_for(
      "portasim::sfap::delay",
      team_policy(exec, static_cast<int>(nf * blocks), team_size)
          .set_scratch_size(level, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const member& team) {
        const std::int64_t f = team.league_rank() / blocks;
        const std::int64_t e0 = team.league_rank() % blocks * electrodes;
        const scratch_view x(team.team_scratch(level), nt * electrodes),
            cc(team.team_scratch(level), 2 * np);
        const std::int64_t n = shift(f);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * np),
                             [&](const std::int64_t u) { cc(u) = kernel(f, u < np ? u : u - np); });
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nt * electrodes),
                             [&](const std::int64_t i) {
                               const std::int64_t m = i / electrodes, e = e0 + i % electrodes;
                               const std::int64_t src = shifted_source(m, n, nt);
                               x(i) = src >= 0 && e < ne ? S(src, e, f) : 0.0;
                             });
        team.team_barrier();
        const std::int64_t m0 = n < 0 ? 0 : (n > nt ? nt : n);
        const std::int64_t m1 = nt + n < 0 ? 0 : (nt + n > nt ? nt : nt + n);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](const std::int64_t row) {
          std::int64_t j[outputs];
          int lag[outputs];  // j - m0, the offset of cc(j - m + N') from cc(N' - m)
          double y[outputs][electrodes];
          PORTASIM_UNROLL
          for (int q = 0; q < outputs; ++q) {
            // An output past the series repeats the row's first and is never stored.
            j[q] = row + q * rows < nt ? row + q * rows : row;
            lag[q] = static_cast<int>(j[q] - m0);
            PORTASIM_UNROLL
            for (int e = 0; e < electrodes; ++e) y[q][e] = 0.0;
          }
          // Pointers that step with m, and 32-bit offsets: the loop's index arithmetic
          // would otherwise outweigh its products.
          const double* xm_row = x.data() + m0 * electrodes;
          const double* c_row = cc.data() + np;  // cc(N' - (m - m0)) at m
          for (int m = 0; m < static_cast<int>(m1 - m0); ++m, xm_row += electrodes, --c_row) {
            double xm[electrodes];
            PORTASIM_UNROLL
            for (int e = 0; e < electrodes; ++e) xm[e] = xm_row[e];
            PORTASIM_UNROLL
            for (int q = 0; q < outputs; ++q) {
              const double c = c_row[lag[q]];
              PORTASIM_UNROLL
              for (int e = 0; e < electrodes; ++e) y[q][e] += xm[e] * c;
            }
          }
          PORTASIM_UNROLL
          for (int q = 0; q < outputs; ++q) {
            PORTASIM_UNROLL
            for (int e = 0; e < electrodes; ++e)
              if (row + q * rows < nt && e0 + e < ne) out(j[q], e0 + e, f) = y[q][e];
          }
        });
      });
}

// muap(j, e) = sum over f of terms(j, e, f), f ascending (the order the MPI runs reproduce
// bit for bit). On a device a team of eight warps holds eight such rows: it stages their next
// 256 fibers in scratch, each thread one fiber of every row (a warp's loads are 32
// consecutive fibers of a row), and while eight threads add them in order the team's loads
// of the following 256 are already in flight. A thread that read its own row from device
// memory would wait for each load in turn; a unit has too few rows (N_t N_e) for that to fill
// the device.
template <class ExecutionSpace>
void sum_over_fibers(const ExecutionSpace& exec,
                     const Kokkos::View<const double***, Kokkos::LayoutRight,
                                        typename ExecutionSpace::memory_space>& terms,
                     const Matrix<typename ExecutionSpace::memory_space>& muap) {
  const std::int64_t nt = terms.extent(0), ne = terms.extent(1), nf = terms.extent(2);
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                           typename ExecutionSpace::memory_space>::accessible) {
    Kokkos::parallel_for(
        "portasim::sfap::muap", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nt * ne),
        KOKKOS_LAMBDA(const std::int64_t i) {
          const std::int64_t j = i / ne, e = i % ne;
          double sum = 0;
          for (std::int64_t f = 0; f < nf; ++f) sum += terms(j, e, f);
          muap(j, e) = sum;
        });
    return;
  }
  using team_policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using member = typename team_policy::member_type;
  using scratch_view =
      Kokkos::View<double*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  // An odd row stride in scratch, so that the summing threads' reads fall in different banks.
  constexpr int rows = 8, fibers = 256, stride = fibers + 1, threads = fibers;
  const std::int64_t n_rows = nt * ne;
  // Row (j, e) of the cube is values[(j ne + e) nf, ...): the result's cubes are contiguous.
  require(terms.span_is_contiguous(), "sfap: the MUAP's terms must be contiguous");
  const double* const values = terms.data();
  Kokkos::parallel_for(
      "portasim::sfap::muap",
      team_policy(exec, static_cast<int>((n_rows + rows - 1) / rows), threads)
          .set_scratch_size(0, Kokkos::PerTeam(scratch_view::shmem_size(rows * stride))),
      KOKKOS_LAMBDA(const member& team) {
        const scratch_view tile(team.team_scratch(0), rows * stride);
        const std::int64_t row0 = static_cast<std::int64_t>(team.league_rank()) * rows;
        const int rank = team.team_rank();
        // This thread's value of fiber f0 + rank in each of the team's rows.
        double v[rows];
        const auto load = [&](const std::int64_t f0) {
          PORTASIM_UNROLL
          for (int r = 0; r < rows; ++r)
            v[r] = row0 + r < n_rows && f0 + rank < nf ? values[(row0 + r) * nf + f0 + rank] : 0.0;
        };
        load(0);
        double sum = 0;
        for (std::int64_t f0 = 0; f0 < nf; f0 += fibers) {
          PORTASIM_UNROLL
          for (int r = 0; r < rows; ++r) tile(r * stride + rank) = v[r];
          team.team_barrier();
          if (f0 + fibers < nf) load(f0 + fibers);
          const int n = static_cast<int>(nf - f0 < fibers ? nf - f0 : fibers);
          if (rank < rows)
            for (int c = 0; c < n; ++c) sum += tile(rank * stride + c);
          team.team_barrier();
        }
        if (rank < rows && row0 + rank < n_rows) muap((row0 + rank) / ne, (row0 + rank) % ne) = sum;
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
  const std::int64_t nt = res.nt, nf = res.n_fibers;
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
  sum_over_fibers(exec, Kokkos::View<const double***, Kokkos::LayoutRight, MemorySpace>(terms),
                  res.muap);
}

}  // namespace portasim::sfap::impl
