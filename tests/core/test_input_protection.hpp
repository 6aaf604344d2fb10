#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "portasim/core/error.hpp"
#include "portasim/core/input_protection.hpp"

namespace test_input_protection {

namespace fs = std::filesystem;
using portasim::io::NamedPath;
using portasim::io::require_inputs_spared;
using portasim::io::same_file;

// A fresh folder per test and process, so that backends and CTest jobs never share files.
struct Folder {
  fs::path path;
  Folder() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    path = fs::temp_directory_path() /
           ("portasim_" + std::string(test->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path / "sub");
  }
  ~Folder() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

inline std::string refusal(const std::vector<NamedPath>& outputs,
                           const std::vector<NamedPath>& inputs) {
  try {
    require_inputs_spared(outputs, inputs);
  } catch (const portasim::Error& e) {
    EXPECT_EQ(e.kind(), portasim::ErrorKind::invalid_argument);
    return e.what();
  }
  return {};
}

TEST(TEST_CATEGORY, same_file_compares_identity_not_spelling) {
  Folder folder;
  const std::string input = folder.file("unit.h5");
  std::ofstream(input) << "motor unit";
  fs::create_symlink(input, folder.file("link.h5"));
  fs::create_hard_link(input, folder.file("hard.h5"));
  std::ofstream(folder.file("other.h5")) << "motor unit";  // same bytes, another file
  EXPECT_TRUE(same_file(input, input));
  EXPECT_TRUE(same_file(input, folder.file("link.h5")));
  EXPECT_TRUE(same_file(input, folder.file("hard.h5")));
  EXPECT_TRUE(same_file(input, folder.file("sub/../unit.h5")));
  EXPECT_TRUE(same_file(input, folder.file("./unit.h5")));
  EXPECT_FALSE(same_file(input, folder.file("other.h5")));
  EXPECT_FALSE(same_file(input, folder.file("missing.h5")));
  EXPECT_FALSE(same_file(folder.file("missing.h5"), folder.file("missing.h5")));
}

TEST(TEST_CATEGORY, outputs_never_write_over_inputs) {
  Folder folder;
  const std::string input = folder.file("unit.h5");
  std::ofstream(input) << "motor unit";
  fs::create_symlink(input, folder.file("link.h5"));
  fs::create_hard_link(input, folder.file("hard.h5"));
  const std::vector<NamedPath> inputs{{"--stimulus-file", folder.file("missing.h5")},
                                      {"--input", input}};
  for (const std::string& output :
       {input, folder.file("link.h5"), folder.file("hard.h5"), folder.file("sub/../unit.h5")}) {
    const std::string message = refusal({{"--output", output}}, inputs);
    EXPECT_NE(message.find("--output '" + output + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("--input '" + input + "'"), std::string::npos) << message;
  }
  // The temporary an output is written to first would truncate an input of that name.
  const std::string partial = portasim::io::temporary_path_of(folder.file("result.h5"));
  std::ofstream(partial) << "an input named like a temporary";
  const std::string message =
      refusal({{"--output", folder.file("result.h5")}}, {{"--initial", partial}});
  EXPECT_NE(message.find("temporary file '" + partial + "'"), std::string::npos) << message;
  EXPECT_NE(message.find("--initial"), std::string::npos) << message;
  // Distinct files pass, and so do inputs that do not exist (reading them fails later).
  EXPECT_EQ(refusal({{"--output", folder.file("result.h5")}}, inputs), "");
  EXPECT_EQ(refusal({{"--output", input}}, {}), "");
  std::ifstream kept(input);
  std::string content;
  std::getline(kept, content);
  EXPECT_EQ(content, "motor unit");
}

}  // namespace test_input_protection
