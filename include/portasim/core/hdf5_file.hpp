#pragma once
// HDF5 input and output: whole datasets and attributes by path, datasets that grow along their
// first axis while a run streams results, and outputs that appear under their final name only
// once complete. Files written here are plain HDF5 (native numeric types, variable-length UTF-8
// string attributes) that h5py reads with no knowledge of portasim.
//
// The HDF5 C API stays out of this header: the templates only map T to a type code and call
// the compiled part, so including it costs nothing and an unsupported T fails to compile
// instead of failing to link. Handles are kept as std::int64_t, which is hid_t from HDF5 1.10
// on (checked in hdf5_file.cpp).

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace portasim::io {

namespace impl {

enum class ScalarType {
  float32,
  float64,
  int8,
  int16,
  int32,
  int64,
  uint8,
  uint16,
  uint32,
  uint64
};

template <class T>
constexpr bool is_scalar_v = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                             std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::int16_t> ||
                             std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
                             std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t> ||
                             std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>;

template <class T>
constexpr ScalarType scalar_type_of() {
  static_assert(is_scalar_v<T>,
                "portasim::io reads and writes float, double and the <cstdint> integer types only");
  if constexpr (std::is_same_v<T, float>) return ScalarType::float32;
  else if constexpr (std::is_same_v<T, double>) return ScalarType::float64;
  else if constexpr (std::is_same_v<T, std::int8_t>) return ScalarType::int8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return ScalarType::int16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return ScalarType::int32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return ScalarType::int64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return ScalarType::uint8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return ScalarType::uint16;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return ScalarType::uint32;
  else return ScalarType::uint64;
}

// Where a read puts its values: the reader learns the element count only after opening the
// dataset, so it asks the typed caller for storage of that size.
struct ReadTarget {
  void* (*resize)(void* vector, std::size_t count);
  void* vector;
};

template <class T>
ReadTarget read_target(std::vector<T>& values) {
  return {[](void* vector, std::size_t count) -> void* {
            auto& typed = *static_cast<std::vector<T>*>(vector);
            typed.resize(count);
            return typed.data();
          },
          &values};
}

}  // namespace impl

// "(3, 2)" for {3, 2}, "()" for a scalar: how shapes appear in messages, as NumPy prints them.
std::string format_shape(const std::vector<std::size_t>& shape);

class H5File {
 public:
  static H5File create(const std::string& path);  // create, or truncate an existing file
  static H5File open_read(const std::string& path);
  static H5File open_read_write(const std::string& path);

  H5File(H5File&& other) noexcept;
  H5File& operator=(H5File&& other) noexcept;
  H5File(const H5File&) = delete;
  H5File& operator=(const H5File&) = delete;
  // Objects still open (an ExtendibleDataset) keep the file open until they are destroyed too.
  ~H5File();

  const std::string& path() const noexcept { return m_path; }

  // Paths are absolute ("/a/b/c") or relative to the root; false, not an error, when a
  // parent is missing or is not a group.
  bool exists(const std::string& object_path) const;
  // The names of the links directly in a group (datasets, groups, ...), in name order;
  // throws portasim::Error (io) when the group is missing or is not a group.
  std::vector<std::string> members(const std::string& group_path) const;
  // Creates the missing groups along the path; an existing group is fine.
  void create_group(const std::string& group_path);

  // Writes a whole row-major dataset of shape `dims` ({} for a scalar), creating missing
  // parent groups. An existing dataset of the same type and shape is overwritten in place;
  // one of another type or shape is replaced.
  template <class T>
  void write(const std::string& dataset_path, const T* data, const std::vector<std::size_t>& dims) {
    write_raw(dataset_path, impl::scalar_type_of<T>(), data, dims);
  }
  template <class T>
  void write(const std::string& dataset_path, const std::vector<T>& data) {
    write(dataset_path, data.data(), {data.size()});
  }

  // Attributes of a group or dataset ("/" is the root group); an existing one is replaced.
  template <class T>
  void write_attribute(const std::string& object_path, const std::string& name, const T& value) {
    write_attribute_raw(object_path, name, impl::scalar_type_of<T>(), &value, nullptr);
  }
  void write_attribute(const std::string& object_path, const std::string& name,
                       const std::string& value);
  // Without this overload a string literal would pick the template above with T = char[N].
  void write_attribute(const std::string& object_path, const std::string& name, const char* value) {
    write_attribute(object_path, name, std::string(value));
  }
  template <class T>
  void write_attribute(const std::string& object_path, const std::string& name,
                       const std::vector<T>& values) {
    const std::size_t count = values.size();
    write_attribute_raw(object_path, name, impl::scalar_type_of<T>(), values.data(), &count);
  }

  std::vector<std::size_t> shape(const std::string& dataset_path) const;

  // Reads a whole numeric dataset converted to T. Conversions that would change a value
  // (out of range, a fraction or NaN into an integer) are refused with invalid_argument
  // rather than clipped the way HDF5 does by default.
  template <class T>
  std::vector<T> read(const std::string& dataset_path,
                      std::vector<std::size_t>* shape = nullptr) const {
    std::vector<T> values;
    read_raw(dataset_path, impl::scalar_type_of<T>(), impl::read_target(values), shape, nullptr);
    return values;
  }
  // The same for a dataset that must be 1-D (and `length` long unless it is npos): input
  // files of the wrong shape are refused with invalid_argument naming the shape found.
  template <class T>
  std::vector<T> read_1d(const std::string& dataset_path,
                         std::size_t length = static_cast<std::size_t>(-1)) const {
    std::vector<T> values;
    const std::vector<std::size_t> expected{length};
    read_raw(dataset_path, impl::scalar_type_of<T>(), impl::read_target(values), nullptr,
             &expected);
    return values;
  }

  // A numeric attribute holding one value (scalar or of shape (1,)).
  template <class T>
  T read_attribute(const std::string& object_path, const std::string& name) const {
    std::vector<T> values;
    read_attribute_raw(object_path, name, impl::scalar_type_of<T>(), impl::read_target(values),
                       true);
    return values.front();
  }
  // A numeric attribute of any size, flattened.
  template <class T>
  std::vector<T> read_vector_attribute(const std::string& object_path,
                                       const std::string& name) const {
    std::vector<T> values;
    read_attribute_raw(object_path, name, impl::scalar_type_of<T>(), impl::read_target(values),
                       false);
    return values;
  }
  // Fixed- or variable-length, as h5py, NumPy or the HDF5 tools wrote it.
  std::string read_string_attribute(const std::string& object_path, const std::string& name) const;
  bool has_attribute(const std::string& object_path, const std::string& name) const;

  // Writes everything so far to disk: the file, as of this call, survives a killed process.
  void flush();

  std::int64_t id() const noexcept { return m_id; }  // the hid_t, for calls portasim lacks

 private:
  H5File(std::string path, std::int64_t id) : m_path(std::move(path)), m_id(id) {}
  void write_raw(const std::string& dataset_path, impl::ScalarType type, const void* data,
                 const std::vector<std::size_t>& dims);
  void write_attribute_raw(const std::string& object_path, const std::string& name,
                           impl::ScalarType type, const void* data, const std::size_t* count);
  void read_raw(const std::string& dataset_path, impl::ScalarType type, impl::ReadTarget target,
                std::vector<std::size_t>* shape, const std::vector<std::size_t>* expected_1d) const;
  void read_attribute_raw(const std::string& object_path, const std::string& name,
                          impl::ScalarType type, impl::ReadTarget target, bool single) const;

  std::string m_path;
  std::int64_t m_id = -1;
};

namespace impl {

// The type-independent part of ExtendibleDataset, compiled once.
class RawExtendibleDataset {
 public:
  RawExtendibleDataset(H5File& file, const std::string& dataset_path,
                       const std::vector<std::size_t>& item_dims, std::size_t chunk_items,
                       int gzip_level, ScalarType type);
  static RawExtendibleDataset open(H5File& file, const std::string& dataset_path, ScalarType type);
  RawExtendibleDataset(RawExtendibleDataset&& other) noexcept;
  RawExtendibleDataset& operator=(RawExtendibleDataset&& other) noexcept;
  RawExtendibleDataset(const RawExtendibleDataset&) = delete;
  RawExtendibleDataset& operator=(const RawExtendibleDataset&) = delete;
  ~RawExtendibleDataset();

  void append(const void* data, std::size_t items);
  void truncate(std::size_t items);
  std::size_t size() const noexcept { return m_items; }
  const std::vector<std::size_t>& item_dims() const noexcept { return m_item_dims; }

 private:
  RawExtendibleDataset() = default;
  void resize(std::size_t items, const char* operation);
  std::string where() const;

  std::string m_file_path;
  std::string m_dataset_path;
  std::int64_t m_id = -1;
  ScalarType m_type = ScalarType::float64;
  std::vector<std::size_t> m_item_dims;
  std::size_t m_items = 0;
};

}  // namespace impl

// A dataset that grows along its first axis, one block of items at a time: shape
// (0, item_dims...) when created, unlimited first axis, chunks of chunk_items items,
// optionally gzip-compressed (level 1..9; 0 = none).
template <class T>
class ExtendibleDataset {
 public:
  ExtendibleDataset(H5File& file, const std::string& dataset_path,
                    const std::vector<std::size_t>& item_dims, std::size_t chunk_items,
                    int gzip_level = 0)
      : m_raw(file, dataset_path, item_dims, chunk_items, gzip_level, impl::scalar_type_of<T>()) {}

  // Reopens one made before (by this class or anyone with an unlimited first axis) to
  // append to it, e.g. when a run resumes.
  static ExtendibleDataset open(H5File& file, const std::string& dataset_path) {
    return ExtendibleDataset(
        impl::RawExtendibleDataset::open(file, dataset_path, impl::scalar_type_of<T>()));
  }

  // Writes items x prod(item_dims) values, row-major, after the last item.
  void append(const T* data, std::size_t items) { m_raw.append(data, items); }
  std::size_t size() const noexcept { return m_raw.size(); }
  const std::vector<std::size_t>& item_dims() const noexcept { return m_raw.item_dims(); }
  // Drops the items from `items` on (e.g. those of an append a killed run left behind).
  void truncate(std::size_t items) { m_raw.truncate(items); }

 private:
  explicit ExtendibleDataset(impl::RawExtendibleDataset raw) : m_raw(std::move(raw)) {}
  impl::RawExtendibleDataset m_raw;
};

// Throws ErrorKind::io "cannot write '<path>': <reason>" when nothing could be written at
// `path`: its folder is missing or not writable, or `path` is a folder.
void require_writable(const std::string& path);

// Writes go to io::temporary_path_of(final_path) (final_path + ".partial") in the same folder, and
// commit() renames that over final_path; without commit() the destructor removes it. A failed or
// killed run therefore never leaves a half-written file under the final name and never damages one
// already there. Close every H5File and ExtendibleDataset on temporary_path() before commit(): HDF5
// finishes a file only when its last handle closes.
class AtomicOutput {
 public:
  // Checks at once that the folder exists and is writable, so that a long run does not fail
  // at its end: ErrorKind::io "cannot write '<final_path>': <reason>" otherwise.
  explicit AtomicOutput(std::string final_path);
  AtomicOutput(AtomicOutput&& other) noexcept;
  AtomicOutput& operator=(AtomicOutput&&) = delete;
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  ~AtomicOutput();

  const std::string& temporary_path() const noexcept { return m_temporary_path; }
  const std::string& final_path() const noexcept { return m_final_path; }
  bool committed() const noexcept { return m_committed; }

  // Syncs the temporary file to disk and renames it over final_path.
  void commit();

 private:
  std::string m_final_path;
  std::string m_temporary_path;
  bool m_committed = false;
};

}  // namespace portasim::io
