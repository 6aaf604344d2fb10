// Every kernel of a job runs on the instance it was given, and the job never synchronizes the
// default instance or the whole device, checked with Kokkos Tools callbacks as ArborX does
// (test/tstKokkosToolsExecutionSpaceInstances.cpp). The jobs run on an instance of an
// InstancePool, not on the default one.
//
// What a Kokkos Tools device id can tell apart decides what is checked:
// - The execution-space type (the top 8 bits on every Kokkos release) always: a kernel of
//   another space, such as a View initialized on the default host space by a Serial job,
//   fails.
// - The exact instance where the instances' ids differ (CUDA streams from Kokkos 4); where
//   the default instance and the job's share an id (every host space), the test says so
//   and the type check still runs.
// - Fences where Kokkos reports them (Kokkos 4; 3.4 reports none): no fence of the whole
//   space (Kokkos::fence(), an instance-less deep_copy or create_mirror_view_and_copy) or
//   of the default instance, other than those Kokkos makes itself around memory management
//   and for the tool; the job's own instance and its internal copy instances may be fenced.
#include <gtest/gtest.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <string>
#include <vector>

#include "portasim/core/instance_pool.hpp"
#include "portasim/hh/job.hpp"
#include "portasim/life/job.hpp"
#include "portasim/sfap/job.hpp"
#include "sfap/sfap_test_support.hpp"

namespace test_instance_use {

struct ToolEvent {
  enum class Kind { kernel, fence, deep_copy };
  Kind kind;
  std::string name;
  std::uint32_t device_id = 0;  // none for a deep copy: Kokkos does not say on which instance
};

// Records Kokkos Tools events while it lives; its destructor removes the callbacks. Kokkos
// takes plain function pointers, so the events go to one process-wide log: one recorder at
// a time.
class ToolEventRecorder {
 public:
  ToolEventRecorder() {
    {
      std::lock_guard<std::mutex> lock(mutex());
      log().clear();
    }
    namespace kt = Kokkos::Tools::Experimental;
    kt::set_begin_parallel_for_callback(on_kernel);
    kt::set_begin_parallel_reduce_callback(on_kernel);
    kt::set_begin_parallel_scan_callback(on_kernel);
    kt::set_begin_fence_callback(on_fence);
    kt::set_begin_deep_copy_callback(on_deep_copy);
  }
  ~ToolEventRecorder() {
    namespace kt = Kokkos::Tools::Experimental;
    kt::set_begin_parallel_for_callback(nullptr);
    kt::set_begin_parallel_reduce_callback(nullptr);
    kt::set_begin_parallel_scan_callback(nullptr);
    kt::set_begin_fence_callback(nullptr);
    kt::set_begin_deep_copy_callback(nullptr);
  }
  ToolEventRecorder(const ToolEventRecorder&) = delete;
  ToolEventRecorder& operator=(const ToolEventRecorder&) = delete;

  std::vector<ToolEvent> events() const {
    std::lock_guard<std::mutex> lock(mutex());
    return log();
  }

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::vector<ToolEvent>& log() {
    static std::vector<ToolEvent> events;
    return events;
  }
  static void add(ToolEvent event) {
    std::lock_guard<std::mutex> lock(mutex());
    log().push_back(std::move(event));
  }
  static void on_kernel(const char* name, std::uint32_t device_id, std::uint64_t*) {
    add({ToolEvent::Kind::kernel, name, device_id});
  }
  static void on_fence(const char* name, std::uint32_t device_id, std::uint64_t*) {
    add({ToolEvent::Kind::fence, name, device_id});
  }
  static void on_deep_copy(Kokkos::Tools::SpaceHandle, const char* dst_name, const void*,
                           Kokkos::Tools::SpaceHandle, const char* src_name, const void*,
                           std::uint64_t) {
    add({ToolEvent::Kind::deep_copy, std::string(src_name) + " -> " + dst_name, 0});
  }
};

// A device id is the space's type in its top 8 bits (Kokkos 3.4: type << 24 + instance;
// Kokkos 4: type << 24 + device << 17 + instance).
inline std::uint32_t space_type_of(std::uint32_t device_id) { return device_id >> 24; }
// Kokkos 4 reports a fence of every instance of a space (Kokkos::fence(), and the tool's
// own) with instance bits 0, and the CUDA deep-copy resource's with all 24 low bits set;
// an instance's ids start at 1.
inline bool is_space_wide(std::uint32_t device_id) {
  const std::uint32_t low = device_id & 0x00ffffffu;
  return low == 0 || low == 0x00ffffffu;
}

// Fences Kokkos itself makes that a library cannot avoid: the tool's fence before every
// callback (Kokkos 4, while a tool is attached) and the ones around allocating and freeing
// memory (of the whole space, or of the memory space's default instance). A job may allocate
// at setup and free at teardown; a pipeline must not per chunk, which this test does not
// tell apart.
inline bool is_kokkos_own_fence(const std::string& name) {
  for (const char* own : {"Kokkos Profile Tool Fence", "impl_allocate", "impl_deallocate",
                          "SharedAllocationRecord", "async malloc", "async free"})
    if (name.find(own) != std::string::npos) return true;
  return false;
}

template <class Exec>
bool instances_distinguishable(const Exec& exec) {
  return Kokkos::Tools::Experimental::device_id(exec) !=
         Kokkos::Tools::Experimental::device_id(Kokkos::DefaultExecutionSpace());
}

// The rule's breaches among `events`, one line each.
template <class Exec>
std::vector<std::string> misplaced(const std::vector<ToolEvent>& events, const Exec& exec) {
  namespace kt = Kokkos::Tools::Experimental;
  const std::uint32_t given = kt::device_id(exec);
  const std::uint32_t default_id = kt::device_id(Kokkos::DefaultExecutionSpace());
  const bool exact = instances_distinguishable(exec);
  std::vector<std::string> wrong;
  auto say = [&](const char* what, const ToolEvent& e) {
    wrong.push_back(std::string(what) + " \"" + e.name + "\" on device id " +
                    std::to_string(e.device_id) + ", given instance " + std::to_string(given) +
                    ", default instance " + std::to_string(default_id));
  };
  for (const ToolEvent& e : events) {
    if (e.kind == ToolEvent::Kind::kernel) {
      if (space_type_of(e.device_id) != space_type_of(given))
        say("kernel of another execution space", e);
      else if (exact && e.device_id != given) say("kernel on another instance", e);
    } else if (e.kind == ToolEvent::Kind::fence && !is_kokkos_own_fence(e.name)) {
      if (is_space_wide(e.device_id)) {
        say("fence of the whole space", e);
      } else if (space_type_of(e.device_id) != space_type_of(given)) {
        say("fence of another execution space", e);
      } else if (exact && e.device_id == default_id) {
        say("fence of the default instance", e);
      }
    }
  }
  return wrong;
}

inline std::size_t count(const std::vector<ToolEvent>& events, ToolEvent::Kind kind) {
  std::size_t n = 0;
  for (const ToolEvent& e : events) n += e.kind == kind;
  return n;
}

template <class Exec>
void say_what_is_checked(const Exec& exec) {
  if (instances_distinguishable(exec)) return;
  static bool said = false;
  if (!said)
    std::cout << "note: this Kokkos gives the default " << Exec::name()
              << " instance and the job's the same device id: kernels are checked by space "
                 "type, not by instance\n";
  said = true;
  ::testing::Test::RecordProperty("instance_check", "space type only");
}

// Runs `job` on `exec` with the callbacks attached and checks every event it caused.
template <class Exec, class Job>
void expect_job_on_instance(const Exec& exec, Job&& job) {
  say_what_is_checked(exec);
  std::vector<ToolEvent> events;
  {
    ToolEventRecorder recorder;
    job();
    events = recorder.events();
  }
  // A job without kernels or copies would pass vacuously: every job here has both. Kokkos
  // does not say on which instance a copy runs: an instance-less copy shows in its fences.
  EXPECT_GT(count(events, ToolEvent::Kind::kernel), 0u);
  EXPECT_GT(count(events, ToolEvent::Kind::deep_copy), 0u);
  std::string list;
  for (const std::string& line : misplaced(events, exec)) list += "  " + line + "\n";
  EXPECT_TRUE(list.empty()) << "work outside the job's instance:\n" << list;
}

template <class Exec>
void hh_job_stays_on_its_instance() {
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  portasim::hh::JobSpec spec;
  spec.config.neurons = 8;
  spec.config.t_ms = 20;
  spec.config.every = 10;
  spec.config.trace = portasim::hh::Trace::all;
  // Seven samples of V, m, h and n a chunk: the traces stream out in many chunks.
  spec.config.trace_chunk_bytes = 7 * 8 * sizeof(float) * 4;
  spec.generated.amplitude_first = 0;
  spec.generated.amplitude_last = 15;
  spec.keep_result = true;
  portasim::hh::TraceInMemory<float> traces;
  expect_job_on_instance(exec, [&] { portasim::hh::run_job<float>(exec, spec, {}, &traces); });
  EXPECT_GT(traces.chunks, 2);
}

template <class Exec>
void sfap_job_stays_on_its_instance() {
  SFAP_REQUIRE_REFERENCE("r1_20f_4e_dz0p1.h5");
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  portasim::sfap::JobSpec spec;
  spec.input_path = sfap_test::reference_path("r1_20f_4e_dz0p1.h5");
  portasim::sfap::JobReport report;
  expect_job_on_instance(exec, [&] { report = portasim::sfap::run_job(exec, spec); });
  EXPECT_EQ(report.fibers, 20);
}

template <class Exec>
void life_job_stays_on_its_instance() {
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  portasim::life::JobSpec spec;
  spec.config.height = 24;
  spec.config.width = 128;
  spec.config.steps = 23;
  spec.config.chunk_size = 10;
  spec.config.engine = portasim::life::Engine::bits;
  spec.seed = 99;
  spec.keep_final_grid = true;
  // A name of its own: CTest runs the backends and thread counts side by side.
  spec.output_path =
      std::string("instance_use_life_") + Exec::name() + "_" + std::to_string(::getpid()) + ".h5";
  int chunks = 0;
  portasim::life::ChunkCallback sink([&](const portasim::life::Chunk&) { ++chunks; });
  portasim::life::JobReport report;
  expect_job_on_instance(exec, [&] { report = portasim::life::run_job(exec, spec, {}, &sink); });
  EXPECT_EQ(chunks, 4);
  EXPECT_TRUE(report.final_grid.has_value());
  std::remove(spec.output_path.c_str());
}

// The check itself: a kernel on the default instance, and (where Kokkos reports fences) a
// deep copy without an instance, are caught wherever the device ids can tell them apart.
template <class Exec>
void checker_catches_default_instance_work() {
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  Kokkos::View<int*, Kokkos::DefaultExecutionSpace::memory_space> data("data", 16);
  Kokkos::View<int*, Kokkos::DefaultExecutionSpace::memory_space> other("other", 16);
  Kokkos::fence();
  std::vector<ToolEvent> events;
  {
    ToolEventRecorder recorder;
    Kokkos::parallel_for(
        "on_default_instance", Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace>(0, 16),
        KOKKOS_LAMBDA(const int i) { data(i) = i; });
    Kokkos::deep_copy(other, data);
    exec.fence();
    events = recorder.events();
  }
  const auto wrong = misplaced(events, exec);
  const bool kernel_visible =
      instances_distinguishable(exec) ||
      space_type_of(Kokkos::Tools::Experimental::device_id(exec)) !=
          space_type_of(Kokkos::Tools::Experimental::device_id(Kokkos::DefaultExecutionSpace()));
  bool kernel_caught = false;
  bool fence_caught = false;
  for (const std::string& line : wrong) {
    kernel_caught |= line.find("on_default_instance") != std::string::npos;
    fence_caught |= line.find("fence") == 0;
  }
  if (kernel_visible) EXPECT_TRUE(kernel_caught);
  // Kokkos 4 reports the two-argument deep copy's fences of the whole space.
  bool fences_reported = false;
  for (const ToolEvent& e : events) fences_reported |= e.kind == ToolEvent::Kind::fence;
  if (fences_reported) EXPECT_TRUE(fence_caught);
  if (!kernel_visible && !fences_reported)
    GTEST_SKIP() << "this Kokkos gives the default " << Exec::name()
                 << " instance and the job's the same device id and reports no fences";
}

TEST(TEST_CATEGORY, instance_use_hh_job) { hh_job_stays_on_its_instance<TEST_EXECSPACE>(); }
TEST(TEST_CATEGORY, instance_use_sfap_job) { sfap_job_stays_on_its_instance<TEST_EXECSPACE>(); }
TEST(TEST_CATEGORY, instance_use_life_job) { life_job_stays_on_its_instance<TEST_EXECSPACE>(); }
TEST(TEST_CATEGORY, instance_use_checker_catches_default_instance) {
  checker_catches_default_instance_work<TEST_EXECSPACE>();
}

}  // namespace test_instance_use
