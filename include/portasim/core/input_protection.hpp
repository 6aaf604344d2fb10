#pragma once
// A run never writes over its own inputs. Files are compared by identity (device and inode),
// not by spelling: "x.h5", "./x.h5", "../dir/x.h5", a symbolic link and a hard link to x.h5
// all name the input x.h5.

#include <string>
#include <vector>

namespace portasim::io {

// A file as the user named it: the option (e.g. "--input") and the path given with it.
struct NamedPath {
  std::string option;
  std::string path;
};

// The temporary file an output is written to before it is renamed over its final name
// (AtomicOutput, the Life chunk files): a failed run removes it, a complete one renames it.
inline std::string temporary_path_of(const std::string& final_path) {
  return final_path + ".partial";
}

// True when both paths exist and name the same file (symbolic links followed).
bool same_file(const std::string& a, const std::string& b);

// Throws ErrorKind::invalid_argument when a file the run would create or replace is one of
// its inputs. Each output is checked together with the temporary file AtomicOutput writes
// first (temporary_path_of), since creating that truncates whatever it names. The message names
// both options and both paths.
void require_inputs_spared(const std::vector<NamedPath>& outputs,
                           const std::vector<NamedPath>& inputs);

}  // namespace portasim::io
