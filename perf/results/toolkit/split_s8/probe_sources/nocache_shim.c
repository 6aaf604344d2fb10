// LD_PRELOAD shim (experiment): Kokkos 3.4 sets cudaFuncCachePreferShared device-wide at
// initialization and per team kernel; these make both requests no-ops.
#include <cuda_runtime_api.h>
#include <stdio.h>
cudaError_t cudaFuncSetCacheConfig(const void* func, enum cudaFuncCache cacheConfig) {
  (void)func;
  (void)cacheConfig;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig) {
  fprintf(stderr, "nocache_shim: ignoring cudaDeviceSetCacheConfig(%d)\n", (int)cacheConfig);
  return cudaSuccess;
}
