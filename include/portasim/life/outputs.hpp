#pragma once
// Where chunks of generations go, and how an interrupted run finds where to resume.
//   NpyChunkFiles: the Python tool's layout: {base}_000000.npy holds generation 0 with shape
//     (1, H, W); {base}_{a:06d}-{b:06d}.npy holds generations a..b, shape (b-a+1, H, W),
//     uint8. Each file is written under a temporary name and renamed, so every file that
//     exists is complete; no file ever grows.
//   H5ChunkFile: one HDF5 file with /generations (extendible, chunked: (n, H, W) uint8, or
//     (n, H, W/8) bit-packed with numpy.packbits(..., bitorder='little')) and
//     /generation_index (n) int64, appended and flushed per chunk. It is written as
//     PATH.partial and renamed to PATH when the run completes.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "portasim/core/writeback.hpp"
#include "portasim/life/patterns.hpp"
#include "portasim/life/simulation.hpp"

namespace portasim::life {

// "simulation.npy" -> "simulation"; a path without .npy is its own base.
std::string npy_base(const std::string& output);
std::string npy_chunk_path(const std::string& base, std::int64_t first, std::int64_t last);

// A chunk file of a base found on disk: {base}_<first>[-<last>].npy, or its temporary
// (io::temporary_path_of) left by a run that stopped while writing it.
struct NpyChunkOnDisk {
  std::int64_t first = 0;
  std::int64_t last = 0;
  std::string path;
  bool temporary = false;
};

// Every chunk file of `base` in its folder now, in no particular order; none if the folder
// does not exist.
std::vector<NpyChunkOnDisk> npy_chunks_on_disk(const std::string& base);

class NpyChunkFiles : public ChunkSink {
 public:
  // `start_writeback`: each complete file starts on its way to the disk while the next
  // chunk is computed (io::BackgroundWriteback), so the disk works during the run instead
  // of after it, and a run leaves little dirty memory behind. The writer itself keeps
  // writing into the page cache at memory speed. Without it the files wait in the page
  // cache until the operating system flushes them, as np.save leaves them.
  explicit NpyChunkFiles(std::string base, bool start_writeback = true);
  void write(const Chunk& chunk) override;
  std::int64_t files_written() const noexcept { return m_files; }

 private:
  std::string m_base;
  std::int64_t m_files = 0;
  std::unique_ptr<io::BackgroundWriteback> m_writeback;  // null without start_writeback
};

// The last complete chunk of an interrupted run and its last grid.
struct ResumePoint {
  std::int64_t generation = 0;
  HostGrid grid;
  std::string source;  // the file it came from
};

// Scans {base}_*.npy for the chunk files that continue each other from generation 0 and
// returns the last; nothing if there is none.
std::optional<ResumePoint> find_npy_resume_point(const std::string& base);

struct H5RunDescription {
  std::string boundary, engine, seed, initial;
  double density = 0;
  std::int64_t chunk_size = 0;
};

class H5ChunkFile : public ChunkSink {
 public:
  // Creates PATH.partial for a new run, or reopens it to resume (then `resume_from` is set
  // to the last complete generation; the grid is returned by resume_point()).
  H5ChunkFile(const std::string& path, const Config& config, const H5RunDescription& description,
              bool resume);
  ~H5ChunkFile() override;
  void write(const Chunk& chunk) override;
  std::optional<ResumePoint> resume_point() const;
  // Closes the file and renames PATH.partial to PATH.
  void finish();
  const std::string& partial_path() const noexcept;

 private:
  struct State;
  static void create_new_file(State& state, const Config& config,
                              const H5RunDescription& description,
                              const std::vector<std::size_t>& item, std::int64_t row_bytes);
  std::unique_ptr<State> m_state;
};

}  // namespace portasim::life
