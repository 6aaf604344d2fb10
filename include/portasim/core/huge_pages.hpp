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
// system pages inside the range are advised. Pages already written keep their size (the
// kernel may merge them later): a block that glibc serves from its heap, as it does for
// blocks up to the size of one it has freed before, may have such pages; NumPy's arrays
// share that limit. Returns whether the kernel took the advice: false below
// huge_page_advice_min_bytes, off Linux, or on a kernel without transparent huge pages.
// Under THP "never" the advice is taken and has no effect. Never throws; the memory is
// usable either way.
bool advise_huge_pages(void* data, std::size_t bytes) noexcept;

}  // namespace portasim
