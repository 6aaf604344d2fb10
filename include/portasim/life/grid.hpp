#pragma once
// Grids of the Game of Life on the device: one byte per cell (the interchange layout, what
// .npy files hold) or 64 cells per 64-bit word (bit j of word k of a row is column 64k + j).

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace portasim::life {

enum class Boundary { torus, dead };
enum class Engine { bytes, bits };

const char* to_string(Boundary boundary) noexcept;
const char* to_string(Engine engine) noexcept;

template <class MemorySpace>
using ByteGrid = Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, MemorySpace>;
template <class MemorySpace>
using WordGrid = Kokkos::View<std::uint64_t**, Kokkos::LayoutRight, MemorySpace>;

// Views into a slice of a larger buffer (one generation of a chunk).
template <class MemorySpace>
using ByteGridSlice = Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, MemorySpace,
                                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

constexpr std::int64_t cells_per_word = 64;

}  // namespace portasim::life
