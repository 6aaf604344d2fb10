// Experiment (not part of portasim): the library's axis sums timed the way axis_probe.cu
// times raw CUDA (20 calls between two events on the instance's stream), plus the host's
// enqueue time per call.
#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <algorithm>

#include "portasim/core/instance_pool.hpp"
#include "portasim/toolkit/reduction.hpp"

namespace tk = portasim::toolkit;
using Exec = Kokkos::Cuda;


template <bool UseView>
struct KRows {
  using member_type = Kokkos::TeamPolicy<Kokkos::Cuda, Kokkos::LaunchBounds<1024, 2>>::member_type;
  const float* x;
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::CudaSpace, Kokkos::MemoryUnmanaged> m;
  std::size_t len;
  int segs;
  std::size_t seglen;
  float* partials;
  KOKKOS_INLINE_FUNCTION float at(std::size_t k, std::size_t i) const { return UseView ? m(k, i) : x[k * len + i]; }
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& t) const {
    const int l = t.league_rank(), k = l / segs, s = l % segs;
    const std::size_t b0 = std::size_t(s) * seglen;
    const std::size_t begin = b0 < len ? b0 : len, end = begin + seglen < len ? begin + seglen : len;
    const std::size_t stride = std::size_t(t.team_size());
    std::size_t i = begin + std::size_t(t.team_rank());
    float acc = 0;
    for (; i + 3 * stride < end; i += 4 * stride) {
      const float a = at(k, i), b = at(k, i + stride), c = at(k, i + 2 * stride), d = at(k, i + 3 * stride);
      acc += (a + b) + (c + d);
    }
    for (; i < end; i += stride) acc += at(k, i);
    float total = 0;
    Kokkos::parallel_reduce(Kokkos::TeamThreadRange(t, t.team_size()), [&](int, float& v) { v += acc; }, total);
    float* const p = partials;
    Kokkos::single(Kokkos::PerTeam(t), [&]() { p[std::size_t(k) * segs + s] = total; });
  }
};


template <int Loads, unsigned MinBlocks>
struct KRowsN {
  using member_type = typename Kokkos::TeamPolicy<Kokkos::Cuda, Kokkos::LaunchBounds<1024, MinBlocks>>::member_type;
  const float* x;
  std::size_t len;
  int segs;
  std::size_t seglen;
  float* partials;
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& t) const {
    const int l = t.league_rank(), k = l / segs, s = l % segs;
    const std::size_t b0 = std::size_t(s) * seglen;
    const std::size_t begin = b0 < len ? b0 : len, end = begin + seglen < len ? begin + seglen : len;
    const std::size_t stride = std::size_t(t.team_size());
    const float* row = x + std::size_t(k) * len;
    std::size_t i = begin + std::size_t(t.team_rank());
    float acc = 0;
    for (; i + (Loads - 1) * stride < end; i += Loads * stride) {
      float v[Loads];
      for (int r = 0; r < Loads; ++r) v[r] = row[i + r * stride];
      for (int w = 1; w < Loads; w *= 2)
        for (int r = 0; r + w < Loads; r += 2 * w) v[r] += v[r + w];
      acc += v[0];
    }
    for (; i < end; i += stride) acc += row[i];
    float total = 0;
    Kokkos::parallel_reduce(Kokkos::TeamThreadRange(t, t.team_size()), [&](int, float& v) { v += acc; }, total);
    float* const p = partials;
    Kokkos::single(Kokkos::PerTeam(t), [&]() { p[std::size_t(k) * segs + s] = total; });
  }
};

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const std::size_t n = argc > 1 ? std::size_t(std::atof(argv[1])) : std::size_t(1e7);
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
    portasim::InstancePool<Exec> pool(1);
    const Exec& exec = pool[0];
    cudaStream_t stream = exec.cuda_stream();
    struct C {
      const char* name;
      int axis;
      std::size_t rows, cols;
    };
    const C cases[] = {{"last_axis_1024", 1, n / 1024, 1024},
                       {"first_axis_1024", 0, n / 1024, 1024},
                       {"rows16", 1, 16, n / 16},
                       {"cols16", 0, n / 16, 16}};
    const auto sum = tk::sum_reduction<float>();
    Kokkos::View<float*, Kokkos::CudaSpace> flat("flat", n);
    Kokkos::deep_copy(exec, flat, 0.25f);
    Kokkos::View<float, Kokkos::CudaSpace> total("total");
    Kokkos::View<float*, Kokkos::CudaSpace> out("out", n / 16 + 1024);
    exec.fence();
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    auto time20 = [&](auto&& call, double& host_us) {
      cudaEventRecord(a, stream);
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 20; ++i) call();
      host_us = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e6 / 20;
      cudaEventRecord(b, stream);
      cudaEventSynchronize(b);
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      return ms * 1e3 / 20;
    };
    struct R {
      std::string name;
      std::vector<double> gpu, host;
    };
    std::vector<R> results(20);
    Kokkos::View<float*, Kokkos::CudaSpace> kpartials("kp", 1 << 20);
    for (int r = 0; r < rounds; ++r) {
      for (int c = 0; c < 4; ++c) {
        Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::CudaSpace, Kokkos::MemoryUnmanaged> m(flat.data(), cases[c].rows,
                                                                                                 cases[c].cols);
        Kokkos::View<float*, Kokkos::CudaSpace, Kokkos::MemoryUnmanaged> o(out.data(), cases[c].axis == 0 ? cases[c].cols : cases[c].rows);
        auto call = [&] { sum.along(exec, cases[c].axis, o, m); };
        call();
        double host;
        const double gpu = time20(call, host);
        results[c].name = cases[c].name;
        results[c].gpu.push_back(gpu);
        results[c].host.push_back(host);
        if (r == 0) {
          float first = 0;
          Kokkos::deep_copy(first, Kokkos::subview(o, 0));
          const double want = 0.25 * double(cases[c].axis == 0 ? cases[c].rows : cases[c].cols);
          if (std::abs(first - want) > 1e-5 * want) std::printf("WRONG %s: %g want %g\n", cases[c].name, first, want);
        }
      }
      {
        auto call = [&] { sum(exec, total, flat); };
        double host;
        results[4].name = "whole";
        results[4].gpu.push_back(time20(call, host));
        results[4].host.push_back(host);
      }
      {
        int slot = 6;
        for (int team : {64, 256}) {
          const std::size_t rows = 16, len = n / 16;
          const int segs = int((std::size_t(exec.concurrency()) + rows * team - 1) / (rows * team));
          const std::size_t seglen = ((len + segs - 1) / segs + 31) / 32 * 32;
          Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::CudaSpace, Kokkos::MemoryUnmanaged> m(flat.data(), rows, len);
          for (bool use_view : {false, true}) {
            auto call = [&] {
              Kokkos::TeamPolicy<Kokkos::Cuda, Kokkos::LaunchBounds<1024, 2>> policy(exec, int(rows * segs), team);
              if (use_view)
                Kokkos::parallel_for("kview", policy, KRows<true>{flat.data(), m, len, segs, seglen, kpartials.data()});
              else
                Kokkos::parallel_for("kraw", policy, KRows<false>{flat.data(), m, len, segs, seglen, kpartials.data()});
            };
            call();
            if (std::getenv("PROBE_UNSET_CACHE")) {
              using Policy = Kokkos::TeamPolicy<Kokkos::Cuda, Kokkos::LaunchBounds<1024, 2>>;
              if (use_view)
                cudaFuncSetCacheConfig(Kokkos::Impl::cuda_parallel_launch_local_memory<Kokkos::Impl::ParallelFor<KRows<true>, Policy, Kokkos::Cuda>, 1024, 2>, cudaFuncCachePreferNone);
              else
                cudaFuncSetCacheConfig(Kokkos::Impl::cuda_parallel_launch_local_memory<Kokkos::Impl::ParallelFor<KRows<false>, Policy, Kokkos::Cuda>, 1024, 2>, cudaFuncCachePreferNone);
            }
            double host;
            results[slot].name = std::string(use_view ? "kokkos_view_pass1_t" : "kokkos_raw_pass1_t") + std::to_string(team);
            results[slot].gpu.push_back(time20(call, host));
            results[slot].host.push_back(host);
            ++slot;
          }
        }
      }
      {
        int slot = 10;
        const std::size_t rows = 16, len = n / 16;
        auto run_variant = [&](const char* name, auto launch_with) {
          launch_with();
          double host;
          results[slot].name = name;
          results[slot].gpu.push_back(time20(launch_with, host));
          results[slot].host.push_back(host);
          ++slot;
        };
        auto plan = [&](int team, double fraction, int& segs, std::size_t& seglen) {
          const std::size_t threads = std::size_t(double(exec.concurrency()) * fraction);
          segs = int((threads + rows * team - 1) / (rows * team));
          seglen = ((len + segs - 1) / segs + 31) / 32 * 32;
        };
#define KVARIANT(NAME, LOADS, MINB, TEAM, FRACTION)                                                              \
  {                                                                                                              \
    int segs;                                                                                                    \
    std::size_t seglen;                                                                                          \
    plan(TEAM, FRACTION, segs, seglen);                                                                          \
    run_variant(NAME, [&] {                                                                                      \
      Kokkos::parallel_for("krowsn", Kokkos::TeamPolicy<Kokkos::Cuda, Kokkos::LaunchBounds<1024, MINB>>(exec, int(rows * segs), TEAM), \
                           KRowsN<LOADS, MINB>{flat.data(), len, segs, seglen, kpartials.data()});               \
    });                                                                                                          \
  }
        KVARIANT("kn_l4_b2_t64_w1", 4, 2, 64, 1.0)
        KVARIANT("kn_l8_b2_t64_w1", 8, 2, 64, 1.0)
        KVARIANT("kn_l8_b1_t64_half", 8, 1, 64, 0.5)
        KVARIANT("kn_l16_b1_t64_half", 16, 1, 64, 0.5)
        KVARIANT("kn_l8_b1_t256_half", 8, 1, 256, 0.5)
        KVARIANT("kn_l16_b1_t256_half", 16, 1, 256, 0.5)
        KVARIANT("kn_l8_b2_t64_half", 8, 2, 64, 0.5)
        KVARIANT("kn_l16_b1_t128_quarter", 16, 1, 128, 0.25)
#undef KVARIANT
      }
      {
        Kokkos::View<float*, Kokkos::CudaSpace> y("y", n);
        auto call = [&] { Kokkos::deep_copy(exec, y, flat); };
        double host;
        results[5].name = "copy";
        results[5].gpu.push_back(time20(call, host));
        results[5].host.push_back(host);
      }
    }
    double copy = 0;
    for (auto it = results.rbegin(); it != results.rend(); ++it) {
      auto& res = *it;
      if (res.gpu.empty()) continue;
      std::sort(res.gpu.begin(), res.gpu.end());
      std::sort(res.host.begin(), res.host.end());
      const double med = res.gpu[res.gpu.size() / 2];
      if (res.name == "copy") copy = med;
      std::printf("lib %-18s n=%.0e gpu min %7.2f med %7.2f max %7.2f us  host enqueue med %6.2f us  %5.1f %% of copy\n",
                  res.name.c_str(), double(n), res.gpu.front(), med, res.gpu.back(), res.host[res.host.size() / 2],
                  100.0 * copy / 2 / med);
    }
  }
  Kokkos::finalize();
  return 0;
}
