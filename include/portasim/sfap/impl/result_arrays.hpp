#pragma once
// Where sfap::compute's result arrays come from: Views that an earlier call returned and its
// caller has let go of, kept for the next call of the same shapes, or new ones.
//
// A View's allocation waits for the device: the allocator maps memory and, under Kokkos 3,
// copies the View's header to the device synchronously, so a call that allocates its result
// pays a synchronisation per array (docs/design/sfap-projection.md, rule 11). CuPy and
// PyTorch take their arrays from caching pools for the same reason. Here the pool is made of
// managed Views, so a result owns its memory exactly as a View of its own does: the cache
// keeps a reference to each array it hands out and reuses one only when that reference is
// the last (use_count 1).
//
// Before a call reuses memory it fences every instance, as the free of a View would have
// done, so that work the caller queued on the array before letting it go has finished. The
// cache keeps at most two arrays per label (a caller that holds one result while the next is
// computed reuses both), and nothing under a pool cap (PORTASIM_POOL_LIMIT). A call lets go
// of the unheld arrays of the labels it does not take, and an allocation that fails is tried
// again once every unheld array is gone. sfap::release_cached_buffers gives the memory back;
// Kokkos' finalization drops it.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <exception>
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
    // The label's arrays of other shapes that no one holds go first, then a new one is kept
    // if its label has room.
    kept.erase(std::remove_if(kept.begin(), kept.end(),
                              [&](const Kept<ViewType>& k) {
                                return k.label == label && k.view.use_count() == 1;
                              }),
               kept.end());
    const auto same_label = static_cast<std::size_t>(std::count_if(
        kept.begin(), kept.end(), [&](const Kept<ViewType>& k) { return k.label == label; }));
    const auto allocate = [&] {
      return ViewType(Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, label), extents...);
    };
    ViewType fresh;
    try {
      fresh = allocate();
    } catch (const std::exception&) {
      drop_unheld([](const std::string&) { return true; });
      fresh = allocate();
    }
    if (keep && same_label < max_per_label) kept.push_back({label, fresh});
    return fresh;
  }

  // Lets go of the arrays no one else holds whose label is not in `labels` (the labels a call
  // is about to take), so that a call that stops taking a label frees its arrays.
  static void keep_only(const std::vector<std::string>& labels) {
    std::lock_guard<std::mutex> lock(mutex());
    drop_unheld([&](const std::string& label) {
      return std::find(labels.begin(), labels.end(), label) == labels.end();
    });
  }

  // Drops every array the cache keeps (the caller's copies stay valid).
  static void release() {
    std::lock_guard<std::mutex> lock(mutex());
    for (const auto& clear : clears()) clear(nullptr);
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

  // Drops, from the arrays of every type, those that no one else holds and whose label
  // `drops` names; under the mutex.
  using LabelTest = std::function<bool(const std::string&)>;
  static void drop_unheld(const LabelTest& drops) {
    for (const auto& clear : clears()) clear(&drops);
  }

  // Under the mutex. Each type's arrays register a function that drops the unheld arrays a
  // test names, or with no test every array.
  template <class ViewType>
  static std::vector<Kept<ViewType>>& arrays() {
    static std::vector<Kept<ViewType>>* kept = nullptr;
    if (kept == nullptr) {
      kept = new std::vector<Kept<ViewType>>();
      clears().push_back([](const LabelTest* drops) {
        if (drops == nullptr) {
          kept->clear();
          return;
        }
        kept->erase(std::remove_if(kept->begin(), kept->end(),
                                   [&](const Kept<ViewType>& k) {
                                     return k.view.use_count() == 1 && (*drops)(k.label);
                                   }),
                    kept->end());
      });
    }
    // Before Kokkos finalizes its spaces the kept Views' memory goes back; a later
    // Kokkos::initialize hooks again.
    if (!hooked()) {
      hooked() = true;
      Kokkos::push_finalize_hook([] {
        std::lock_guard<std::mutex> hook_lock(mutex());
        for (const auto& clear : clears()) clear(nullptr);
        hooked() = false;
      });
    }
    return *kept;
  }
  static bool& hooked() {
    static bool h = false;
    return h;
  }
  // Allocated once and never destroyed, like the arrays' lists: Kokkos may finalize from a
  // static destructor, after function-local statics of this class would be gone.
  static std::vector<std::function<void(const LabelTest*)>>& clears() {
    static auto* c = new std::vector<std::function<void(const LabelTest*)>>();
    return *c;
  }
  static std::mutex& mutex() {
    static auto* m = new std::mutex();
    return *m;
  }
};

}  // namespace portasim::sfap::impl
