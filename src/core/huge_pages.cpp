#include "portasim/core/huge_pages.hpp"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace portasim {

bool advise_huge_pages(void* data, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (data == nullptr || bytes < huge_page_advice_min_bytes) return false;
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (page_size <= 0) return false;
  const auto page = static_cast<std::uintptr_t>(page_size);
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + page - 1) / page * page;  // whole pages inside only
  const std::uintptr_t last = (begin + bytes) / page * page;
  if (last <= first) return false;
  return ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) == 0;
#else
  (void)data;
  (void)bytes;
  return false;
#endif
}

}  // namespace portasim
