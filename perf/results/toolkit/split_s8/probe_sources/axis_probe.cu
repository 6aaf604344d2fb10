// Experiment (not part of portasim): how fast can the three split axis cases go at 1e7 on
// an H200 with (a) a fold (last team combines) and (b) vector loads, against the layout the
// library uses now. Raw CUDA, so that each idea is measured before it is built into Kokkos.
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

__host__ __device__ __forceinline__ size_t umin(size_t a, size_t b) { return a < b ? a : b; }
#define CK(x)                                                                        \
  do {                                                                               \
    cudaError_t e = (x);                                                             \
    if (e != cudaSuccess) {                                                          \
      printf("CUDA %s line %d: %s\n", #x, __LINE__, cudaGetErrorString(e));          \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

__device__ __forceinline__ float4 add4(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
__device__ __forceinline__ float hsum(float4 a) { return (a.x + a.y) + (a.z + a.w); }

// MODE 0: __threadfence + atomicAdd (what Kokkos 3.4 gives); 1: one acq_rel atomic
template <int MODE>
__device__ __forceinline__ unsigned count_done(unsigned* c) {
  if (MODE == 0) {
    __threadfence();
    return atomicAdd(c, 1u);
  } else {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> a(*c);
    return a.fetch_add(1u, cuda::memory_order_acq_rel);
  }
}
template <int MODE>
__device__ __forceinline__ void after_last() {
  if (MODE == 0) __threadfence();
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
// sum over the block, valid in thread 0
__device__ __forceinline__ float block_sum(float v) {
  __shared__ float w[32];
  v = warp_sum(v);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  __syncthreads();
  if (lane == 0) w[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? w[lane] : 0.f;
    v = warp_sum(v);
  }
  return v;
}

// ---------------- 16 rows (rows form) ----------------
template <int LOADS>
__device__ __forceinline__ float row_scalar_acc(const float* row, size_t begin, size_t end) {
  float acc = 0.f;
  const size_t stride = blockDim.x;
  size_t i = begin + threadIdx.x;
  for (; i + (LOADS - 1) * stride < end; i += LOADS * stride) {
    float v[LOADS];
#pragma unroll
    for (int r = 0; r < LOADS; ++r) v[r] = row[i + r * stride];
#pragma unroll
    for (int w = 1; w < LOADS; w *= 2)
#pragma unroll
      for (int r = 0; r + w < LOADS; r += 2 * w) v[r] += v[r + w];
    acc += v[0];
  }
  for (; i < end; i += stride) acc += row[i];
  return acc;
}
template <int LOADS>
__device__ __forceinline__ float row_vec_acc(const float* row, size_t begin, size_t end) {
  // begin, end multiples of 4 (row 16-byte aligned in the probe)
  const float4* r4 = reinterpret_cast<const float4*>(row);
  const size_t b4 = begin / 4, e4 = end / 4, stride = blockDim.x;
  float acc = 0.f;
  size_t i = b4 + threadIdx.x;
  for (; i + (LOADS - 1) * stride < e4; i += LOADS * stride) {
    float4 v[LOADS];
#pragma unroll
    for (int r = 0; r < LOADS; ++r) v[r] = r4[i + r * stride];
    float s[LOADS];
#pragma unroll
    for (int r = 0; r < LOADS; ++r) s[r] = hsum(v[r]);
#pragma unroll
    for (int w = 1; w < LOADS; w *= 2)
#pragma unroll
      for (int r = 0; r + w < LOADS; r += 2 * w) s[r] += s[r + w];
    acc += s[0];
  }
  for (; i < e4; i += stride) acc += hsum(r4[i]);
  return acc;
}

// FOLD 0: write partials, a combine kernel follows; FOLD 1/2: last team combines (MODE 0/1)
template <int VEC, int LOADS, int FOLD>
__global__ void __launch_bounds__(1024, 2)
    rows_pass1(const float* x, size_t len, int segs, size_t seglen, float* partials, unsigned* counters, float* out) {
  const int l = blockIdx.x, k = l / segs, s = l % segs;
  const size_t begin = umin(len, size_t(s) * seglen), end = umin(len, begin + seglen);
  const float* row = x + size_t(k) * len;
  const float acc = VEC ? row_vec_acc<LOADS>(row, begin, end) : row_scalar_acc<LOADS>(row, begin, end);
  const float t = block_sum(acc);
  if (FOLD == 0) {
    if (threadIdx.x == 0) partials[size_t(k) * segs + s] = t;
    return;
  }
  __shared__ int last;
  if (threadIdx.x == 0) {
    partials[size_t(k) * segs + s] = t;
    last = (FOLD == 1 ? count_done<0>(counters + k) : count_done<1>(counters + k)) == unsigned(segs - 1);
  }
  __syncthreads();
  if (!last) return;
  if (FOLD == 1) after_last<0>();
  float a = 0.f;
  for (int j = threadIdx.x; j < segs; j += blockDim.x) a += __ldcg(partials + size_t(k) * segs + j);
  a = block_sum(a);
  if (threadIdx.x == 0) {
    out[k] = a;
    counters[k] = 0;
  }
}


// the library's addressing: data[i0 * s0 + i1 * s1 + i2 * s2] with run-time strides
template <int LOADS>
__global__ void __launch_bounds__(1024, 2)
    rows_pass1_strided(const float* x, size_t len, int segs, size_t seglen, float* partials, size_t s0, size_t s1,
                       size_t s2) {
  const int l = blockIdx.x, k = l / segs, s = l % segs;
  const size_t begin = umin(len, size_t(s) * seglen), end = umin(len, begin + seglen);
  const size_t i0 = 0, i1 = size_t(k);
  float acc = 0.f;
  const size_t stride = blockDim.x;
  size_t i = begin + threadIdx.x;
  for (; i + (LOADS - 1) * stride < end; i += LOADS * stride) {
    float v[LOADS];
#pragma unroll
    for (int r = 0; r < LOADS; ++r) v[r] = x[i0 * s0 + i1 * s1 + (i + r * stride) * s2];
#pragma unroll
    for (int w = 1; w < LOADS; w *= 2)
#pragma unroll
      for (int r = 0; r + w < LOADS; r += 2 * w) v[r] += v[r + w];
    acc += v[0];
  }
  for (; i < end; i += stride) acc += x[i0 * s0 + i1 * s1 + i * s2];
  const float t = block_sum(acc);
  if (threadIdx.x == 0) partials[size_t(k) * segs + s] = t;
}

// combine kernel: block k sums partials[k * segs ...]; 8 loads per thread at once
__global__ void combine_kernel(const float* partials, int segs, float* out) {
  const float* p = partials + size_t(blockIdx.x) * segs;
  float v[8];
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    const int j = threadIdx.x + r * blockDim.x;
    v[r] = j < segs ? p[j] : 0.f;
  }
  float a = 0.f;
  for (int j = threadIdx.x + 8 * blockDim.x; j < segs; j += blockDim.x) a += p[j];
  a += ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
  a = block_sum(a);
  if (threadIdx.x == 0) out[blockIdx.x] = a;
}

// ---------------- first axis, many columns ----------------
// flat form as the library: thread t: column k = t % cols, segment s = t / cols
__global__ void __launch_bounds__(1024, 2)
    flat_pass1(const float* x, size_t rows, size_t cols, int segs, size_t segrows, float* partials) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= cols * segs) return;
  const size_t k = t % cols, s = t / cols;
  const size_t r0 = umin(rows, s * segrows), r1 = umin(rows, r0 + segrows);
  const float* c = x + k;
  float acc = 0.f;
  size_t r = r0;
  for (; r + 3 < r1; r += 4) {
    const float a = c[r * cols], b = c[(r + 1) * cols], d = c[(r + 2) * cols], e = c[(r + 3) * cols];
    acc += (a + b) + (d + e);
  }
  for (; r < r1; ++r) acc += c[r * cols];
  partials[k * segs + s] = acc;
}

// blocked fold: team = 32 column quads (128 columns) x LANES row lanes; group g of 128
// columns, segment s of rows; neighbouring blocks take neighbouring groups of one segment.
template <int LANES, int LOADS, int FOLD>
__global__ void __launch_bounds__(32 * LANES, 2048 / (32 * LANES))
    block_cols(const float* x, size_t rows, size_t cols, int groups, int segs, size_t segrows, float4* partials,
               unsigned* counters, float* out) {
  const int g = blockIdx.x % groups, s = blockIdx.x / groups;
  const int q = threadIdx.x & 31, lane = threadIdx.x >> 5;
  const size_t r0 = umin(rows, size_t(s) * segrows), r1 = umin(rows, r0 + segrows);
  const size_t cols4 = cols / 4;
  const float4* base = reinterpret_cast<const float4*>(x) + size_t(g) * 32 + q;
  float4 acc = make_float4(0, 0, 0, 0);
  size_t r = r0 + lane;
  for (; r + (LOADS - 1) * LANES < r1; r += LOADS * LANES) {
    float4 v[LOADS];
#pragma unroll
    for (int u = 0; u < LOADS; ++u) v[u] = base[(r + u * LANES) * cols4];
#pragma unroll
    for (int u = 0; u < LOADS; ++u) acc = add4(acc, v[u]);
  }
  for (; r < r1; r += LANES) acc = add4(acc, base[r * cols4]);
  __shared__ float4 sm[LANES][32];
  sm[lane][q] = acc;
  __syncthreads();
#pragma unroll
  for (int m = LANES / 2; m > 0; m >>= 1) {
    if (lane < m) sm[lane][q] = add4(sm[lane][q], sm[lane + m][q]);
    __syncthreads();
  }
  float4* const mine = partials + (size_t(g) * segs + s) * 32;
  if (FOLD == 0) {
    if (lane == 0) mine[q] = sm[0][q];
    return;
  }
  __shared__ int last;
  if (lane == 0) {
    mine[q] = sm[0][q];
    __syncwarp();
    if (q == 0) last = (FOLD == 1 ? count_done<0>(counters + g) : count_done<1>(counters + g)) == unsigned(segs - 1);
  }
  __syncthreads();
  if (!last) return;
  if (FOLD == 1) after_last<0>();
  const float4* mine_group = partials + size_t(g) * segs * 32;
  float4 a = make_float4(0, 0, 0, 0);
  for (int j = lane; j < segs; j += LANES) a = add4(a, __ldcg(mine_group + size_t(j) * 32 + q));
  sm[lane][q] = a;
  __syncthreads();
#pragma unroll
  for (int m = LANES / 2; m > 0; m >>= 1) {
    if (lane < m) sm[lane][q] = add4(sm[lane][q], sm[lane + m][q]);
    __syncthreads();
  }
  if (lane == 0) {
    reinterpret_cast<float4*>(out)[size_t(g) * 32 + q] = sm[0][q];
    if (q == 0) counters[g] = 0;
  }
}
// combine of block_cols partials when not folded: output quad o = g*32+q
__global__ void block_cols_combine(const float4* partials, int segs, float* out) {
  const int g = blockIdx.x, q = threadIdx.x & 31, lane = threadIdx.x >> 5, lanes = blockDim.x >> 5;
  float4 a = make_float4(0, 0, 0, 0);
  for (int j = lane; j < segs; j += lanes) a = add4(a, partials[(size_t(g) * segs + j) * 32 + q]);
  __shared__ float4 sm[32][32];
  sm[lane][q] = a;
  __syncthreads();
  for (int m = lanes / 2; m > 0; m >>= 1) {
    if (lane < m) sm[lane][q] = add4(sm[lane][q], sm[lane + m][q]);
    __syncthreads();
  }
  if (lane == 0) reinterpret_cast<float4*>(out)[size_t(g) * 32 + q] = sm[0][q];
}

// ---------------- first axis, 16 columns ----------------
// team = 4 column quads x (blockDim / 4) row lanes; segment s of rows (multiple of 8 rows)
template <int LOADS, int FOLD>
__global__ void __launch_bounds__(1024, 2)
    cols16(const float* x, size_t rows, int segs, size_t segrows, float4* partials, unsigned* counters, float* out) {
  const int s = blockIdx.x, q = threadIdx.x & 3, lane = threadIdx.x >> 2, lanes = blockDim.x >> 2;
  const size_t r0 = umin(rows, size_t(s) * segrows), r1 = umin(rows, r0 + segrows);
  const float4* base = reinterpret_cast<const float4*>(x) + q;
  float4 acc = make_float4(0, 0, 0, 0);
  size_t r = r0 + lane;
  for (; r + (LOADS - 1) * lanes < r1; r += LOADS * lanes) {
    float4 v[LOADS];
#pragma unroll
    for (int u = 0; u < LOADS; ++u) v[u] = base[(r + u * lanes) * 4];
#pragma unroll
    for (int u = 0; u < LOADS; ++u) acc = add4(acc, v[u]);
  }
  for (; r < r1; r += lanes) acc = add4(acc, base[r * 4]);
  // lanes with the same quad: xor 4, 8, 16 within the warp, then across warps
  __shared__ float4 sm[32][4];
  __shared__ int last;
  auto team_sum = [&](float4 v) {
    for (int o = 4; o < 32; o <<= 1) {
      v.x += __shfl_xor_sync(0xffffffffu, v.x, o);
      v.y += __shfl_xor_sync(0xffffffffu, v.y, o);
      v.z += __shfl_xor_sync(0xffffffffu, v.z, o);
      v.w += __shfl_xor_sync(0xffffffffu, v.w, o);
    }
    const int wl = threadIdx.x & 31, w = threadIdx.x >> 5, warps = blockDim.x >> 5;
    if (wl < 4) sm[w][wl] = v;
    __syncthreads();
    if (w == 0) {
      float4 a = make_float4(0, 0, 0, 0);
      for (int j = wl >> 2; j < warps; j += 8) a = add4(a, sm[j][wl & 3]);
      for (int o = 4; o < 32; o <<= 1) {
        a.x += __shfl_xor_sync(0xffffffffu, a.x, o);
        a.y += __shfl_xor_sync(0xffffffffu, a.y, o);
        a.z += __shfl_xor_sync(0xffffffffu, a.z, o);
        a.w += __shfl_xor_sync(0xffffffffu, a.w, o);
      }
      v = a;
    }
    return v;  // threads 0..3: the quads' totals
  };
  const float4 t = team_sum(acc);
  if (FOLD == 0) {
    if (threadIdx.x < 4) partials[size_t(s) * 4 + q] = t;
    return;
  }
  if (threadIdx.x < 4) {
    partials[size_t(s) * 4 + q] = t;
    __syncwarp(0xfu);
    if (threadIdx.x == 0) last = (FOLD == 1 ? count_done<0>(counters) : count_done<1>(counters)) == unsigned(segs - 1);
  }
  __syncthreads();
  if (!last) return;
  if (FOLD == 1) after_last<0>();
  float4 a = make_float4(0, 0, 0, 0);
  for (int j = lane; j < segs; j += lanes) a = add4(a, __ldcg(partials + size_t(j) * 4 + q));
  __syncthreads();
  const float4 tot = team_sum(a);
  if (threadIdx.x < 4) {
    reinterpret_cast<float4*>(out)[q] = tot;
    if (threadIdx.x == 0) counters[0] = 0;
  }
}
__global__ void cols16_combine(const float4* partials, int segs, float* out) {
  // one block of 256: quad q = t & 3, lane = t >> 2
  const int q = threadIdx.x & 3, lane = threadIdx.x >> 2, lanes = blockDim.x >> 2;
  float4 a = make_float4(0, 0, 0, 0);
  for (int j = lane; j < segs; j += lanes) a = add4(a, partials[size_t(j) * 4 + q]);
  __shared__ float4 sm[256];
  sm[threadIdx.x] = a;
  __syncthreads();
  for (int m = lanes / 2; m > 0; m >>= 1) {
    if (lane < m) sm[threadIdx.x] = add4(sm[threadIdx.x], sm[threadIdx.x + 4 * m]);
    __syncthreads();
  }
  if (threadIdx.x < 4) reinterpret_cast<float4*>(out)[q] = sm[q];
}

// ---------------- harness ----------------
struct Case {
  std::string name;
  std::function<void(cudaStream_t)> call;
  std::function<bool()> check;
  std::vector<double> us;
};

static cudaStream_t stream;
static const bool prefer_shared = std::getenv("PROBE_PREFER_SHARED") != nullptr;
template <class K> void cache_config(K k) { if (prefer_shared) CK(cudaFuncSetCacheConfig(k, cudaFuncCachePreferShared)); }

double time_batch(Case& c) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  CK(cudaEventRecord(a, stream));
  for (int i = 0; i < 20; ++i) c.call(stream);
  CK(cudaEventRecord(b, stream));
  CK(cudaEventSynchronize(b));
  float ms;
  CK(cudaEventElapsedTime(&ms, a, b));
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return ms * 1e3 / 20;
}

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? size_t(std::atof(argv[1])) : size_t(1e7);
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t concurrency = size_t(sms) * 2048;
  float *x, *y, *out;
  void* partials;
  unsigned* counters;
  CK(cudaMalloc(&x, n * 4));
  CK(cudaMalloc(&y, n * 4));
  CK(cudaMalloc(&out, 1 << 20));
  CK(cudaMalloc(&partials, 16 << 20));
  CK(cudaMalloc(&counters, 1 << 16));
  CK(cudaMemset(counters, 0, 1 << 16));
  {
    std::vector<float> h(n, 0.25f);
    CK(cudaMemcpy(x, h.data(), n * 4, cudaMemcpyHostToDevice));
  }
  auto check_out = [&](size_t outputs, double want) {
    return [=]() {
      std::vector<float> hh(outputs);
      CK(cudaMemcpy(hh.data(), out, outputs * 4, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < outputs; ++i)
        if (std::fabs(hh[i] - want) > 1e-5 * want) {
          printf("  wrong: out[%zu] = %g, want %g\n", i, hh[i], want);
          return false;
        }
      return true;
    };
  };
  std::vector<Case> cases;
  cache_config(flat_pass1);
  cache_config(combine_kernel);
  cache_config(rows_pass1<0, 4, 0>);
  cache_config(rows_pass1<1, 2, 0>);
  cases.push_back({"copy", [&](cudaStream_t st) { CK(cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice, st)); },
                   [] { return true; }});
  // 16 rows
  {
    const size_t rows = 16, len = n / 16;
    for (int team : {64, 128, 256}) {
      const int segs = int((concurrency + rows * team - 1) / (rows * team));
      const size_t seglen = ((len + segs - 1) / segs + 31) / 32 * 32;
      const unsigned grid = unsigned(rows * segs);
      float* p = static_cast<float*>(partials);
      auto add = [&](std::string name, auto kernel, bool folded) {
        cache_config(kernel);
        cases.push_back({"rows16/" + name + "/team:" + std::to_string(team),
                         [=](cudaStream_t st) {
                           kernel<<<grid, team, 0, st>>>(x, len, segs, seglen, p, counters, out);
                           if (!folded) combine_kernel<<<unsigned(rows), 64, 0, st>>>(p, segs, out);
                         },
                         check_out(rows, 0.25 * len)});
      };
      add("scalar4_combine", rows_pass1<0, 4, 0>, false);
      add("scalar4_fence", rows_pass1<0, 4, 1>, true);
      add("scalar4_acqrel", rows_pass1<0, 4, 2>, true);
      add("vec2_combine", rows_pass1<1, 2, 0>, false);
      add("vec2_fence", rows_pass1<1, 2, 1>, true);
      add("vec2_acqrel", rows_pass1<1, 2, 2>, true);
      add("vec4_fence", rows_pass1<1, 4, 1>, true);
      add("vec4_acqrel", rows_pass1<1, 4, 2>, true);
      if (team == 64 || team == 256) {
        cases.push_back({"rows16/strided_pass1_only/team:" + std::to_string(team),
                         [=](cudaStream_t st) { rows_pass1_strided<4><<<grid, team, 0, st>>>(x, len, segs, seglen, p, 0, len, 1); },
                         [] { return true; }});
        cases.push_back({"rows16/scalar4_pass1_only/team:" + std::to_string(team),
                         [=](cudaStream_t st) { rows_pass1<0, 4, 0><<<grid, team, 0, st>>>(x, len, segs, seglen, p, counters, out); },
                         [] { return true; }});
      }
      if (team == 64) {
        cases.push_back({"rows16/scalar4_pass1_only/team:64",
                         [=](cudaStream_t st) { rows_pass1<0, 4, 0><<<grid, team, 0, st>>>(x, len, segs, seglen, p, counters, out); },
                         [] { return true; }});
        cases.push_back({"rows16/vec2_pass1_only/team:64",
                         [=](cudaStream_t st) { rows_pass1<1, 2, 0><<<grid, team, 0, st>>>(x, len, segs, seglen, p, counters, out); },
                         [] { return true; }});
      }
    }
  }
  // first axis, 1024 columns
  {
    const size_t cols = 1024, rows = n / cols;
    {
      const int segs = int((concurrency + cols - 1) / cols);
      const size_t segrows = (rows + segs - 1) / segs;
      float* p = static_cast<float*>(partials);
      const unsigned grid = unsigned((cols * segs + 255) / 256);
      cases.push_back({"first1024/flat_combine (library layout)",
                       [=](cudaStream_t st) {
                         flat_pass1<<<grid, 256, 0, st>>>(x, rows, cols, segs, segrows, p);
                         combine_kernel<<<unsigned(cols), 64, 0, st>>>(p, segs, out);
                       },
                       check_out(cols, 0.25 * rows)});
    }
    const int groups = int(cols / 128);
    auto add = [&](std::string name, auto kernel, int lanes, int blocks_per_sm, int fold) {
      cache_config(kernel);
      const int segs = std::max(1, int(size_t(sms) * blocks_per_sm / groups));
      const size_t segrows = (rows + segs - 1) / segs;
      float4* p = static_cast<float4*>(partials);
      const unsigned grid = unsigned(groups * segs);
      cases.push_back({"first1024/" + name + "/segs:" + std::to_string(segs),
                       [=](cudaStream_t st) {
                         kernel<<<grid, 32 * lanes, 0, st>>>(x, rows, cols, groups, segs, segrows, p, counters, out);
                         if (fold == 0) block_cols_combine<<<unsigned(groups), 1024, 0, st>>>(p, segs, out);
                       },
                       check_out(cols, 0.25 * rows)});
    };
    add("block32x32_load2_combine", block_cols<32, 2, 0>, 32, 2, 0);
    add("block32x32_load2_fence", block_cols<32, 2, 1>, 32, 2, 1);
    add("block32x32_load2_acqrel", block_cols<32, 2, 2>, 32, 2, 2);
    add("block32x32_load4_acqrel", block_cols<32, 4, 2>, 32, 2, 2);
    add("block32x16_load2_acqrel", block_cols<16, 2, 2>, 16, 4, 2);
    add("block32x8_load2_acqrel", block_cols<8, 2, 2>, 8, 8, 2);
    add("block32x32_load2_acqrel_4w", block_cols<32, 2, 2>, 32, 4, 2);
  }
  // first axis, 16 columns
  {
    const size_t rows = n / 16;
    auto add = [&](std::string name, auto kernel, int team, int blocks_per_sm, int fold) {
      cache_config(kernel);
      const int segs = sms * blocks_per_sm;
      const size_t segrows = ((rows + segs - 1) / segs + 7) / 8 * 8;
      float4* p = static_cast<float4*>(partials);
      cases.push_back({"cols16/" + name + "/team:" + std::to_string(team) + "/segs:" + std::to_string(segs),
                       [=](cudaStream_t st) {
                         kernel<<<unsigned(segs), team, 0, st>>>(x, rows, segs, segrows, p, counters, out);
                         if (fold == 0) cols16_combine<<<1, 256, 0, st>>>(p, segs, out);
                       },
                       check_out(16, 0.25 * rows)});
    };
    add("load2_combine", cols16<2, 0>, 1024, 2, 0);
    add("load2_fence", cols16<2, 1>, 1024, 2, 1);
    add("load2_acqrel", cols16<2, 2>, 1024, 2, 2);
    add("load4_acqrel", cols16<4, 2>, 1024, 2, 2);
    add("load2_acqrel", cols16<2, 2>, 512, 4, 2);
    add("load2_acqrel", cols16<2, 2>, 256, 8, 2);
  }
  // correctness first (each case alone), then interleaved rounds
  for (auto& c : cases) {
    CK(cudaMemset(out, 0xff, 1 << 20));
    c.call(stream);
    c.call(stream);
    CK(cudaStreamSynchronize(stream));
    if (!c.check()) printf("FAILED %s\n", c.name.c_str());
  }
  for (int r = 0; r < rounds; ++r)
    for (auto& c : cases) {
      c.call(stream);
      c.us.push_back(time_batch(c));
    }
  CK(cudaGetLastError());
  double copy_us = 0;
  for (auto& c : cases) {
    std::sort(c.us.begin(), c.us.end());
    const double med = c.us[c.us.size() / 2];
    if (c.name == "copy") copy_us = med;
    printf("%-58s n=%.0e  min %7.2f  med %7.2f  max %7.2f us", c.name.c_str(), double(n), c.us.front(), med,
           c.us.back());
    if (copy_us > 0 && c.name != "copy") printf("  %5.1f %% of copy", 100.0 * copy_us / 2 / med);
    printf("\n");
  }
  return 0;
}
