#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <string>

#include "portasim/core/error.hpp"
#include "portasim/core/memory_pool.hpp"
#include "portasim/core/pool_limit.hpp"

namespace test_pool_limit {

using portasim::PoolLimit;

inline std::string parse_error(const char* text) {
  try {
    PoolLimit::parse(text, "PORTASIM_POOL_LIMIT");
  } catch (const portasim::Error& e) {
    EXPECT_EQ(e.kind(), portasim::ErrorKind::invalid_argument);
    return e.what();
  }
  ADD_FAILURE() << "'" << text << "' was accepted";
  return {};
}

TEST(TEST_CATEGORY, pool_limit_parses_bytes_units_and_percentages) {
  constexpr std::size_t GiB = std::size_t(1) << 30;
  EXPECT_TRUE(PoolLimit::parse("none").unlimited());
  EXPECT_TRUE(PoolLimit::parse("NONE").unlimited());
  EXPECT_EQ(PoolLimit::parse("1073741824").resolve(0), GiB);
  EXPECT_EQ(PoolLimit::parse("4GiB").resolve(0), 4 * GiB);
  EXPECT_EQ(PoolLimit::parse("4gib").resolve(0), 4 * GiB);
  EXPECT_EQ(PoolLimit::parse("1.5GiB").resolve(0), 3 * GiB / 2);
  EXPECT_EQ(PoolLimit::parse("512KiB").resolve(0), 512u * 1024u);
  EXPECT_EQ(PoolLimit::parse("3MiB").resolve(0), 3u << 20);
  EXPECT_EQ(PoolLimit::parse("2TiB").resolve(0), 2048 * GiB);
  EXPECT_EQ(PoolLimit::parse("500MB").resolve(0), 500000000u);
  EXPECT_EQ(PoolLimit::parse("4GB").resolve(0), 4000000000u);
  EXPECT_EQ(PoolLimit::parse("7kB").resolve(0), 7000u);
  EXPECT_EQ(PoolLimit::parse("64B").resolve(0), 64u);
  const PoolLimit half = PoolLimit::parse("50%");
  EXPECT_TRUE(half.is_fraction());
  EXPECT_EQ(half.resolve(1000), 500u);
  EXPECT_EQ(PoolLimit::parse("12.5%").resolve(8000), 1000u);
  EXPECT_EQ(PoolLimit::parse("100%").resolve(8000), 8000u);
  EXPECT_EQ(PoolLimit::none().resolve(123), std::numeric_limits<std::size_t>::max());
  EXPECT_EQ(PoolLimit::fraction(0.25).resolve(4000), 1000u);
}

TEST(TEST_CATEGORY, pool_limit_rejects_bad_values_with_a_clear_message) {
  for (const char* bad :
       {"", "abc", "-1", "+5", "0", "0%", "101%", "5 GiB", "5GiBs", "5XB", "1e9", "1.", ".5", "1.5",
        "4GiB ", " 4GiB", "50%%", "99999999999999999999999", "0.0000001KiB"}) {
    const std::string message = parse_error(bad);
    EXPECT_NE(message.find("PORTASIM_POOL_LIMIT '" + std::string(bad) + "'"), std::string::npos)
        << message;
    EXPECT_NE(message.find("50%"), std::string::npos) << message;  // names the accepted forms
  }
  EXPECT_THROW(PoolLimit::bytes(0), portasim::Error);
  EXPECT_THROW(PoolLimit::fraction(0), portasim::Error);
  EXPECT_THROW(PoolLimit::fraction(1.5), portasim::Error);
}

TEST(TEST_CATEGORY, pool_limit_comes_from_the_environment) {
  using Pool = portasim::MemoryPool<Kokkos::HostSpace>;
  unsetenv(portasim::pool_limit_variable);
  EXPECT_TRUE(portasim::pool_limit_from_environment().unlimited());
  EXPECT_EQ(Pool().limit_bytes(), std::numeric_limits<std::size_t>::max());
  setenv(portasim::pool_limit_variable, "3MiB", 1);
  EXPECT_EQ(Pool().limit_bytes(), 3u << 20);
  setenv(portasim::pool_limit_variable, "50%", 1);
  const std::size_t physical =
      portasim::impl::MemorySpaceCapacity<Kokkos::HostSpace>::total_bytes();
  EXPECT_GT(physical, 0u);
  EXPECT_EQ(Pool().limit_bytes(), physical / 2);
  setenv(portasim::pool_limit_variable, "lots", 1);
  try {
    Pool pool;
    ADD_FAILURE() << "a pool was built with PORTASIM_POOL_LIMIT=lots";
  } catch (const portasim::Error& e) {
    EXPECT_EQ(e.kind(), portasim::ErrorKind::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("PORTASIM_POOL_LIMIT 'lots'"), std::string::npos)
        << e.what();
  }
  // An explicit limit does not read the variable.
  EXPECT_EQ(Pool(PoolLimit::bytes(4096)).limit_bytes(), 4096u);
  unsetenv(portasim::pool_limit_variable);
}

TEST(TEST_CATEGORY, pool_size_classes_bound_the_slack) {
  using portasim::impl::pool_size_class;
  EXPECT_EQ(pool_size_class(0), 512u);
  EXPECT_EQ(pool_size_class(1), 512u);
  EXPECT_EQ(pool_size_class(512), 512u);
  EXPECT_EQ(pool_size_class(513), 1024u);
  EXPECT_EQ(pool_size_class(std::size_t(1) << 20), std::size_t(1) << 20);
  EXPECT_EQ(pool_size_class((std::size_t(1) << 20) + 1),
            (std::size_t(1) << 20) + (std::size_t(1) << 17));
  EXPECT_EQ(pool_size_class(3u << 20), 3u << 20);
  EXPECT_EQ(pool_size_class((3u << 20) + 1), (3u << 20) + (1u << 18));
  for (std::size_t bytes = 1; bytes < (std::size_t(1) << 34); bytes = bytes * 3 + 7) {
    const std::size_t size = pool_size_class(bytes);
    EXPECT_GE(size, bytes);
    EXPECT_EQ(size % 512, 0u);
    EXPECT_LE(static_cast<double>(size), 1.125 * static_cast<double>(bytes) + 512) << bytes;
    EXPECT_EQ(pool_size_class(size), size);  // classes are fixed points
  }
}

TEST(TEST_CATEGORY, format_bytes_is_readable) {
  EXPECT_EQ(portasim::format_bytes(0), "0 B");
  EXPECT_EQ(portasim::format_bytes(1023), "1023 B");
  EXPECT_EQ(portasim::format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(portasim::format_bytes(std::size_t(3) << 30), "3 GiB");
}

}  // namespace test_pool_limit
