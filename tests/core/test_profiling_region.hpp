#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

#include "portasim/core/profiling_region.hpp"

namespace test_profiling_region {

// Records what reaches the Kokkos profiling interface, as a Kokkos tool would see it.
inline std::vector<std::string>& events() {
  static std::vector<std::string> recorded;
  return recorded;
}
inline void on_push(const char* name) { events().push_back(std::string("push ") + name); }
inline void on_pop() { events().push_back("pop"); }

TEST(TEST_CATEGORY, profiling_region_pushes_and_pops) {
  namespace tools = Kokkos::Tools::Experimental;
  events().clear();
  tools::set_push_region_callback(on_push);
  tools::set_pop_region_callback(on_pop);
  {
    portasim::ProfilingRegion outer("kernel 0-9");
    portasim::ProfilingRegion inner("D2H 0-9");
  }
  tools::set_push_region_callback(nullptr);
  tools::set_pop_region_callback(nullptr);
  const std::vector<std::string> expected{"push kernel 0-9", "push D2H 0-9", "pop", "pop"};
  EXPECT_EQ(events(), expected);
}

}  // namespace test_profiling_region
