#include "portasim/core/input_protection.hpp"

#include <sys/stat.h>

#include "portasim/core/error.hpp"

namespace portasim::io {

namespace {

bool identity_of(const std::string& path, struct stat& info) {
  return !path.empty() && ::stat(path.c_str(), &info) == 0;
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  struct stat first {
  }, second{};
  return identity_of(a, first) && identity_of(b, second) && first.st_dev == second.st_dev &&
         first.st_ino == second.st_ino;
}

void require_inputs_spared(const std::vector<NamedPath>& outputs,
                           const std::vector<NamedPath>& inputs) {
  for (const NamedPath& input : inputs) {
    struct stat read {};
    if (!identity_of(input.path, read)) continue;  // a missing input fails when it is read
    for (const NamedPath& output : outputs) {
      for (const std::string& written : {output.path, temporary_path_of(output.path)}) {
        struct stat target {};
        if (!identity_of(written, target) || target.st_dev != read.st_dev ||
            target.st_ino != read.st_ino)
          continue;
        const std::string how =
            written == output.path
                ? quoted(output.path)
                : quoted(output.path) + " (through its temporary file " + quoted(written) + ")";
        throw_error(ErrorKind::invalid_argument,
                    output.option + " " + how + " would write over " + input.option + " " +
                        quoted(input.path) +
                        ", the same file: choose another output name; the input is left as it is");
      }
    }
  }
}

}  // namespace portasim::io
