#pragma once
// What memory pools hand out: a block (shared ownership of pool memory) and a View over a
// block. The View inside a PooledView is unmanaged, so kernels capture it at no cost; the
// block goes back to its pool when the last PooledView or PoolBlock holding it goes.
// Keep a handle alive until the work that uses its View has been fenced or ordered (the
// caching pool reuses a freed block at once for the next allocation on the same instance,
// which is ordered after that work; see memory_pool.hpp).

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <memory>
#include <string>

#include "portasim/core/error.hpp"

namespace portasim {

struct PoolStatistics {
  std::size_t used_bytes = 0;   // in blocks handed out (rounded to the block's size class)
  std::size_t total_bytes = 0;  // held by the pool: in use plus cached for reuse
  std::size_t used_blocks = 0;  // blocks handed out and not yet returned
  std::size_t free_blocks = 0;  // cached blocks ready for reuse
  std::size_t hits = 0;         // allocations served from the cache (caching pool only)
  std::size_t misses = 0;       // allocations that went to the memory space
  std::size_t limit_bytes = 0;  // SIZE_MAX when unlimited
};

// Shared ownership of a pool block of `bytes()` bytes (at least what was asked).
class PoolBlock {
 public:
  PoolBlock() = default;
  PoolBlock(std::shared_ptr<void> memory, std::size_t bytes)
      : m_memory(std::move(memory)), m_bytes(bytes) {}
  void* data() const noexcept { return m_memory.get(); }
  std::size_t bytes() const noexcept { return m_bytes; }
  explicit operator bool() const noexcept { return m_memory != nullptr; }
  long use_count() const noexcept { return m_memory.use_count(); }
  // Gives this handle's share back (the block returns when no other handle holds it).
  void reset() noexcept {
    m_memory.reset();
    m_bytes = 0;
  }

 private:
  std::shared_ptr<void> m_memory;
  std::size_t m_bytes = 0;
};

template <class DataType, class MemorySpace, class Layout = Kokkos::LayoutRight>
class PooledView {
 public:
  using view_type =
      Kokkos::View<DataType, Layout, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  PooledView() = default;
  PooledView(PoolBlock block, const view_type& view) : m_block(std::move(block)), m_view(view) {}

  const view_type& view() const noexcept { return m_view; }
  operator const view_type&() const noexcept { return m_view; }
  const PoolBlock& block() const noexcept { return m_block; }
  bool is_allocated() const noexcept { return static_cast<bool>(m_block); }
  // Drops this handle's share of the block and empties the View.
  void reset() noexcept {
    m_view = view_type();
    m_block.reset();
  }

 private:
  PoolBlock m_block;
  view_type m_view;
};

namespace impl {

// Bytes a View of these extents needs (padding included, as Kokkos computes it).
template <class DataType, class MemorySpace, class Layout, class... Extents>
std::size_t pooled_view_bytes(Extents... extents) {
  using view_type = typename PooledView<DataType, MemorySpace, Layout>::view_type;
  static_assert(sizeof...(Extents) == view_type::rank_dynamic,
                "give one extent per runtime dimension of DataType");
  return view_type::required_allocation_size(static_cast<std::size_t>(extents)...);
}

template <class DataType, class MemorySpace, class Layout, class... Extents>
PooledView<DataType, MemorySpace, Layout> make_pooled_view(PoolBlock block, Extents... extents) {
  using result = PooledView<DataType, MemorySpace, Layout>;
  using view_type = typename result::view_type;
  using value_type = typename view_type::value_type;
  auto* data = static_cast<value_type*>(block.data());
  const view_type view(data, static_cast<std::size_t>(extents)...);
  return result(std::move(block), view);
}

}  // namespace impl

}  // namespace portasim
