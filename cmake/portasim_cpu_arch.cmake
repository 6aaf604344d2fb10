# The CPU instruction set that host code is compiled for (PORTASIM_CPU_ARCH).
#
#   x86-64-v3  the default on x86-64 host builds: AVX2, FMA, BMI2, F16C, the level every
#              x86 server CPU of the last ten years has (Intel Haswell, AMD Zen and later)
#   native     the CPU of the build machine (AVX-512 where it has it); such binaries may not
#              start on other CPUs
#   none       the compiler's default (baseline x86-64: SSE2), or the flags the caller gives;
#              the choice for Spack, which passes its own target flags, and the default of
#              CUDA builds, whose host code only sets up the device work
#   <other>    any -march value the compiler accepts (x86-64-v2, skylake-avx512, znver3, ...)
#
# The option is PUBLIC: the kernels are templates, compiled in the consumer's translation
# units, and must see the same instruction set as the library. Kokkos should be built for the
# same one (scripts/bootstrap.sh passes it as CMAKE_CXX_FLAGS); it is not set through
# Kokkos_ARCH_*, which has no x86-64-v3 or native level in Kokkos 3.4.
#
# Host math flags, also PUBLIC: -fno-math-errno and -fno-trapping-math let GCC vectorize loops
# that call exp or divide (no value changes: portasim never reads errno after a math call,
# nor traps on floating-point exceptions); -fopenmp-simd honours `#pragma omp simd` in builds
# without OpenMP (Serial only).

if(PORTASIM_HAS_CUDA OR NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(_portasim_default_arch none)
else()
  set(_portasim_default_arch x86-64-v3)
endif()
set(PORTASIM_CPU_ARCH "${_portasim_default_arch}" CACHE STRING
    "Host instruction set: x86-64-v3 (default on x86-64), native, none, or a -march value")

set(PORTASIM_CPU_ARCH_FLAGS "")
if(NOT PORTASIM_CPU_ARCH STREQUAL "none")
  set(PORTASIM_CPU_ARCH_FLAGS "-march=${PORTASIM_CPU_ARCH}")
  include(CheckCXXCompilerFlag)
  if(NOT PORTASIM_HAS_CUDA)
    check_cxx_compiler_flag("${PORTASIM_CPU_ARCH_FLAGS}" PORTASIM_CPU_ARCH_ACCEPTED)
    if(NOT PORTASIM_CPU_ARCH_ACCEPTED)
      message(FATAL_ERROR "portasim: the compiler does not accept ${PORTASIM_CPU_ARCH_FLAGS} "
                          "(PORTASIM_CPU_ARCH=${PORTASIM_CPU_ARCH}); x86-64-v3 needs GCC 11 or "
                          "Clang 12; -DPORTASIM_CPU_ARCH=none builds for the compiler's default")
    endif()
  endif()
endif()

# The features the arch lets the compiler use, as it defines them (__AVX2__, ...), asked of
# the compiler with the flags the library is compiled with: PORTASIM_CPU_REQUIRED_STRING
# in config.hpp (macro names) for the C++ check, PORTASIM_CPU_REQUIRED_FLAGS (the names in
# /proc/cpuinfo) for the Python package's. Empty for CUDA builds, whose host compiler is
# behind nvcc_wrapper and which default to none.
set(_portasim_features
    SSE3 pni SSSE3 ssse3 SSE4_1 sse4_1 SSE4_2 sse4_2 POPCNT popcnt AVX avx AVX2 avx2 FMA fma
    BMI bmi1 BMI2 bmi2 F16C f16c LZCNT abm MOVBE movbe AVX512F avx512f AVX512CD avx512cd
    AVX512BW avx512bw AVX512DQ avx512dq AVX512VL avx512vl)
set(PORTASIM_CPU_REQUIRED_STRING "")
set(PORTASIM_CPU_REQUIRED_FLAGS "")
if(NOT PORTASIM_HAS_CUDA AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  separate_arguments(_portasim_user_flags UNIX_COMMAND "${CMAKE_CXX_FLAGS}")
  execute_process(
    COMMAND ${CMAKE_CXX_COMPILER} ${_portasim_user_flags} ${PORTASIM_CPU_ARCH_FLAGS} -dM -E -x c++ /dev/null
    OUTPUT_VARIABLE _portasim_macros RESULT_VARIABLE _portasim_rc ERROR_QUIET)
  if(NOT _portasim_rc EQUAL 0)
    message(FATAL_ERROR "portasim: could not ask ${CMAKE_CXX_COMPILER} which CPU features "
                        "${PORTASIM_CPU_ARCH_FLAGS} enables")
  endif()
  list(LENGTH _portasim_features _n)
  math(EXPR _last "${_n} - 2")
  foreach(_i RANGE 0 ${_last} 2)
    math(EXPR _j "${_i} + 1")
    list(GET _portasim_features ${_i} _macro)
    list(GET _portasim_features ${_j} _flag)
    if(_portasim_macros MATCHES "#define __${_macro}__ 1")
      string(APPEND PORTASIM_CPU_REQUIRED_STRING " ${_macro}")
      list(APPEND PORTASIM_CPU_REQUIRED_FLAGS ${_flag})
    endif()
  endforeach()
  string(STRIP "${PORTASIM_CPU_REQUIRED_STRING}" PORTASIM_CPU_REQUIRED_STRING)
endif()

function(portasim_apply_cpu_arch target)
  if(PORTASIM_CPU_ARCH_FLAGS)
    # nvcc_wrapper hands flags it does not know to the host compiler.
    target_compile_options(${target} PUBLIC "$<$<COMPILE_LANGUAGE:CXX>:${PORTASIM_CPU_ARCH_FLAGS}>")
  endif()
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang" AND NOT PORTASIM_HAS_CUDA)
    target_compile_options(${target} PUBLIC
      "$<$<COMPILE_LANGUAGE:CXX>:-fno-math-errno;-fno-trapping-math;-fopenmp-simd>")
  endif()
endfunction()
