// The check that the CPU has every instruction-set feature the build uses
// (PORTASIM_CPU_ARCH, cmake/portasim_cpu_arch.cmake).
//
// This file is compiled for baseline x86-64 whatever the arch (src/core/CMakeLists.txt), so
// that it runs on any x86-64 CPU. Its check is a constructor of priority 101: the linker
// orders those before every default-priority constructor, so it runs before any static
// initializer of the library, of Kokkos or of the program, all of which may already use the
// wider instructions. Shared libraries (libstdc++, libgomp, HDF5) initialize before it; they
// are built for baseline CPUs. Runtime references this file, so every program has it.
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "portasim/config.hpp"
#include "portasim/core/cpu_features.hpp"

namespace portasim {
namespace {

// The features cmake/portasim_cpu_arch.cmake may list: the compiler's macro name, and the
// name users see (that of /proc/cpuinfo where it differs only in case).
constexpr const char* feature_macros[] = {
    "SSE3", "SSSE3", "SSE4_1", "SSE4_2", "POPCNT",  "AVX",      "AVX2",     "FMA",      "BMI",
    "BMI2", "F16C",  "LZCNT",  "MOVBE",  "AVX512F", "AVX512CD", "AVX512BW", "AVX512DQ", "AVX512VL"};
constexpr const char* feature_names[] = {
    "sse3", "ssse3", "sse4.1", "sse4.2", "popcnt",  "avx",      "avx2",     "fma",      "bmi",
    "bmi2", "f16c",  "lzcnt",  "movbe",  "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"};
constexpr int feature_count = sizeof(feature_macros) / sizeof(feature_macros[0]);

bool cpu_has(int feature) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // __builtin_cpu_supports takes string literals only. For AVX it also asks whether the
  // operating system saves the wide registers.
  switch (feature) {
    case 0: return __builtin_cpu_supports("sse3");
    case 1: return __builtin_cpu_supports("ssse3");
    case 2: return __builtin_cpu_supports("sse4.1");
    case 3: return __builtin_cpu_supports("sse4.2");
    case 4: return __builtin_cpu_supports("popcnt");
    case 5: return __builtin_cpu_supports("avx");
    case 6: return __builtin_cpu_supports("avx2");
    case 7: return __builtin_cpu_supports("fma");
    case 8: return __builtin_cpu_supports("bmi");
    case 9: return __builtin_cpu_supports("bmi2");
    case 10: return __builtin_cpu_supports("f16c");
    case 11: return __builtin_cpu_supports("lzcnt");
    case 12: return __builtin_cpu_supports("movbe");
    case 13: return __builtin_cpu_supports("avx512f");
    case 14: return __builtin_cpu_supports("avx512cd");
    case 15: return __builtin_cpu_supports("avx512bw");
    case 16: return __builtin_cpu_supports("avx512dq");
    case 17: return __builtin_cpu_supports("avx512vl");
    default: return false;
  }
#else
  (void)feature;
  return true;  // other CPUs: the build uses the compiler's default, nothing to check
#endif
}

// Whether `word` is one of the space- or comma-separated words of `list`.
bool listed(const char* list, const char* word) {
  const std::size_t n = std::strlen(word);
  for (const char* p = list; p != nullptr && *p != '\0';) {
    while (*p == ' ' || *p == ',') ++p;
    std::size_t k = 0;
    while (p[k] != '\0' && p[k] != ' ' && p[k] != ',') ++k;
    if (k == n && std::strncmp(p, word, n) == 0) return true;
    p += k;
  }
  return false;
}

// Bit i set: feature i is required and absent. PORTASIM_CPU_PRETEND_MISSING (feature names,
// e.g. "avx2,fma") makes this CPU lack them, so that the refusal can be tested on any CPU.
unsigned missing_mask() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();  // needed before constructors of the default priority have run
#endif
  const char* pretend = std::getenv("PORTASIM_CPU_PRETEND_MISSING");
  unsigned mask = 0;
  for (int i = 0; i < feature_count; ++i)
    if (listed(PORTASIM_CPU_REQUIRED_STRING, feature_macros[i]) &&
        (!cpu_has(i) || listed(pretend, feature_names[i])))
      mask |= 1u << i;
  return mask;
}

void append(char* out, std::size_t size, const char* text) {
  std::strncat(out, text, size - std::strlen(out) - 1);
}

__attribute__((constructor(101))) void refuse_cpu_without_required_features() {
  const unsigned missing = missing_mask();
  if (missing == 0) return;
  char message[1024] = "portasim: this program was built for the CPU level '";
  append(message, sizeof message, PORTASIM_CPU_ARCH_STRING);
  append(message, sizeof message, "' (PORTASIM_CPU_ARCH), and this CPU lacks:");
  for (int i = 0; i < feature_count; ++i)
    if (missing & (1u << i)) {
      append(message, sizeof message, " ");
      append(message, sizeof message, feature_names[i]);
    }
  append(message, sizeof message,
         ". Build portasim for this CPU: -DPORTASIM_CPU_ARCH=native, or =none for the "
         "compiler's default.\n");
  ssize_t written = ::write(2, message, std::strlen(message));
  (void)written;
  ::_exit(5);  // the command line's exit status for a backend that cannot run
}

}  // namespace

namespace impl {
void link_cpu_check() noexcept {}
}  // namespace impl

CpuFeatures cpu_features() {
  CpuFeatures features;
  features.arch = PORTASIM_CPU_ARCH_STRING;
  const unsigned missing = missing_mask();
  for (int i = 0; i < feature_count; ++i) {
    if (listed(PORTASIM_CPU_REQUIRED_STRING, feature_macros[i]))
      features.required.emplace_back(feature_names[i]);
    if (missing & (1u << i)) features.missing.emplace_back(feature_names[i]);
  }
  return features;
}

}  // namespace portasim
