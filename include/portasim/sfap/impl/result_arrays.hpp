#pragma once
// Where sfap::compute's result arrays come from: Views that an earlier call returned and its
// caller has let go of, kept for the next call of the same shapes, or new ones.
//
// A View's allocation is slow on a device: the allocator maps memory and, under Kokkos 3,
// copies the View's header to the device synchronously. For a small unit that costs as much
// as the kernels (docs/design/sfap-projection.md, rule 11). CuPy and PyTorch take their arrays
// from caching pools for the same reason. Here the pool is made of managed Views, so a result
// owns its memory exactly as a View of its own does: the cache keeps a reference to each
// array it hands out and reuses one only when that reference is the last (use_count 1).
//
// Before a call reuses memory it fences every instance, as the free of a View would have
// done, so that work the caller queued on the array before letting it go has finished. The
// cache keeps at most two arrays per label (a caller that holds one result while the next is
// computed reuses both), and nothing under a pool cap (PORTASIM_POOL_LIMIT).
// sfap::release_cached_buffers gives the memory back; Kokkos' finalization drops it.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace portasim::sfap::impl {

template <class ExecutionSpace>
class ResultArrays {
 public:
  // A View of type ViewType, labelled `label`, of the given extents: one the cache holds
  // alone, or a new one (uninitialized in both cases). `reused` is set when it was kept.
  template <class ViewType, class... Extents>
  static ViewType take(const ExecutionSpace& exec, bool keep, const std::string& label,
                       bool& reused, Extents... extents) {
    std::lock_guard<std::mutex> lock(mutex());
    std::vector<Kept<ViewType>>& kept = arrays<ViewType>();
    const std::size_t n[] = {static_cast<std::size_t>(extents)...};
    const auto fits = [&](const Kept<ViewType>& k) {
      if (k.label != label) return false;
      for (std::size_t r = 0; r < sizeof...(Extents); ++r)
        if (k.view.extent(r) != n[r]) return false;
      return true;
    };
    for (const Kept<ViewType>& k : kept)
      if (k.view.use_count() == 1 && fits(k)) {
        reused = true;
        return k.view;
      }
    // Labels' arrays of other shapes that no one holds go first, then a new one is kept if
    // its label has room.
    std::size_t same_label = 0;
    for (auto it = kept.begin(); it != kept.end();) {
      if (it->label == label && it->view.use_count() == 1) {
        it = kept.erase(it);
      } else {
        same_label += it->label == label ? 1 : 0;
        ++it;
      }
    }
    const ViewType fresh(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, label), extents...);
    if (keep && same_label < max_per_label) kept.push_back({label, fresh});
    return fresh;
  }

  // Drops every array the cache keeps (the caller's copies stay valid).
  static void release() {
    std::lock_guard<std::mutex> lock(mutex());
    for (const auto& clear : clears()) clear();
  }

 private:
  static constexpr std::size_t max_per_label = 2;

  // The label is kept beside the View: a device View's label() reads the View's header back
  // from device memory, a synchronous copy.
  template <class ViewType>
  struct Kept {
    std::string label;
    ViewType view;
  };

  // Under the mutex.
  template <class ViewType>
  static std::vector<Kept<ViewType>>& arrays() {
    static std::vector<Kept<ViewType>>* kept = nullptr;
    if (kept == nullptr) {
      kept = new std::vector<Kept<ViewType>>();
      clears().push_back([] { kept->clear(); });
    }
    // Before Kokkos finalizes its spaces the kept Views' memory goes back; a later
    // Kokkos::initialize hooks again.
    if (!hooked()) {
      hooked() = true;
      Kokkos::push_finalize_hook([] {
        std::lock_guard<std::mutex> hook_lock(mutex());
        for (const auto& clear : clears()) clear();
        hooked() = false;
      });
    }
    return *kept;
  }
  static bool& hooked() {
    static bool h = false;
    return h;
  }
  static std::vector<std::function<void()>>& clears() {
    static std::vector<std::function<void()>> c;
    return c;
  }
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
};

}  // namespace portasim::sfap::impl
