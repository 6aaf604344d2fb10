#include "portasim/core/hdf5_file.hpp"

#include <hdf5.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>

#include "portasim/core/error.hpp"
#include "portasim/core/input_protection.hpp"

static_assert(std::is_same_v<hid_t, std::int64_t>,
              "portasim keeps HDF5 handles as std::int64_t, hid_t since HDF5 1.10");

namespace portasim::io {

namespace {

// HDF5 prints its whole error stack to stderr by default; portasim reports failures itself,
// as exceptions naming the file and object, so the stack is silenced for portasim's calls and
// the caller's handler put back afterwards.
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &m_handler, &m_data);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, m_handler, m_data); }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t m_handler = nullptr;
  void* m_data = nullptr;
};

// Owns one hid_t; each kind of handle has its own close function.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle(hid_t id, Closer close) noexcept : m_id(id), m_close(close) {}
  Handle(Handle&& other) noexcept
      : m_id(std::exchange(other.m_id, H5I_INVALID_HID)), m_close(other.m_close) {}
  Handle& operator=(Handle&&) = delete;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (m_id >= 0) m_close(m_id);
  }
  hid_t get() const noexcept { return m_id; }
  bool valid() const noexcept { return m_id >= 0; }
  // Hands the id to an owner that closes it itself (H5File, RawExtendibleDataset).
  hid_t release() noexcept { return std::exchange(m_id, H5I_INVALID_HID); }

 private:
  hid_t m_id;
  Closer m_close;
};

// The innermost message of HDF5's error stack: the most specific reason for the last failure
// (e.g. "no write intent on file"). Call it before any other HDF5 call clears the stack.
std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* error, void* data) -> herr_t {
        if (n == 0 && error->desc != nullptr) *static_cast<std::string*>(data) = error->desc;
        return 0;
      },
      &reason);
  if (reason.empty()) return "HDF5 reported an unknown error";
  // A failed system call comes as "file write failed: time = ..., filename = ..., errno = 28,
  // error message = 'No space left on device', buf = ..., offset = ...": keep what it was and
  // the system's words (the file is named by the caller).
  const auto message = reason.find("error message = '");
  if (message != std::string::npos) {
    const auto begin = message + 17;
    const auto end = reason.find('\'', begin);
    const auto colon = reason.find(':');
    return (colon < message ? reason.substr(0, colon) + ": " : std::string()) +
           reason.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  }
  return reason;
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (begin <= path.size()) {
    const std::size_t end = std::min(path.find('/', begin), path.size());
    if (end > begin) parts.push_back(path.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

std::string join_path(const std::vector<std::string>& parts, std::size_t count) {
  if (count == 0) return "/";
  std::string path;
  for (std::size_t i = 0; i < count; ++i) path += "/" + parts[i];
  return path;
}

// "a//b/" and "/a/b" name the same object; messages show the second form.
std::string normalized(const std::string& path) {
  const auto parts = split_path(path);
  return join_path(parts, parts.size());
}

std::string parent_of(const std::string& path) {
  const auto parts = split_path(path);
  return join_path(parts, parts.empty() ? 0 : parts.size() - 1);
}

std::string quoted(const std::string& text) { return "'" + text + "'"; }

hid_t native_type(impl::ScalarType type) {
  switch (type) {
    case impl::ScalarType::float32: return H5T_NATIVE_FLOAT;
    case impl::ScalarType::float64: return H5T_NATIVE_DOUBLE;
    case impl::ScalarType::int8: return H5T_NATIVE_INT8;
    case impl::ScalarType::int16: return H5T_NATIVE_INT16;
    case impl::ScalarType::int32: return H5T_NATIVE_INT32;
    case impl::ScalarType::int64: return H5T_NATIVE_INT64;
    case impl::ScalarType::uint8: return H5T_NATIVE_UINT8;
    case impl::ScalarType::uint16: return H5T_NATIVE_UINT16;
    case impl::ScalarType::uint32: return H5T_NATIVE_UINT32;
    case impl::ScalarType::uint64: return H5T_NATIVE_UINT64;
  }
  throw_error(ErrorKind::internal, "portasim::io: unknown scalar type");
}

const char* type_name(impl::ScalarType type) {
  switch (type) {
    case impl::ScalarType::float32: return "float32";
    case impl::ScalarType::float64: return "float64";
    case impl::ScalarType::int8: return "int8";
    case impl::ScalarType::int16: return "int16";
    case impl::ScalarType::int32: return "int32";
    case impl::ScalarType::int64: return "int64";
    case impl::ScalarType::uint8: return "uint8";
    case impl::ScalarType::uint16: return "uint16";
    case impl::ScalarType::uint32: return "uint32";
    case impl::ScalarType::uint64: return "uint64";
  }
  return "?";
}

// "uint8", "float32", ... for a type in a file, as NumPy names it.
std::string describe(hid_t type) {
  const H5T_class_t type_class = H5Tget_class(type);
  const std::string bits = std::to_string(8 * H5Tget_size(type));
  if (type_class == H5T_FLOAT) return "float" + bits;
  if (type_class == H5T_INTEGER) return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + bits;
  return "a non-numeric type";
}

bool is_integer(impl::ScalarType type) {
  return type != impl::ScalarType::float32 && type != impl::ScalarType::float64;
}

const char* class_description(H5T_class_t type_class) {
  switch (type_class) {
    case H5T_INTEGER:
    case H5T_FLOAT: return "numbers";
    case H5T_STRING: return "strings";
    case H5T_COMPOUND: return "compound records";
    case H5T_ENUM: return "enumerated values (NumPy booleans are stored so)";
    case H5T_ARRAY: return "array-typed values";
    case H5T_VLEN: return "variable-length sequences";
    case H5T_BITFIELD: return "bit fields";
    case H5T_OPAQUE: return "opaque data";
    case H5T_REFERENCE: return "references";
    default: return "values of an unknown type";
  }
}

std::vector<hsize_t> to_hsize(const std::vector<std::size_t>& dims) {
  return std::vector<hsize_t>(dims.begin(), dims.end());
}

std::size_t element_count(const std::vector<std::size_t>& dims) {
  std::size_t count = 1;
  for (std::size_t d : dims) count *= d;
  return count;
}

Handle make_dataspace(const std::vector<std::size_t>& dims) {
  if (dims.empty()) return Handle(H5Screate(H5S_SCALAR), H5Sclose);
  const auto extent = to_hsize(dims);
  return Handle(H5Screate_simple(static_cast<int>(extent.size()), extent.data(), nullptr),
                H5Sclose);
}

// Shape of a dataspace; false for a null dataspace (an object with no data at all).
bool dataspace_shape(hid_t space, std::vector<std::size_t>& shape) {
  shape.clear();
  if (H5Sget_simple_extent_type(space) == H5S_NULL) return false;
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 0) return false;
  std::vector<hsize_t> extent(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space, extent.data(), nullptr);
  shape.assign(extent.begin(), extent.end());
  return true;
}

// HDF5 clips out-of-range values and truncates fractions when it converts numbers; an input
// layer must not change values behind the caller's back, so such conversions are aborted.
class CheckedConversion {
 public:
  explicit CheckedConversion(bool target_is_integer)
      : m_plist(H5Pcreate(H5P_DATASET_XFER), H5Pclose), m_target_is_integer(target_is_integer) {
    H5Pset_type_conv_cb(m_plist.get(), &CheckedConversion::on_exception, this);
  }
  hid_t plist() const noexcept { return m_plist.get(); }
  bool refused() const noexcept { return m_refused; }
  // Why a conversion was refused, for "... in 'f.h5' <explanation> <type>".
  std::string explanation(const std::string& target) const {
    switch (m_exception) {
      case H5T_CONV_EXCEPT_RANGE_HI:
      case H5T_CONV_EXCEPT_RANGE_LOW: return "holds values out of the range of " + target;
      case H5T_CONV_EXCEPT_TRUNCATE:
        return "holds fractional values, which " + target + " cannot hold";
      default: return "holds infinities or NaN, which " + target + " cannot hold";
    }
  }

 private:
  static H5T_conv_ret_t on_exception(H5T_conv_except_t exception, hid_t, hid_t, void*, void*,
                                     void* data) {
    auto& self = *static_cast<CheckedConversion*>(data);
    const bool refuse = exception == H5T_CONV_EXCEPT_RANGE_HI ||
                        exception == H5T_CONV_EXCEPT_RANGE_LOW ||
                        exception == H5T_CONV_EXCEPT_TRUNCATE ||
                        (self.m_target_is_integer &&
                         (exception == H5T_CONV_EXCEPT_PINF || exception == H5T_CONV_EXCEPT_NINF ||
                          exception == H5T_CONV_EXCEPT_NAN));
    if (!refuse) return H5T_CONV_UNHANDLED;  // e.g. rounding an int64 into a double
    self.m_refused = true;
    self.m_exception = exception;
    return H5T_CONV_ABORT;
  }
  Handle m_plist;
  bool m_target_is_integer;
  bool m_refused = false;
  H5T_conv_except_t m_exception = H5T_CONV_EXCEPT_RANGE_HI;
};

bool link_exists(hid_t file, const std::string& path) {
  const auto parts = split_path(path);
  for (std::size_t i = 1; i <= parts.size(); ++i) {
    // Negative (an error) when a parent is not a group: that is "does not exist" too.
    if (H5Lexists(file, join_path(parts, i).c_str(), H5P_DEFAULT) <= 0) return false;
  }
  return parts.empty() || H5Oexists_by_name(file, path.c_str(), H5P_DEFAULT) > 0;
}

H5I_type_t object_kind(hid_t file, const std::string& path) {
  Handle object(H5Oopen(file, path.c_str(), H5P_DEFAULT), H5Oclose);
  return object.valid() ? H5Iget_type(object.get()) : H5I_BADID;
}

const char* kind_name(H5I_type_t kind) {
  switch (kind) {
    case H5I_GROUP: return "a group";
    case H5I_DATASET: return "a dataset";
    case H5I_DATATYPE: return "a named datatype";
    default: return "not a dataset";
  }
}

// Opens a dataset for `action` ("read", "write", ...) with the messages the header promises.
Handle open_dataset(hid_t file, const std::string& file_path, const std::string& path,
                    const char* action) {
  const std::string what =
      std::string("cannot ") + action + " dataset " + quoted(path) + " in " + quoted(file_path);
  if (!link_exists(file, path)) throw_error(ErrorKind::io, what + ": not found");
  const H5I_type_t kind = object_kind(file, path);
  if (kind != H5I_DATASET)
    throw_error(ErrorKind::invalid_argument, what + ": it is " + kind_name(kind));
  Handle dataset(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) throw_error(ErrorKind::io, what + ": " + hdf5_reason());
  return dataset;
}

Handle open_object(hid_t file, const std::string& file_path, const std::string& path,
                   const std::string& what) {
  if (!link_exists(file, path))
    throw_error(ErrorKind::io, what + ": " + quoted(path) + " not found in " + quoted(file_path));
  Handle object(H5Oopen(file, path.c_str(), H5P_DEFAULT), H5Oclose);
  if (!object.valid()) throw_error(ErrorKind::io, what + ": " + hdf5_reason());
  return object;
}

// The attribute `name` of the object at `path`, opened for reading.
Handle open_attribute(hid_t file, const std::string& file_path, const std::string& path,
                      const std::string& name, const std::string& what) {
  Handle object = open_object(file, file_path, path, what);
  if (H5Aexists(object.get(), name.c_str()) <= 0) throw_error(ErrorKind::io, what + ": not found");
  Handle attribute(H5Aopen(object.get(), name.c_str(), H5P_DEFAULT), H5Aclose);
  if (!attribute.valid()) throw_error(ErrorKind::io, what + ": " + hdf5_reason());
  return attribute;
}

// An attribute opened for reading, with what every reader checks first: the class of its
// stored type and its shape; `where` names it in errors, `what` says what failed.
struct AttributeToRead {
  std::string where, what;
  Handle attribute, file_type;
  H5T_class_t type_class;
  std::vector<std::size_t> dims;
  bool has_shape = false;

  AttributeToRead(hid_t file, const std::string& file_path, const std::string& path,
                  const std::string& name)
      : where("attribute " + quoted(name) + " of " + quoted(path) + " in " + quoted(file_path)),
        what("cannot read " + where), attribute(open_attribute(file, file_path, path, name, what)),
        file_type(H5Aget_type(attribute.get()), H5Tclose),
        type_class(file_type.valid() ? H5Tget_class(file_type.get()) : H5T_NO_CLASS) {
    Handle space(H5Aget_space(attribute.get()), H5Sclose);
    has_shape = space.valid() && dataspace_shape(space.get(), dims);
  }
};

// The object at `path` with any attribute `name` removed, ready for a new one.
Handle object_without_attribute(hid_t file, const std::string& file_path, const std::string& path,
                                const std::string& name, const std::string& what) {
  Handle object = open_object(file, file_path, path, what);
  if (H5Aexists(object.get(), name.c_str()) > 0 && H5Adelete(object.get(), name.c_str()) < 0)
    throw_error(ErrorKind::io, what + ": cannot replace the existing one: " + hdf5_reason());
  return object;
}

H5T_class_t class_of(hid_t type_owner, hid_t (*get_type)(hid_t)) {
  Handle type(get_type(type_owner), H5Tclose);
  return type.valid() ? H5Tget_class(type.get()) : H5T_NO_CLASS;
}

bool is_numeric(H5T_class_t type_class) {
  return type_class == H5T_INTEGER || type_class == H5T_FLOAT;
}

// Why a file cannot be opened, in the user's terms (missing, unreadable, not HDF5) where the
// file system can tell, else HDF5's own reason.
std::string open_failure_reason(const std::string& path, bool for_writing, std::string hdf5) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::strerror(errno);
  if (S_ISDIR(info.st_mode)) return std::strerror(EISDIR);
  if (::access(path.c_str(), for_writing ? (R_OK | W_OK) : R_OK) != 0) return std::strerror(errno);
#if H5_VERSION_GE(1, 12, 0)
  if (H5Fis_accessible(path.c_str(), H5P_DEFAULT) <= 0) return "not an HDF5 file";
#else
  if (H5Fis_hdf5(path.c_str()) <= 0) return "not an HDF5 file";
#endif
  return hdf5;
}

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Why nothing can be written at `path`: the folder is missing, not a folder or not writable.
// Empty when it looks writable.
std::string unwritable_reason(const std::string& path) {
  struct stat info {};
  const std::string folder = folder_of(path);
  if (::stat(folder.c_str(), &info) != 0) return std::strerror(errno);
  if (!S_ISDIR(info.st_mode)) return std::strerror(ENOTDIR);
  if (::access(folder.c_str(), W_OK | X_OK) != 0) return std::strerror(errno);
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) return std::strerror(EISDIR);
  return {};
}

// Where the file system supports no locks (some parallel file systems), HDF5 would refuse to
// open files; carry on without locking there, as h5py does when asked to. The setting exists
// from 1.10.7 and 1.12.1 on; HDF5_USE_FILE_LOCKING still overrides it.
Handle file_access_plist() {
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
#if (H5_VERSION_GE(1, 10, 7) && !H5_VERSION_GE(1, 12, 0)) || H5_VERSION_GE(1, 12, 1)
  if (fapl.valid()) H5Pset_file_locking(fapl.get(), true, true);
#endif
  return fapl;
}

Handle open_file(const std::string& path, unsigned flags, const char* purpose) {
  QuietErrors quiet;
  Handle fapl = file_access_plist();
  Handle file(H5Fopen(path.c_str(), flags, fapl.get()), H5Fclose);
  if (!file.valid()) {
    std::string hdf5 = hdf5_reason();
    throw_error(ErrorKind::io,
                "cannot open " + quoted(path) + " for " + purpose + ": " +
                    open_failure_reason(path, flags == H5F_ACC_RDWR, std::move(hdf5)));
  }
  return file;
}

}  // namespace

std::string format_shape(const std::vector<std::size_t>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + (shape.size() == 1 ? ",)" : ")");
}

// ---- H5File ----------------------------------------------------------------------------------

H5File H5File::create(const std::string& path) {
  QuietErrors quiet;
  Handle fapl = file_access_plist();
  Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose);
  if (!file.valid()) {
    std::string reason = hdf5_reason();
    const std::string file_system = unwritable_reason(path);
    throw_error(ErrorKind::io, "cannot create " + quoted(path) + ": " +
                                   (file_system.empty() ? reason : file_system));
  }
  return H5File(path, file.release());
}

H5File H5File::open_read(const std::string& path) {
  return H5File(path, open_file(path, H5F_ACC_RDONLY, "reading").release());
}

H5File H5File::open_read_write(const std::string& path) {
  return H5File(path, open_file(path, H5F_ACC_RDWR, "writing").release());
}

H5File::H5File(H5File&& other) noexcept
    : m_path(std::move(other.m_path)), m_id(std::exchange(other.m_id, H5I_INVALID_HID)) {}

H5File& H5File::operator=(H5File&& other) noexcept {
  if (this != &other) {
    H5File closing(std::move(*this));
    m_path = std::move(other.m_path);
    m_id = std::exchange(other.m_id, H5I_INVALID_HID);
  }
  return *this;
}

H5File::~H5File() {
  if (m_id < 0) return;
  QuietErrors quiet;
  H5Fclose(m_id);
}

bool H5File::exists(const std::string& object_path) const {
  QuietErrors quiet;
  return link_exists(m_id, normalized(object_path));
}

std::vector<std::string> H5File::members(const std::string& group_path) const {
  QuietErrors quiet;
  const std::string path = normalized(group_path);
  const std::string where = "group " + quoted(path) + " in " + quoted(m_path);
  if (path != "/" && (!link_exists(m_id, path) || object_kind(m_id, path) != H5I_GROUP))
    throw_error(ErrorKind::io, where + " does not exist or is not a group");
  Handle group(H5Gopen2(m_id, path.c_str(), H5P_DEFAULT), H5Gclose);
  if (!group.valid()) throw_error(ErrorKind::io, where + ": " + hdf5_reason());
  std::vector<std::string> names;
  // Generic in the link-info type: H5L_info_t before HDF5 1.12, H5L_info2_t from it.
  const H5L_iterate_t collect = [](hid_t, const char* name, const auto*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  hsize_t index = 0;
  if (H5Literate(group.get(), H5_INDEX_NAME, H5_ITER_INC, &index, collect, &names) < 0)
    throw_error(ErrorKind::io, where + ": cannot list its members: " + hdf5_reason());
  return names;
}

void H5File::create_group(const std::string& group_path) {
  QuietErrors quiet;
  const auto parts = split_path(group_path);
  const std::string path = join_path(parts, parts.size());
  for (std::size_t i = 1; i <= parts.size(); ++i) {
    const std::string prefix = join_path(parts, i);
    if (link_exists(m_id, prefix)) {
      const H5I_type_t kind = object_kind(m_id, prefix);
      if (kind != H5I_GROUP)
        throw_error(ErrorKind::invalid_argument, "cannot create group " + quoted(path) + " in " +
                                                     quoted(m_path) + ": " + quoted(prefix) +
                                                     " is " + kind_name(kind));
      continue;
    }
    Handle group(H5Gcreate2(m_id, prefix.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    if (!group.valid())
      throw_error(ErrorKind::io, "cannot create group " + quoted(path) + " in " + quoted(m_path) +
                                     ": " + hdf5_reason());
  }
}

void H5File::write_raw(const std::string& dataset_path, impl::ScalarType type, const void* data,
                       const std::vector<std::size_t>& dims) {
  QuietErrors quiet;
  const std::string path = normalized(dataset_path);
  const std::string what = "cannot write dataset " + quoted(path) + " in " + quoted(m_path);
  require(path != "/", what + ": the root is a group");
  require(data != nullptr || element_count(dims) == 0, what + ": no data given");
  const hid_t memory_type = native_type(type);

  if (link_exists(m_id, path)) {
    const H5I_type_t kind = object_kind(m_id, path);
    require(kind == H5I_DATASET, what + ": it is " + kind_name(kind));
    Handle existing(H5Dopen2(m_id, path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!existing.valid()) throw_error(ErrorKind::io, what + ": " + hdf5_reason());
    Handle existing_type(H5Dget_type(existing.get()), H5Tclose);
    Handle existing_space(H5Dget_space(existing.get()), H5Sclose);
    std::vector<std::size_t> existing_dims;
    const bool same = existing_type.valid() && existing_space.valid() &&
                      H5Tequal(existing_type.get(), memory_type) > 0 &&
                      dataspace_shape(existing_space.get(), existing_dims) && existing_dims == dims;
    if (same) {
      // Rewriting in place keeps a file that is rewritten every checkpoint from growing.
      if (element_count(dims) > 0 &&
          H5Dwrite(existing.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        throw_error(ErrorKind::io, what + ": " + hdf5_reason());
      return;
    }
    if (H5Ldelete(m_id, path.c_str(), H5P_DEFAULT) < 0)
      throw_error(ErrorKind::io, what + ": cannot replace the existing one: " + hdf5_reason());
  } else {
    create_group(parent_of(path));
  }

  Handle space = make_dataspace(dims);
  if (!space.valid()) throw_error(ErrorKind::io, what + ": " + hdf5_reason());
  Handle dataset(H5Dcreate2(m_id, path.c_str(), memory_type, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                            H5P_DEFAULT),
                 H5Dclose);
  if (!dataset.valid()) throw_error(ErrorKind::io, what + ": " + hdf5_reason());
  if (element_count(dims) > 0 &&
      H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    throw_error(ErrorKind::io, what + ": " + hdf5_reason());
}

void H5File::write_attribute_raw(const std::string& object_path, const std::string& name,
                                 impl::ScalarType type, const void* data,
                                 const std::size_t* count) {
  QuietErrors quiet;
  const std::string path = normalized(object_path);
  const std::string what =
      "cannot write attribute " + quoted(name) + " of " + quoted(path) + " in " + quoted(m_path);
  Handle object = object_without_attribute(m_id, m_path, path, name, what);
  Handle space = count == nullptr ? make_dataspace({}) : make_dataspace({*count});
  const hid_t memory_type = native_type(type);
  Handle attribute(
      H5Acreate2(object.get(), name.c_str(), memory_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
      H5Aclose);
  if (!attribute.valid()) throw_error(ErrorKind::io, what + ": " + hdf5_reason());
  const bool empty = count != nullptr && *count == 0;
  if (!empty && H5Awrite(attribute.get(), memory_type, data) < 0)
    throw_error(ErrorKind::io, what + ": " + hdf5_reason());
}

void H5File::write_attribute(const std::string& object_path, const std::string& name,
                             const std::string& value) {
  QuietErrors quiet;
  const std::string path = normalized(object_path);
  const std::string what =
      "cannot write attribute " + quoted(name) + " of " + quoted(path) + " in " + quoted(m_path);
  Handle object = object_without_attribute(m_id, m_path, path, name, what);
  // Variable-length UTF-8 is what h5py writes for a Python str, and reads back as one.
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  Handle space = make_dataspace({});
  Handle attribute(
      H5Acreate2(object.get(), name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
      H5Aclose);
  if (!attribute.valid()) throw_error(ErrorKind::io, what + ": " + hdf5_reason());
  const char* text = value.c_str();
  if (H5Awrite(attribute.get(), type.get(), &text) < 0)
    throw_error(ErrorKind::io, what + ": " + hdf5_reason());
}

std::vector<std::size_t> H5File::shape(const std::string& dataset_path) const {
  QuietErrors quiet;
  const std::string path = normalized(dataset_path);
  Handle dataset = open_dataset(m_id, m_path, path, "read");
  Handle space(H5Dget_space(dataset.get()), H5Sclose);
  std::vector<std::size_t> dims;
  if (!space.valid() || !dataspace_shape(space.get(), dims))
    throw_error(ErrorKind::invalid_argument,
                "dataset " + quoted(path) + " in " + quoted(m_path) + " holds no data");
  return dims;
}

void H5File::read_raw(const std::string& dataset_path, impl::ScalarType type,
                      impl::ReadTarget target, std::vector<std::size_t>* shape,
                      const std::vector<std::size_t>* expected_1d) const {
  QuietErrors quiet;
  const std::string path = normalized(dataset_path);
  const std::string where = "dataset " + quoted(path) + " in " + quoted(m_path);
  Handle dataset = open_dataset(m_id, m_path, path, "read");
  const H5T_class_t type_class = class_of(dataset.get(), H5Dget_type);
  if (!is_numeric(type_class))
    throw_error(ErrorKind::invalid_argument,
                where + " holds " + class_description(type_class) + ", expected numbers");
  Handle space(H5Dget_space(dataset.get()), H5Sclose);
  std::vector<std::size_t> dims;
  if (!space.valid() || !dataspace_shape(space.get(), dims))
    throw_error(ErrorKind::invalid_argument, where + " holds no data");
  if (expected_1d != nullptr) {
    if (dims.size() != 1)
      throw_error(ErrorKind::invalid_argument,
                  where + " has shape " + format_shape(dims) + ", expected 1-D");
    const std::size_t length = expected_1d->front();
    if (length != static_cast<std::size_t>(-1) && dims[0] != length)
      throw_error(ErrorKind::invalid_argument, where + " has shape " + format_shape(dims) +
                                                   ", expected " + format_shape({length}));
  }
  const std::size_t count = element_count(dims);
  void* buffer = target.resize(target.vector, count);
  if (count > 0) {
    CheckedConversion conversion(is_integer(type));
    if (H5Dread(dataset.get(), native_type(type), H5S_ALL, H5S_ALL, conversion.plist(), buffer) <
        0) {
      if (conversion.refused())
        throw_error(ErrorKind::invalid_argument,
                    where + " " + conversion.explanation(type_name(type)));
      throw_error(ErrorKind::io, "cannot read " + where + ": " + hdf5_reason());
    }
  }
  if (shape != nullptr) *shape = std::move(dims);
}

void H5File::read_attribute_raw(const std::string& object_path, const std::string& name,
                                impl::ScalarType type, impl::ReadTarget target, bool single) const {
  QuietErrors quiet;
  const AttributeToRead read(m_id, m_path, normalized(object_path), name);
  const std::string& where = read.where;
  const std::string& what = read.what;
  const Handle& attribute = read.attribute;
  const Handle& file_type = read.file_type;
  if (!is_numeric(read.type_class))
    throw_error(ErrorKind::invalid_argument,
                where + " holds " + class_description(read.type_class) + ", expected numbers");
  const std::size_t count = read.has_shape ? element_count(read.dims) : 0;
  if (single && count != 1)
    throw_error(ErrorKind::invalid_argument,
                where + " has shape " + format_shape(read.dims) + ", expected a single value");
  void* buffer = target.resize(target.vector, count);
  if (count == 0) return;

  // H5Aread takes no transfer properties, so the checked conversion is done separately: read
  // in the attribute's own type, then convert in place with H5Tconvert.
  Handle stored_type(H5Tget_native_type(file_type.get(), H5T_DIR_ASCEND), H5Tclose);
  const hid_t memory_type = native_type(type);
  if (!stored_type.valid()) throw_error(ErrorKind::io, what + ": " + hdf5_reason());
  const std::size_t width = std::max(H5Tget_size(stored_type.get()), H5Tget_size(memory_type));
  std::vector<unsigned char> staging(width * count);
  if (H5Aread(attribute.get(), stored_type.get(), staging.data()) < 0)
    throw_error(ErrorKind::io, what + ": " + hdf5_reason());
  CheckedConversion conversion(is_integer(type));
  if (H5Tconvert(stored_type.get(), memory_type, count, staging.data(), nullptr,
                 conversion.plist()) < 0) {
    if (conversion.refused())
      throw_error(ErrorKind::invalid_argument,
                  where + " " + conversion.explanation(type_name(type)));
    throw_error(ErrorKind::io, what + ": " + hdf5_reason());
  }
  std::memcpy(buffer, staging.data(), count * H5Tget_size(memory_type));
}

std::string H5File::read_string_attribute(const std::string& object_path,
                                          const std::string& name) const {
  QuietErrors quiet;
  const AttributeToRead read(m_id, m_path, normalized(object_path), name);
  const std::string& where = read.where;
  const std::string& what = read.what;
  const Handle& attribute = read.attribute;
  const Handle& file_type = read.file_type;
  if (read.type_class != H5T_STRING)
    throw_error(ErrorKind::invalid_argument,
                where + " holds " + class_description(read.type_class) + ", expected a string");
  if (!read.has_shape || element_count(read.dims) != 1)
    throw_error(ErrorKind::invalid_argument,
                where + " has shape " + format_shape(read.dims) + ", expected a single string");

  if (H5Tis_variable_str(file_type.get()) > 0) {
    Handle memory_type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(memory_type.get(), H5T_VARIABLE);
    H5Tset_cset(memory_type.get(), H5Tget_cset(file_type.get()));
    char* text = nullptr;
    if (H5Aread(attribute.get(), memory_type.get(), &text) < 0)
      throw_error(ErrorKind::io, what + ": " + hdf5_reason());
    // HDF5 allocated the string; it must free it too (its allocator may not be ours).
    std::unique_ptr<char, herr_t (*)(void*)> owned(text, H5free_memory);
    return owned ? std::string(owned.get()) : std::string();
  }
  // Fixed length, as NumPy's bytes_ arrays and the HDF5 tools write: read the bytes as
  // stored, then drop the padding.
  const std::size_t size = H5Tget_size(file_type.get());
  std::string text(size, '\0');
  if (size > 0 && H5Aread(attribute.get(), file_type.get(), text.data()) < 0)
    throw_error(ErrorKind::io, what + ": " + hdf5_reason());
  text.resize(std::min(text.find('\0'), text.size()));
  if (H5Tget_strpad(file_type.get()) == H5T_STR_SPACEPAD) {
    const auto last = text.find_last_not_of(' ');
    text.resize(last == std::string::npos ? 0 : last + 1);
  }
  return text;
}

bool H5File::has_attribute(const std::string& object_path, const std::string& name) const {
  QuietErrors quiet;
  const std::string path = normalized(object_path);
  if (!link_exists(m_id, path)) return false;
  Handle object(H5Oopen(m_id, path.c_str(), H5P_DEFAULT), H5Oclose);
  return object.valid() && H5Aexists(object.get(), name.c_str()) > 0;
}

void H5File::flush() {
  QuietErrors quiet;
  if (H5Fflush(m_id, H5F_SCOPE_GLOBAL) < 0)
    throw_error(ErrorKind::io, "cannot flush " + quoted(m_path) + ": " + hdf5_reason());
}

// ---- ExtendibleDataset ------------------------------------------------------------------------

namespace impl {

RawExtendibleDataset::RawExtendibleDataset(H5File& file, const std::string& dataset_path,
                                           const std::vector<std::size_t>& item_dims,
                                           std::size_t chunk_items, int gzip_level, ScalarType type)
    : m_file_path(file.path()), m_dataset_path(normalized(dataset_path)), m_type(type),
      m_item_dims(item_dims) {
  QuietErrors quiet;
  const std::string what = "cannot create dataset " + where();
  require(m_dataset_path != "/", what + ": the root is a group");
  require(chunk_items > 0, what + ": chunk_items must be > 0");
  require(gzip_level >= 0 && gzip_level <= 9,
          what + ": gzip level must be in [0, 9], got " + std::to_string(gzip_level));
  for (std::size_t d : item_dims)
    require(d > 0, what + ": item dimensions must be > 0, got " + format_shape(item_dims));
  require(!file.exists(m_dataset_path),
          what + ": it exists already (ExtendibleDataset::open appends to it)");
  file.create_group(parent_of(m_dataset_path));

  std::vector<hsize_t> dims{0}, max_dims{H5S_UNLIMITED}, chunk{chunk_items};
  for (std::size_t d : item_dims) {
    dims.push_back(d);
    max_dims.push_back(d);
    chunk.push_back(d);
  }
  Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), max_dims.data()),
               H5Sclose);
  Handle properties(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  if (!space.valid() || !properties.valid() ||
      H5Pset_chunk(properties.get(), static_cast<int>(chunk.size()), chunk.data()) < 0)
    throw_error(ErrorKind::io, what + ": " + hdf5_reason());
  if (gzip_level > 0) {
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0)
      throw_error(ErrorKind::io, what + ": this HDF5 library has no gzip (deflate) filter");
    if (H5Pset_deflate(properties.get(), static_cast<unsigned>(gzip_level)) < 0)
      throw_error(ErrorKind::io, what + ": " + hdf5_reason());
  }
  Handle dataset(H5Dcreate2(file.id(), m_dataset_path.c_str(), native_type(type), space.get(),
                            H5P_DEFAULT, properties.get(), H5P_DEFAULT),
                 H5Dclose);
  if (!dataset.valid()) throw_error(ErrorKind::io, what + ": " + hdf5_reason());
  m_id = dataset.release();
}

RawExtendibleDataset RawExtendibleDataset::open(H5File& file, const std::string& dataset_path,
                                                ScalarType type) {
  QuietErrors quiet;
  RawExtendibleDataset result;
  result.m_file_path = file.path();
  result.m_dataset_path = normalized(dataset_path);
  result.m_type = type;
  const std::string where = result.where();
  Handle dataset = open_dataset(file.id(), file.path(), result.m_dataset_path, "append to");
  const H5T_class_t type_class = class_of(dataset.get(), H5Dget_type);
  if (!is_numeric(type_class))
    throw_error(
        ErrorKind::invalid_argument,
        "dataset " + where + " holds " + class_description(type_class) + ", expected numbers");
  Handle space(H5Dget_space(dataset.get()), H5Sclose);
  const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (rank < 1)
    throw_error(ErrorKind::invalid_argument,
                "cannot append to dataset " + where + ": it is a scalar or has no data");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank)), max_dims(dims.size());
  H5Sget_simple_extent_dims(space.get(), dims.data(), max_dims.data());
  if (max_dims[0] != H5S_UNLIMITED)
    throw_error(ErrorKind::invalid_argument,
                "cannot append to dataset " + where + ": its first axis is not extendible");
  result.m_items = static_cast<std::size_t>(dims[0]);
  result.m_item_dims.assign(dims.begin() + 1, dims.end());
  result.m_id = dataset.release();
  return result;
}

RawExtendibleDataset::RawExtendibleDataset(RawExtendibleDataset&& other) noexcept
    : m_file_path(std::move(other.m_file_path)), m_dataset_path(std::move(other.m_dataset_path)),
      m_id(std::exchange(other.m_id, H5I_INVALID_HID)), m_type(other.m_type),
      m_item_dims(std::move(other.m_item_dims)), m_items(other.m_items) {}

RawExtendibleDataset& RawExtendibleDataset::operator=(RawExtendibleDataset&& other) noexcept {
  if (this != &other) {
    RawExtendibleDataset closing(std::move(*this));
    m_file_path = std::move(other.m_file_path);
    m_dataset_path = std::move(other.m_dataset_path);
    m_id = std::exchange(other.m_id, H5I_INVALID_HID);
    m_type = other.m_type;
    m_item_dims = std::move(other.m_item_dims);
    m_items = other.m_items;
  }
  return *this;
}

RawExtendibleDataset::~RawExtendibleDataset() {
  if (m_id < 0) return;
  QuietErrors quiet;
  H5Dclose(m_id);
}

std::string RawExtendibleDataset::where() const {
  return quoted(m_dataset_path) + " in " + quoted(m_file_path);
}

void RawExtendibleDataset::resize(std::size_t items, const char* operation) {
  std::vector<hsize_t> dims{items};
  for (std::size_t d : m_item_dims) dims.push_back(d);
  if (H5Dset_extent(m_id, dims.data()) < 0)
    throw_error(ErrorKind::io,
                std::string("cannot ") + operation + " dataset " + where() + ": " + hdf5_reason());
  m_items = items;
}

void RawExtendibleDataset::append(const void* data, std::size_t items) {
  if (items == 0) return;
  QuietErrors quiet;
  const std::string what = "cannot append to dataset " + where();
  require(data != nullptr, what + ": no data given");
  const std::size_t before = m_items;
  resize(before + items, "append to");

  std::vector<hsize_t> start(m_item_dims.size() + 1, 0), count{items};
  start[0] = before;
  for (std::size_t d : m_item_dims) count.push_back(d);
  Handle file_space(H5Dget_space(m_id), H5Sclose);
  // The memory space has the selection's shape: with a flat one, HDF5 maps every element to
  // its chunk one by one (H5S_select_iterate), with the same shape it copies whole blocks
  // (docs/design/hdf5-output.md).
  Handle memory_space(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr),
                      H5Sclose);
  Handle stored_type(H5Dget_type(m_id), H5Tclose);
  CheckedConversion conversion(stored_type.valid() &&
                               H5Tget_class(stored_type.get()) == H5T_INTEGER);
  const bool written = file_space.valid() && memory_space.valid() &&
                       H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr,
                                           count.data(), nullptr) >= 0 &&
                       H5Dwrite(m_id, native_type(m_type), memory_space.get(), file_space.get(),
                                conversion.plist(), data) >= 0;
  if (!written) {
    const std::string reason =
        conversion.refused() ? "the data " + conversion.explanation("the dataset's type, " +
                                                                    describe(stored_type.get()))
                             : hdf5_reason();
    // Leave the dataset as it was rather than with `items` items of fill values at its end.
    try {
      resize(before, "shrink");
    } catch (const Error&) {
    }
    throw_error(conversion.refused() ? ErrorKind::invalid_argument : ErrorKind::io,
                what + ": " + reason);
  }
}

void RawExtendibleDataset::truncate(std::size_t items) {
  QuietErrors quiet;
  require(items <= m_items, "cannot truncate dataset " + where() + " to " + std::to_string(items) +
                                " items: it holds " + std::to_string(m_items));
  if (items != m_items) resize(items, "truncate");
}

}  // namespace impl

// ---- AtomicOutput -----------------------------------------------------------------------------

void require_writable(const std::string& path) {
  require(!path.empty(), "an output needs a file name");
  const std::string reason = unwritable_reason(path);
  if (!reason.empty()) throw_error(ErrorKind::io, "cannot write " + quoted(path) + ": " + reason);
}

AtomicOutput::AtomicOutput(std::string final_path)
    : m_final_path(std::move(final_path)), m_temporary_path(temporary_path_of(m_final_path)) {
  require(!m_final_path.empty(), "AtomicOutput needs a file name");
  require_writable(m_final_path);
}

AtomicOutput::AtomicOutput(AtomicOutput&& other) noexcept
    : m_final_path(std::move(other.m_final_path)),
      m_temporary_path(std::move(other.m_temporary_path)),
      m_committed(std::exchange(other.m_committed, true)) {}

AtomicOutput::~AtomicOutput() {
  if (!m_committed) ::unlink(m_temporary_path.c_str());
}

void AtomicOutput::commit() {
  const std::string what = "cannot write " + quoted(m_final_path);
  require(!m_committed, what + ": AtomicOutput::commit called twice");
  // Data first, name second: after a power cut the final name holds the old file or the
  // whole new one, never a renamed file whose blocks never reached the disk.
  const int fd = ::open(m_temporary_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw_error(ErrorKind::io,
                what + ": cannot open " + quoted(m_temporary_path) + ": " + std::strerror(errno));
  const int synced = ::fsync(fd);
  const int sync_errno = errno;
  ::close(fd);
  if (synced != 0)
    throw_error(ErrorKind::io, what + ": cannot sync " + quoted(m_temporary_path) + ": " +
                                   std::strerror(sync_errno));
  if (std::rename(m_temporary_path.c_str(), m_final_path.c_str()) != 0)
    throw_error(ErrorKind::io,
                what + ": cannot rename " + quoted(m_temporary_path) + ": " + std::strerror(errno));
  m_committed = true;
  // Makes the rename itself durable; the file is complete either way, so failures are ignored.
  const int folder = ::open(folder_of(m_final_path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder >= 0) {
    ::fsync(folder);
    ::close(folder);
  }
}

}  // namespace portasim::io
