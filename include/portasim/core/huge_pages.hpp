#pragma once
// Transparent huge pages for large host arrays. One core streaming an array larger than its
// caches reads it faster from 2 MiB pages than from 4 KiB ones: fewer TLB misses and page
// walks between the prefetched lines. Linux gives huge pages to anonymous memory only where
// the program asks (madvise) on systems whose THP setting is "madvise", the common default.
// NumPy asks for every array of 4 MiB or more; portasim's host memory pools do the same for
// their blocks, and a program that allocates its own host Views can call
// advise_huge_pages(view.data(), view.span() * sizeof(value)) before the first write.

#include <cstddef>

namespace portasim {

// Requests smaller than this get no advice (NumPy's threshold): below it the TLB covers the
// array well enough, and a huge page would mostly hold other allocations.
inline constexpr std::size_t huge_page_advice_min_bytes = std::size_t(4) << 20;

// Asks the kernel to back [data, data + bytes) with transparent huge pages. Only whole
// 4 KiB pages inside the range are advised, so neighbouring allocations are never touched.
// Pages already written keep their size (the kernel may merge them later). Returns whether
// the advice was given: false below huge_page_advice_min_bytes, off Linux, or when the
// kernel refuses (THP "never", or not built in). Never throws; the memory is usable either way.
bool advise_huge_pages(void* data, std::size_t bytes) noexcept;

}  // namespace portasim
