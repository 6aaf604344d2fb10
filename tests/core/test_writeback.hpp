// Starting the writeback of finished files in the background.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "portasim/core/writeback.hpp"

namespace test_writeback {

namespace fs = std::filesystem;

// Starting the writeback of files reads nothing into them and writes nothing: each file
// keeps its bytes, a file removed before its turn is skipped, and the destructor returns
// once the queue is done.
TEST(TEST_CATEGORY, writeback_leaves_files_as_they_are) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path folder = fs::temp_directory_path() / ("portasim_" + std::string(test->name()) +
                                                       "_" + std::to_string(::getpid()));
  fs::remove_all(folder);
  fs::create_directories(folder);
  std::vector<std::string> paths;
  for (int i = 0; i < 8; ++i) {
    paths.push_back((folder / ("chunk_" + std::to_string(i) + ".npy")).string());
    std::ofstream(paths.back(), std::ios::binary) << std::string(1 << 16, char('a' + i));
  }
  {
    portasim::io::BackgroundWriteback writeback;
    writeback.start((folder / "missing.npy").string());
    for (const auto& path : paths) writeback.start(path);
  }
  for (int i = 0; i < 8; ++i) {
    std::ifstream in(paths[static_cast<std::size_t>(i)], std::ios::binary);
    const std::string content((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    EXPECT_EQ(content, std::string(1 << 16, char('a' + i))) << paths[static_cast<std::size_t>(i)];
  }
  EXPECT_FALSE(fs::exists(folder / "missing.npy"));
  fs::remove_all(folder);
}

}  // namespace test_writeback
