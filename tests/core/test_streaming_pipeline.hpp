#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/core/streaming_pipeline.hpp"

namespace test_streaming_pipeline {

template <class Exec>
using slot_view = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, typename Exec::memory_space>;

// Chunk c holds value c * 1000 + i at element i; chunk sizes vary so that a consumer that
// read a stale or foreign slot would see the wrong values or count.
template <class Exec>
void streams_every_chunk_in_order(int slot_count) {
  portasim::InstancePool<Exec> pool(1);
  const Exec& compute = pool[0];
  const std::int64_t rows = 3, cols = 7, chunks = 9;
  std::vector<slot_view<Exec>> slots;
  for (int s = 0; s < slot_count; ++s) slots.emplace_back("slot", rows, cols);
  portasim::StreamingPipeline<slot_view<Exec>, Exec> pipeline(compute, slots);
  EXPECT_EQ(pipeline.slots(), slot_count);
  std::vector<std::int64_t> seen;  // chunk numbers in the order they were handed over
  for (std::int64_t c = 0; c < chunks; ++c) {
    const slot_view<Exec>& slot = pipeline.begin_chunk();
    // Chunk 4 records nothing: it keeps its place but reaches no consumer.
    const std::int64_t count = c == 4 ? 0 : (c % rows + 1) * cols;
    Kokkos::parallel_for(
        "fill", Kokkos::RangePolicy<Exec>(compute, 0, rows * cols),
        KOKKOS_LAMBDA(const std::int64_t i) { slot(i / cols, i % cols) = c * 1000 + i; });
    pipeline.end_chunk(static_cast<std::size_t>(count),
                       [&seen, c, count](const std::int64_t* data, std::size_t n) {
                         ASSERT_EQ(static_cast<std::int64_t>(n), count);
                         for (std::int64_t i = 0; i < count; ++i) ASSERT_EQ(data[i], c * 1000 + i);
                         seen.push_back(c);
                       });
    // No more than slots - 1 chunks wait after end_chunk: the rest were handed over.
    EXPECT_GE(static_cast<std::int64_t>(seen.size()), c + 1 - (slot_count - 1) - (c >= 4));
  }
  pipeline.finish();
  EXPECT_EQ(pipeline.chunks(), chunks);
  const std::vector<std::int64_t> expected{0, 1, 2, 3, 5, 6, 7, 8};
  EXPECT_EQ(seen, expected);
  EXPECT_GE(pipeline.timings().compute_seconds, 0.0);
  EXPECT_GE(pipeline.timings().copy_seconds, 0.0);
  EXPECT_GE(pipeline.timings().hand_over_seconds, 0.0);
}

template <class Exec>
void refuses_misuse() {
  std::vector<slot_view<Exec>> none;
  EXPECT_THROW((portasim::StreamingPipeline<slot_view<Exec>, Exec>(Exec(), none)), portasim::Error);
  std::vector<slot_view<Exec>> uneven{slot_view<Exec>("a", 2, 2), slot_view<Exec>("b", 2, 3)};
  EXPECT_THROW((portasim::StreamingPipeline<slot_view<Exec>, Exec>(Exec(), uneven)),
               portasim::Error);
  portasim::StreamingPipeline<slot_view<Exec>, Exec> pipeline(Exec(), {slot_view<Exec>("a", 2, 2)});
  EXPECT_THROW(pipeline.end_chunk(0, nullptr), portasim::Error);  // nothing open
  pipeline.begin_chunk();
  EXPECT_THROW(pipeline.begin_chunk(), portasim::Error);          // still open
  EXPECT_THROW(pipeline.end_chunk(5, nullptr), portasim::Error);  // more than a slot holds
  pipeline.end_chunk(4, nullptr);
  pipeline.finish();
}

}  // namespace test_streaming_pipeline

TEST(TEST_CATEGORY, streaming_pipeline_one_slot) {
  test_streaming_pipeline::streams_every_chunk_in_order<TEST_EXECSPACE>(1);
}
TEST(TEST_CATEGORY, streaming_pipeline_two_slots) {
  test_streaming_pipeline::streams_every_chunk_in_order<TEST_EXECSPACE>(2);
}
TEST(TEST_CATEGORY, streaming_pipeline_three_slots) {
  test_streaming_pipeline::streams_every_chunk_in_order<TEST_EXECSPACE>(3);
}
TEST(TEST_CATEGORY, streaming_pipeline_refuses_misuse) {
  test_streaming_pipeline::refuses_misuse<TEST_EXECSPACE>();
}
