#include "portasim/config.hpp"

#if defined(PORTASIM_ENABLE_HDF5)
#include <gtest/gtest.h>
#include <hdf5.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"

namespace test_hdf5_file {

namespace fs = std::filesystem;
using portasim::Error;
using portasim::ErrorKind;
using portasim::io::AtomicOutput;
using portasim::io::ExtendibleDataset;
using portasim::io::H5File;

// A fresh folder per test (named after the test and the process, so parallel CTest runs and
// the 1- and 2-thread runs never share files), removed with everything in it at scope exit.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    m_path = fs::temp_directory_path() /
             ("portasim_" + std::string(test->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(m_path);
    fs::create_directories(m_path);
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    fs::remove_all(m_path, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;

  std::string file(const std::string& name) const { return (m_path / name).string(); }
  const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
};

struct Failure {
  bool thrown = false;
  ErrorKind kind = ErrorKind::internal;
  std::string message;
};

template <class Operation>
Failure failure_of(Operation&& operation) {
  try {
    operation();
  } catch (const Error& e) {
    return {true, e.kind(), e.what()};
  }
  return {};
}

#define EXPECT_PORTASIM_ERROR(operation, expected_kind, ...)                     \
  do {                                                                           \
    const Failure failure_ = failure_of([&] { operation; });                     \
    EXPECT_TRUE(failure_.thrown) << #operation " did not throw portasim::Error"; \
    EXPECT_EQ(failure_.kind, expected_kind) << failure_.message;                 \
    for (const std::string& part_ : std::vector<std::string>{__VA_ARGS__})       \
      EXPECT_NE(failure_.message.find(part_), std::string::npos)                 \
          << "message \"" << failure_.message << "\" lacks \"" << part_ << "\""; \
  } while (false)

// Values that exercise the whole type: extremes first, then small numbers that every type holds.
template <class T>
std::vector<T> sample_values(std::size_t count) {
  std::vector<T> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<T>(i % 97);
  if (count > 0) values[0] = std::numeric_limits<T>::max();
  if (count > 1) values[1] = std::numeric_limits<T>::lowest();
  if constexpr (std::is_floating_point_v<T>)
    if (count > 2) values[2] = static_cast<T>(-0.125);
  return values;
}

template <class T>
void round_trip_ranks_0_to_3(H5File& file, const std::string& group) {
  const std::vector<std::vector<std::size_t>> shapes{{}, {5}, {3, 4}, {2, 3, 4}, {0}, {2, 0, 3}};
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    const auto& dims = shapes[s];
    std::size_t count = 1;
    for (std::size_t d : dims) count *= d;
    const auto values = sample_values<T>(count);
    const std::string path = group + "/shape" + std::to_string(s);
    file.write(path, values.data(), dims);
    std::vector<std::size_t> shape{99};
    EXPECT_EQ(file.read<T>(path, &shape), values) << path;
    EXPECT_EQ(shape, dims) << path;
    EXPECT_EQ(file.shape(path), dims) << path;
  }
  const auto values = sample_values<T>(7);
  file.write(group + "/vector", values);
  EXPECT_EQ(file.read<T>(group + "/vector"), values);
}

template <class T>
void round_trip_after_reopening(const H5File& file, const std::string& group) {
  const std::vector<std::vector<std::size_t>> shapes{{}, {5}, {3, 4}, {2, 3, 4}, {0}, {2, 0, 3}};
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    std::size_t count = 1;
    for (std::size_t d : shapes[s]) count *= d;
    std::vector<std::size_t> shape;
    EXPECT_EQ(file.read<T>(group + "/shape" + std::to_string(s), &shape), sample_values<T>(count));
    EXPECT_EQ(shape, shapes[s]);
  }
}

TEST(TEST_CATEGORY, hdf5_round_trips_every_type_and_rank) {
  TemporaryFolder folder;
  const std::string path = folder.file("types.h5");
  {
    H5File file = H5File::create(path);
    EXPECT_EQ(file.path(), path);
    round_trip_ranks_0_to_3<float>(file, "/float");
    round_trip_ranks_0_to_3<double>(file, "/double");
    round_trip_ranks_0_to_3<std::int8_t>(file, "/int8");
    round_trip_ranks_0_to_3<std::int16_t>(file, "/int16");
    round_trip_ranks_0_to_3<std::int32_t>(file, "/int32");
    round_trip_ranks_0_to_3<std::int64_t>(file, "/int64");
    round_trip_ranks_0_to_3<std::uint8_t>(file, "/uint8");
    round_trip_ranks_0_to_3<std::uint16_t>(file, "/uint16");
    round_trip_ranks_0_to_3<std::uint32_t>(file, "/uint32");
    round_trip_ranks_0_to_3<std::uint64_t>(file, "/uint64");
  }
  // From disk, in a file opened read-only, not only from HDF5's cache.
  const H5File file = H5File::open_read(path);
  round_trip_after_reopening<float>(file, "/float");
  round_trip_after_reopening<double>(file, "/double");
  round_trip_after_reopening<std::int8_t>(file, "/int8");
  round_trip_after_reopening<std::int16_t>(file, "/int16");
  round_trip_after_reopening<std::int32_t>(file, "/int32");
  round_trip_after_reopening<std::int64_t>(file, "/int64");
  round_trip_after_reopening<std::uint8_t>(file, "/uint8");
  round_trip_after_reopening<std::uint16_t>(file, "/uint16");
  round_trip_after_reopening<std::uint32_t>(file, "/uint32");
  round_trip_after_reopening<std::uint64_t>(file, "/uint64");
}

TEST(TEST_CATEGORY, hdf5_read_converts_numbers_but_refuses_to_change_them) {
  TemporaryFolder folder;
  const std::string path = folder.file("convert.h5");
  H5File file = H5File::create(path);
  file.write("/small", std::vector<std::int32_t>{-3, 0, 7});
  file.write("/fractions", std::vector<double>{0.5, 2.25});
  file.write("/big", std::vector<std::int64_t>{1, 300});
  file.write("/nan", std::vector<double>{1.0, std::nan("")});
  file.write("/wide", std::vector<double>{0.1, -1e30});

  EXPECT_EQ(file.read<double>("/small"), (std::vector<double>{-3, 0, 7}));
  EXPECT_EQ(file.read<std::int8_t>("/small"), (std::vector<std::int8_t>{-3, 0, 7}));
  EXPECT_EQ(file.read<float>("/fractions"), (std::vector<float>{0.5f, 2.25f}));
  const auto narrowed = file.read<float>("/wide");  // rounding a double to float is fine
  EXPECT_EQ(narrowed[0], 0.1f);
  EXPECT_EQ(narrowed[1], -1e30f);
  const auto nan = file.read<float>("/nan");
  EXPECT_TRUE(std::isnan(nan[1]));

  EXPECT_PORTASIM_ERROR(file.read<std::uint8_t>("/big"), ErrorKind::invalid_argument, "'/big'",
                        path, "out of the range of uint8");
  EXPECT_PORTASIM_ERROR(file.read<std::uint32_t>("/small"), ErrorKind::invalid_argument, "'/small'",
                        "out of the range of uint32");
  EXPECT_PORTASIM_ERROR(file.read<std::int32_t>("/fractions"), ErrorKind::invalid_argument,
                        "'/fractions'", "fractional");
  EXPECT_PORTASIM_ERROR(file.read<std::int64_t>("/nan"), ErrorKind::invalid_argument, "'/nan'");
}

TEST(TEST_CATEGORY, hdf5_write_replaces_an_existing_dataset) {
  TemporaryFolder folder;
  const std::string path = folder.file("replace.h5");
  H5File file = H5File::create(path);
  file.write("/x", std::vector<double>{1, 2, 3});
  file.write("/x", std::vector<double>{4, 5, 6});  // same type and shape: in place
  EXPECT_EQ(file.read<double>("/x"), (std::vector<double>{4, 5, 6}));
  file.write("/x", std::vector<std::int32_t>{7, 8});  // another type and shape: replaced
  EXPECT_EQ(file.read<std::int32_t>("/x"), (std::vector<std::int32_t>{7, 8}));
  const std::int64_t scalar = 9;
  file.write("/x", &scalar, {});
  EXPECT_EQ(file.shape("/x"), std::vector<std::size_t>{});
  EXPECT_EQ(file.read<std::int64_t>("/x"), std::vector<std::int64_t>{9});
  file.create_group("/g");
  EXPECT_PORTASIM_ERROR(file.write("/g", std::vector<double>{1}), ErrorKind::invalid_argument,
                        "'/g'", "is a group");
}

TEST(TEST_CATEGORY, hdf5_attributes_of_each_kind) {
  TemporaryFolder folder;
  const std::string path = folder.file("attributes.h5");
  {
    H5File file = H5File::create(path);
    file.write("/data/values", std::vector<float>{1, 2});
    file.write_attribute("/", "version", std::int32_t{3});
    file.write_attribute("/", "dt_ms", 0.025);
    file.write_attribute("/", "gain", 1.5f);
    file.write_attribute("/", "seed", std::uint64_t{18446744073709551615ull});
    file.write_attribute("/", "flag", std::uint8_t{1});
    file.write_attribute("/", "offset", std::int64_t{-5});
    file.write_attribute("/", "count", std::uint32_t{7});
    file.write_attribute("/", "title", std::string("Hodgkin–Huxley, 10 µs"));
    file.write_attribute("/", "literal", "plain C string");
    file.write_attribute("/", "empty", std::string());
    file.write_attribute("/data", "dims", std::vector<std::int64_t>{4, 5, 6});
    file.write_attribute("/data", "nothing", std::vector<double>{});
    file.write_attribute("/data/values", "units", "mV");
    file.write_attribute("data/values", "scale", std::vector<double>{0.5, 2.0});
    file.write_attribute("/data/values", "units", "V");   // replaces the first
    file.write_attribute("/", "dt_ms", std::int32_t{2});  // another type replaces too
  }
  const H5File file = H5File::open_read(path);
  EXPECT_EQ(file.read_attribute<std::int32_t>("/", "version"), 3);
  EXPECT_EQ(file.read_attribute<double>("/", "version"), 3.0);
  EXPECT_EQ(file.read_attribute<std::int32_t>("/", "dt_ms"), 2);
  EXPECT_EQ(file.read_attribute<float>("/", "gain"), 1.5f);
  EXPECT_EQ(file.read_attribute<double>("/", "gain"), 1.5);
  EXPECT_EQ(file.read_attribute<std::uint64_t>("/", "seed"), 18446744073709551615ull);
  EXPECT_EQ(file.read_attribute<std::uint8_t>("/", "flag"), 1);
  EXPECT_EQ(file.read_attribute<std::int64_t>("/", "offset"), -5);
  EXPECT_EQ(file.read_attribute<std::uint32_t>("/", "count"), 7u);
  EXPECT_EQ(file.read_string_attribute("/", "title"), "Hodgkin–Huxley, 10 µs");
  EXPECT_EQ(file.read_string_attribute("/", "literal"), "plain C string");
  EXPECT_EQ(file.read_string_attribute("/", "empty"), "");
  EXPECT_EQ(file.read_vector_attribute<std::int64_t>("/data", "dims"),
            (std::vector<std::int64_t>{4, 5, 6}));
  EXPECT_EQ(file.read_vector_attribute<std::int32_t>("/data", "dims"),
            (std::vector<std::int32_t>{4, 5, 6}));
  EXPECT_TRUE(file.read_vector_attribute<double>("/data", "nothing").empty());
  EXPECT_EQ(file.read_string_attribute("/data/values", "units"), "V");
  EXPECT_EQ(file.read_vector_attribute<double>("/data/values", "scale"),
            (std::vector<double>{0.5, 2.0}));
}

TEST(TEST_CATEGORY, hdf5_attribute_errors) {
  TemporaryFolder folder;
  const std::string path = folder.file("attribute_errors.h5");
  H5File file = H5File::create(path);
  file.write("/x", std::vector<double>{1});
  file.write_attribute("/x", "units", "mV");
  file.write_attribute("/x", "pair", std::vector<double>{1, 2});
  file.write_attribute("/x", "big", std::int64_t{1000});
  EXPECT_TRUE(file.has_attribute("/x", "units"));
  EXPECT_FALSE(file.has_attribute("/x", "missing"));
  EXPECT_FALSE(file.has_attribute("/missing/parent", "units"));
  EXPECT_PORTASIM_ERROR(file.read_attribute<double>("/x", "missing"), ErrorKind::io, "'missing'",
                        "'/x'", path, "not found");
  EXPECT_PORTASIM_ERROR(file.read_string_attribute("/nowhere", "units"), ErrorKind::io,
                        "'/nowhere'", path, "not found");
  EXPECT_PORTASIM_ERROR(file.read_attribute<double>("/x", "units"), ErrorKind::invalid_argument,
                        "'units'", "strings, expected numbers");
  EXPECT_PORTASIM_ERROR(file.read_string_attribute("/x", "pair"), ErrorKind::invalid_argument,
                        "'pair'", "expected a string");
  EXPECT_PORTASIM_ERROR(file.read_attribute<double>("/x", "pair"), ErrorKind::invalid_argument,
                        "'pair'", "shape (2,), expected a single value");
  EXPECT_PORTASIM_ERROR(file.read_attribute<std::int8_t>("/x", "big"), ErrorKind::invalid_argument,
                        "'big'", "out of the range of int8");
  EXPECT_PORTASIM_ERROR(file.write_attribute("/nowhere", "a", 1.0), ErrorKind::io, "'/nowhere'",
                        path);
}

TEST(TEST_CATEGORY, hdf5_nested_groups_and_exists) {
  TemporaryFolder folder;
  H5File file = H5File::create(folder.file("groups.h5"));
  EXPECT_TRUE(file.exists("/"));
  EXPECT_FALSE(file.exists("/a"));
  EXPECT_FALSE(file.exists("/a/b/c"));
  file.create_group("/a/b/c");
  EXPECT_TRUE(file.exists("/a"));
  EXPECT_TRUE(file.exists("/a/b"));
  EXPECT_TRUE(file.exists("/a/b/c"));
  EXPECT_TRUE(file.exists("a/b/"));  // relative to the root, trailing slash ignored
  EXPECT_NO_THROW(file.create_group("/a/b/c"));
  EXPECT_NO_THROW(file.create_group("/a/b/d"));
  EXPECT_TRUE(file.exists("/a/b/d"));
  EXPECT_FALSE(file.exists("/a/x/y/z"));

  file.write("/p/q/r/values", std::vector<int32_t>{1, 2, 3});  // parents made on the way
  EXPECT_TRUE(file.exists("/p/q/r"));
  EXPECT_TRUE(file.exists("/p/q/r/values"));
  EXPECT_FALSE(file.exists("/p/q/r/values/below"));  // a dataset has no children
  EXPECT_PORTASIM_ERROR(file.create_group("/p/q/r/values/below"), ErrorKind::invalid_argument,
                        "'/p/q/r/values'", "is a dataset");
}

TEST(TEST_CATEGORY, hdf5_errors_name_the_file_and_object) {
  TemporaryFolder folder;
  const std::string path = folder.file("in.h5");
  {
    H5File file = H5File::create(path);
    file.write("/inputs/matrix", std::vector<double>(6, 1.0).data(), {3, 2});
    file.write("/inputs/diameter", std::vector<double>{1, 2, 3, 4});
    file.write_attribute("/inputs", "note", "a string");
  }
  const H5File file = H5File::open_read(path);
  EXPECT_PORTASIM_ERROR(file.read<double>("/inputs/missing"), ErrorKind::io,
                        "cannot read dataset '/inputs/missing' in '" + path + "': not found");
  EXPECT_PORTASIM_ERROR(file.read<double>("/nowhere/at/all"), ErrorKind::io, "'/nowhere/at/all'",
                        path);
  EXPECT_PORTASIM_ERROR(file.shape("/inputs/missing"), ErrorKind::io, "'/inputs/missing'", path);
  EXPECT_PORTASIM_ERROR(file.read<double>("/inputs"), ErrorKind::invalid_argument, "'/inputs'",
                        "is a group");
  EXPECT_PORTASIM_ERROR(
      file.read_1d<double>("/inputs/matrix"), ErrorKind::invalid_argument,
      "dataset '/inputs/matrix' in '" + path + "' has shape (3, 2), expected 1-D");
  EXPECT_PORTASIM_ERROR(file.read_1d<double>("/inputs/diameter", 3), ErrorKind::invalid_argument,
                        "has shape (4,), expected (3,)");
  EXPECT_EQ(file.read_1d<float>("/inputs/diameter", 4), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(file.read_1d<float>("/inputs/diameter").size(), 4u);

  const std::string missing = folder.file("missing.h5");
  EXPECT_PORTASIM_ERROR(H5File::open_read(missing), ErrorKind::io,
                        "cannot open '" + missing + "' for reading: No such file or directory");
  EXPECT_PORTASIM_ERROR(H5File::open_read_write(missing), ErrorKind::io, missing);
  const std::string text = folder.file("not_hdf5.txt");
  std::ofstream(text) << "just text, no HDF5 signature\n";
  EXPECT_PORTASIM_ERROR(H5File::open_read(text), ErrorKind::io, text, "not an HDF5 file");
  EXPECT_PORTASIM_ERROR(H5File::open_read(folder.path().string()), ErrorKind::io,
                        folder.path().string(), "Is a directory");
  const std::string nowhere = folder.file("no_such_folder/out.h5");
  EXPECT_PORTASIM_ERROR(H5File::create(nowhere), ErrorKind::io,
                        "cannot create '" + nowhere + "': No such file or directory");

  // Read-only files refuse writes with HDF5's reason, but still as a portasim::Error.
  H5File read_only = H5File::open_read(path);
  EXPECT_PORTASIM_ERROR(read_only.write("/new", std::vector<double>{1}), ErrorKind::io, "'/new'",
                        path);
  EXPECT_PORTASIM_ERROR(read_only.write_attribute("/", "a", 1.0), ErrorKind::io, path);
}

TEST(TEST_CATEGORY, hdf5_shape) {
  TemporaryFolder folder;
  H5File file = H5File::create(folder.file("shape.h5"));
  const double scalar = 1;
  file.write("/scalar", &scalar, {});
  file.write("/empty", std::vector<std::uint8_t>{});
  const std::vector<float> values(2 * 3 * 4 * 5, 0.5f);
  file.write("/four", values.data(), {2, 3, 4, 5});
  EXPECT_EQ(file.shape("/scalar"), std::vector<std::size_t>{});
  EXPECT_EQ(file.shape("/empty"), std::vector<std::size_t>{0});
  EXPECT_EQ(file.shape("/four"), (std::vector<std::size_t>{2, 3, 4, 5}));
  EXPECT_TRUE(file.read<double>("/empty").empty());
  EXPECT_EQ(portasim::io::format_shape({}), "()");
  EXPECT_EQ(portasim::io::format_shape({7}), "(7,)");
  EXPECT_EQ(portasim::io::format_shape({3, 2}), "(3, 2)");
}

template <class T>
void extendible_dataset_grows_like_one_write(const TemporaryFolder& folder, int gzip_level) {
  const std::string path = folder.file("grow_" + std::to_string(gzip_level) + ".h5");
  const std::vector<std::size_t> item{3, 2};
  const std::size_t per_item = 6;
  const auto all = sample_values<T>(20 * per_item);
  {
    H5File file = H5File::create(path);
    ExtendibleDataset<T> grown(file, "/run/frames", item, 5, gzip_level);
    EXPECT_EQ(grown.size(), 0u);
    EXPECT_EQ(file.shape("/run/frames"), (std::vector<std::size_t>{0, 3, 2}));
    const std::size_t pieces[] = {1, 4, 0, 7};
    std::size_t done = 0;
    for (std::size_t piece : pieces) {
      grown.append(all.data() + done * per_item, piece);
      done += piece;
      EXPECT_EQ(grown.size(), done);
    }
    file.write("/run/reference", all.data(), {12, 3, 2});
    file.flush();
    EXPECT_EQ(file.read<T>("/run/frames"), file.read<T>("/run/reference"));
    EXPECT_PORTASIM_ERROR((ExtendibleDataset<T>(file, "/run/frames", item, 5)),
                          ErrorKind::invalid_argument, "'/run/frames'", "exists already");
    EXPECT_PORTASIM_ERROR((ExtendibleDataset<T>(file, "/run/bad", item, 0)),
                          ErrorKind::invalid_argument, "chunk_items");
    EXPECT_PORTASIM_ERROR((ExtendibleDataset<T>(file, "/run/bad", item, 4, 10)),
                          ErrorKind::invalid_argument, "gzip level");
  }
  {
    // Resume: reopen the file and the dataset, go on appending, drop a torn tail.
    H5File file = H5File::open_read_write(path);
    auto resumed = ExtendibleDataset<T>::open(file, "/run/frames");
    EXPECT_EQ(resumed.size(), 12u);
    EXPECT_EQ(resumed.item_dims(), item);
    resumed.append(all.data() + 12 * per_item, 8);
    EXPECT_EQ(resumed.size(), 20u);
    resumed.truncate(15);
    EXPECT_EQ(resumed.size(), 15u);
    EXPECT_PORTASIM_ERROR(resumed.truncate(16), ErrorKind::invalid_argument, "'/run/frames'",
                          "it holds 15");
    EXPECT_PORTASIM_ERROR(ExtendibleDataset<T>::open(file, "/run/reference"),
                          ErrorKind::invalid_argument, "'/run/reference'", "not extendible");
    EXPECT_PORTASIM_ERROR(ExtendibleDataset<T>::open(file, "/run/missing"), ErrorKind::io,
                          "'/run/missing'", path, "not found");
  }
  const H5File file = H5File::open_read(path);
  std::vector<std::size_t> shape;
  const auto frames = file.read<T>("/run/frames", &shape);
  EXPECT_EQ(shape, (std::vector<std::size_t>{15, 3, 2}));
  EXPECT_EQ(frames, std::vector<T>(all.begin(), all.begin() + 15 * per_item));
}

TEST(TEST_CATEGORY, hdf5_extendible_dataset_append_open_truncate) {
  TemporaryFolder folder;
  extendible_dataset_grows_like_one_write<float>(folder, 0);
  extendible_dataset_grows_like_one_write<double>(folder, 4);
  extendible_dataset_grows_like_one_write<std::int32_t>(folder, 1);
  extendible_dataset_grows_like_one_write<std::uint64_t>(folder, 9);

  // Items may be scalars (a 1-D dataset), and an append that does not fit is undone.
  H5File file = H5File::create(folder.file("scalars.h5"));
  ExtendibleDataset<double> times(file, "/t", {}, 16);
  const std::vector<double> t{0.0, 0.1, 0.2};
  times.append(t.data(), 3);
  times.append(t.data(), 2);
  EXPECT_EQ(file.read<double>("/t"), (std::vector<double>{0.0, 0.1, 0.2, 0.0, 0.1}));
  ExtendibleDataset<std::uint8_t> counts(file, "/counts", {2}, 8);
  auto as_wider = ExtendibleDataset<std::int32_t>::open(file, "/counts");
  const std::vector<std::int32_t> fits{1, 2, 3, 4}, too_big{5, 6, 7, 256};
  as_wider.append(fits.data(), 2);
  EXPECT_PORTASIM_ERROR(as_wider.append(too_big.data(), 2), ErrorKind::invalid_argument,
                        "'/counts'", "out of the range of the dataset's type, uint8");
  EXPECT_EQ(as_wider.size(), 2u);
  EXPECT_EQ(file.read<std::int32_t>("/counts"), fits);
}

TEST(TEST_CATEGORY, hdf5_flush_makes_data_survive_a_kill) {
  TemporaryFolder folder;
  const std::string path = folder.file("killed.h5");
  const std::vector<double> values{1, 2, 3, 4, 5, 6};
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child writes, flushes and dies without closing anything.
    try {
      H5File file = H5File::create(path);
      ExtendibleDataset<double> grown(file, "/grown", {2}, 4);
      grown.append(values.data(), 3);
      file.write("/whole", values);
      file.write_attribute("/", "state", "flushed");
      file.flush();
      ::kill(::getpid(), SIGKILL);
    } catch (...) {
    }
    ::_exit(1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the child failed before dying";
  const H5File file = H5File::open_read(path);
  EXPECT_EQ(file.read<double>("/whole"), values);
  std::vector<std::size_t> shape;
  EXPECT_EQ(file.read<double>("/grown", &shape), values);
  EXPECT_EQ(shape, (std::vector<std::size_t>{3, 2}));
  EXPECT_EQ(file.read_string_attribute("/", "state"), "flushed");
}

TEST(TEST_CATEGORY, hdf5_atomic_output) {
  TemporaryFolder folder;
  const std::string final_path = folder.file("result.h5");
  {
    AtomicOutput output(final_path);
    EXPECT_EQ(output.final_path(), final_path);
    EXPECT_EQ(output.temporary_path(), final_path + ".partial");
    {
      H5File file = H5File::create(output.temporary_path());
      file.write("/answer", std::vector<std::int32_t>{42});
    }
    EXPECT_FALSE(fs::exists(final_path));
    EXPECT_TRUE(fs::exists(output.temporary_path()));
    output.commit();
    EXPECT_TRUE(output.committed());
    EXPECT_TRUE(fs::exists(final_path));
    EXPECT_FALSE(fs::exists(output.temporary_path()));
    EXPECT_PORTASIM_ERROR(output.commit(), ErrorKind::invalid_argument, "twice");
  }
  EXPECT_EQ(H5File::open_read(final_path).read<std::int32_t>("/answer"),
            std::vector<std::int32_t>{42});

  // A run that fails halfway leaves the earlier result untouched and no temporary behind.
  try {
    AtomicOutput output(final_path);
    H5File file = H5File::create(output.temporary_path());
    file.write("/answer", std::vector<std::int32_t>{-1});
    throw std::runtime_error("the simulation failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(fs::exists(final_path + ".partial"));
  EXPECT_EQ(H5File::open_read(final_path).read<std::int32_t>("/answer"),
            std::vector<std::int32_t>{42});

  // A final rename that fails (the output name became a non-empty folder during the run) is
  // an I/O error that leaves the folder as it was and, once the output is gone, no temporary.
  const std::string became_folder = folder.file("became_folder.h5");
  {
    AtomicOutput output(became_folder);
    H5File::create(output.temporary_path()).write("/answer", std::vector<std::int32_t>{7});
    fs::create_directory(became_folder);
    std::ofstream(became_folder + "/kept") << "kept";
    EXPECT_PORTASIM_ERROR(output.commit(), ErrorKind::io, "cannot rename",
                          "became_folder.h5.partial");
    EXPECT_FALSE(output.committed());
  }
  EXPECT_FALSE(fs::exists(became_folder + ".partial"));
  EXPECT_TRUE(fs::is_directory(became_folder));
  EXPECT_TRUE(fs::exists(became_folder + "/kept"));

  // Committing with nothing written is an I/O error, not an empty result.
  AtomicOutput nothing(folder.file("nothing.h5"));
  EXPECT_PORTASIM_ERROR(nothing.commit(), ErrorKind::io, "nothing.h5", "No such file or directory");
  EXPECT_FALSE(fs::exists(folder.file("nothing.h5")));

  const std::string in_missing_folder = folder.file("missing/result.h5");
  EXPECT_PORTASIM_ERROR(AtomicOutput{in_missing_folder}, ErrorKind::io,
                        "cannot write '" + in_missing_folder + "': No such file or directory");
  const std::string plain_file = folder.file("plain");
  std::ofstream(plain_file) << "x";
  EXPECT_PORTASIM_ERROR(AtomicOutput{plain_file + "/result.h5"}, ErrorKind::io,
                        "cannot write '" + plain_file + "/result.h5': Not a directory");
  EXPECT_PORTASIM_ERROR(AtomicOutput{folder.path().string()}, ErrorKind::io, "Is a directory");
  if (::geteuid() != 0) {  // root writes into read-only folders anyway
    const fs::path locked = folder.path() / "locked";
    fs::create_directory(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_PORTASIM_ERROR(AtomicOutput{(locked / "result.h5").string()}, ErrorKind::io,
                          "Permission denied");
    fs::permissions(locked, fs::perms::owner_all);
  }
}

// Open files, groups, datasets, named types and attributes in the whole library: the same
// before and after a mix of successful and failing calls when every path closes what it opened.
inline ssize_t open_object_count() { return H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL); }

TEST(TEST_CATEGORY, hdf5_closes_every_handle_on_every_path) {
  TemporaryFolder folder;
  const std::string path = folder.file("handles.h5");
  const ssize_t before = open_object_count();
  {
    H5File file = H5File::create(path);
    file.write("/a/b", std::vector<double>{1.5, 2, 3});
    file.write("/a/b", std::vector<double>{4, 5, 6});
    file.write("/a/b", std::vector<std::int64_t>{300});
    file.write_attribute("/a", "text", "x");
    file.write_attribute("/a", "text", std::vector<float>{1, 2});
    file.write_attribute("/a/b", "n", std::int32_t{1});
    ExtendibleDataset<float> grown(file, "/g", {2}, 4, 3);
    const std::vector<float> values{1, 2, 3, 4};
    grown.append(values.data(), 2);
    auto reopened = ExtendibleDataset<double>::open(file, "/g");
    reopened.truncate(1);
    const std::vector<double> huge{1e300, 0};
    EXPECT_THROW(reopened.append(huge.data(), 1), Error);
    EXPECT_THROW(ExtendibleDataset<float>::open(file, "/a/b"), Error);
    EXPECT_THROW(file.read<std::uint8_t>("/a/b"), Error);
    EXPECT_THROW(file.read<double>("/a/missing"), Error);
    EXPECT_THROW(file.read<double>("/a"), Error);
    EXPECT_THROW(file.read_1d<double>("/a/b", 5), Error);
    EXPECT_THROW(file.read_attribute<double>("/a", "text"), Error);
    EXPECT_THROW(file.read_attribute<std::int8_t>("/a/b", "missing"), Error);
    EXPECT_THROW(file.read_string_attribute("/a", "text"), Error);
    EXPECT_THROW(file.create_group("/a/b/c"), Error);
    EXPECT_EQ(file.read_vector_attribute<double>("/a", "text"), (std::vector<double>{1, 2}));
    EXPECT_EQ(file.shape("/g"), (std::vector<std::size_t>{1, 2}));
    EXPECT_TRUE(file.has_attribute("/a/b", "n"));
    file.flush();
  }
  const std::string text = folder.file("text.txt");
  std::ofstream(text) << "not HDF5";
  EXPECT_THROW(H5File::open_read(text), Error);
  EXPECT_THROW(H5File::open_read_write(folder.file("missing.h5")), Error);
  EXPECT_THROW(H5File::create(folder.file("missing/x.h5")), Error);
  {
    const H5File file = H5File::open_read(path);
    EXPECT_THROW(H5File(H5File::open_read(path)).write_attribute("/", "x", 1.0), Error);
    EXPECT_THROW(file.read_string_attribute("/a/b", "n"), Error);
    EXPECT_EQ(file.read<double>("/a/b"), std::vector<double>{300});
  }
  EXPECT_EQ(open_object_count(), before);
}

}  // namespace test_hdf5_file
#endif  // PORTASIM_ENABLE_HDF5
