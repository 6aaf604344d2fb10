#include "portasim/life/outputs.hpp"

#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>

#include "portasim/config.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/core/input_protection.hpp"

namespace portasim::life {

namespace fs = std::filesystem;

std::string npy_base(const std::string& output) {
  if (output.size() > 4 && output.compare(output.size() - 4, 4, ".npy") == 0)
    return output.substr(0, output.size() - 4);
  return output;
}

std::string npy_chunk_path(const std::string& base, std::int64_t first, std::int64_t last) {
  char suffix[64];
  if (first == 0 && last == 0) std::snprintf(suffix, sizeof suffix, "_%06lld.npy", 0LL);
  else
    std::snprintf(suffix, sizeof suffix, "_%06lld-%06lld.npy", static_cast<long long>(first),
                  static_cast<long long>(last));
  return base + suffix;
}

NpyChunkFiles::NpyChunkFiles(std::string base, bool start_writeback)
    : m_base(std::move(base)),
      m_writeback(start_writeback ? std::make_unique<io::BackgroundWriteback>() : nullptr) {}

void NpyChunkFiles::write(const Chunk& chunk) {
  require(!chunk.packed,
          ".npy chunk files hold one byte per cell; bit-packed output needs --format h5");
  require(chunk.count == chunk.last_generation - chunk.first_generation + 1,
          ".npy chunk files hold every generation; --every needs --format h5");
  const std::string path = npy_chunk_path(m_base, chunk.first_generation, chunk.last_generation);
  const std::string partial = io::temporary_path_of(path);
  try {
    write_npy(partial, chunk.data, {chunk.count, chunk.height, chunk.row_bytes});
  } catch (const Error& e) {
    // A full disk leaves a truncated file: remove it, so that only complete chunks remain.
    std::error_code ignored;
    fs::remove(partial, ignored);
    throw_error(e.kind(), std::string(e.what()) + " (chunk " + path +
                              " not written; the chunks before it are complete)");
  }
  std::error_code error;
  fs::rename(partial, path, error);
  if (error) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    throw_error(ErrorKind::io, "cannot rename '" + partial + "' to '" + path + "': " +
                                   error.message() + " (the chunks before it are complete)");
  }
  ++m_files;
  if (m_writeback) m_writeback->start(path);
}

std::vector<NpyChunkOnDisk> npy_chunks_on_disk(const std::string& base) {
  const fs::path base_path(base);
  const fs::path folder = base_path.has_parent_path() ? base_path.parent_path() : fs::path(".");
  const std::string stem = base_path.filename().string();
  std::vector<NpyChunkOnDisk> chunks;
  if (!fs::is_directory(folder)) return chunks;
  const std::string temporary_suffix = io::temporary_path_of("");
  const std::regex chunk_name(
      std::regex_replace(stem, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
      R"(_(\d{6,18})(?:-(\d{6,18}))?\.npy)" +
      "(?:" + std::regex_replace(temporary_suffix, std::regex(R"(\.)"), R"(\.)") + ")?");
  for (const auto& entry : fs::directory_iterator(folder)) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (!std::regex_match(name, m, chunk_name)) continue;
    const std::int64_t first = std::stoll(m[1].str());
    const std::int64_t last = m[2].matched ? std::stoll(m[2].str()) : first;
    const bool temporary = name.size() > temporary_suffix.size() &&
                           name.compare(name.size() - temporary_suffix.size(),
                                        temporary_suffix.size(), temporary_suffix) == 0;
    chunks.push_back({first, last, entry.path().string(), temporary});
  }
  return chunks;
}

std::optional<ResumePoint> find_npy_resume_point(const std::string& base) {
  std::map<std::int64_t, std::pair<std::int64_t, std::string>> chunks;  // first -> (last, file)
  for (const NpyChunkOnDisk& chunk : npy_chunks_on_disk(base))
    if (!chunk.temporary) chunks[chunk.first] = {chunk.last, chunk.path};
  // Follow the chain 0, 1..a, a+1..b, ... as far as it goes without a gap.
  std::optional<ResumePoint> point;
  std::int64_t next = 0;
  while (true) {
    const auto it = chunks.find(next);
    if (it == chunks.end()) break;
    point = ResumePoint{it->second.first, {}, it->second.second};
    next = it->second.first + 1;
  }
  if (point) point->grid = read_npy(point->source);
  return point;
}

struct H5ChunkFile::State {
  std::string final_path, partial_path;
  std::optional<io::H5File> file;
  std::optional<io::ExtendibleDataset<std::uint8_t>> generations;
  std::optional<io::ExtendibleDataset<std::int64_t>> index;
  std::optional<ResumePoint> resume;
  bool finished = false;
  bool created = false;  // by this run, not reopened to resume
  std::int64_t chunks_written = 0;
};

H5ChunkFile::H5ChunkFile(const std::string& path, const Config& config,
                         const H5RunDescription& description, bool resume)
    : m_state(std::make_unique<State>()) {
  State& s = *m_state;
  s.final_path = path;
  s.partial_path = io::temporary_path_of(path);
  // The final name is checked now, so that a run does not fail at its last rename.
  io::require_writable(s.final_path);
  const std::int64_t row_bytes = life::row_bytes(config);
  const std::vector<std::size_t> item{static_cast<std::size_t>(config.height),
                                      static_cast<std::size_t>(row_bytes)};
  if (resume && fs::exists(s.partial_path)) {
    s.file.emplace(io::H5File::open_read_write(s.partial_path));
    auto expect = [&](const char* name, std::int64_t value) {
      require(s.file->read_attribute<std::int64_t>("/", name) == value,
              "cannot resume '" + s.partial_path + "': it was written with another " + name,
              ErrorKind::invalid_argument);
    };
    expect("width", config.width);
    expect("height", config.height);
    expect("packed", config.packed_output ? 1 : 0);
    expect("every", config.every);
    expect("chunk_size", config.chunk_size);
    s.generations.emplace(io::ExtendibleDataset<std::uint8_t>::open(*s.file, "/generations"));
    s.index.emplace(io::ExtendibleDataset<std::int64_t>::open(*s.file, "/generation_index"));
    // A kill between the two appends of a chunk leaves one longer: keep what both have. A
    // failed write (full disk) can leave an extent longer than the data that reached the
    // disk, unwritten numbers reading as 0: keep only the index's prefix that numbers the
    // recorded generations 0, every, 2 every, ... in order (found by tests/reliability).
    std::size_t complete = std::min(s.generations->size(), s.index->size());
    if (complete > 0) {
      const auto numbers = s.file->read<std::int64_t>("/generation_index");
      std::size_t valid = 0;
      while (valid < complete && numbers[valid] == static_cast<std::int64_t>(valid) * config.every)
        ++valid;
      complete = valid;
      // Resume only from a chunk boundary, so the chunks continue exactly; generation 0 alone
      // is no progress (the run writes it again).
      auto resumable = [&](std::int64_t g) {
        return g > 0 && (g % config.chunk_size == 0 || g == config.steps);
      };
      while (complete > 0 && !resumable(numbers[complete - 1])) --complete;
    }
    s.generations->truncate(complete);
    s.index->truncate(complete);
    if (complete > 0) {
      const auto numbers = s.file->read<std::int64_t>("/generation_index");
      const std::int64_t last = numbers[complete - 1];
      {
        std::vector<std::size_t> shape;
        const auto all = s.file->read<std::uint8_t>("/generations", &shape);
        const std::size_t grid_bytes = item[0] * item[1];
        ResumePoint point{last, {}, s.partial_path};
        point.grid.height = config.height;
        point.grid.width = config.width;
        const std::uint8_t* g = all.data() + (complete - 1) * grid_bytes;
        if (!config.packed_output) {
          point.grid.cells.assign(g, g + grid_bytes);
        } else {
          for (std::size_t b = 0; b < grid_bytes; ++b)
            for (int bit = 0; bit < 8; ++bit) point.grid.cells.push_back((g[b] >> bit) & 1u);
        }
        s.resume = point;
      }
    }
    return;
  }
  require(!resume || !fs::exists(path),
          "cannot resume: '" + path + "' is complete (no '" + s.partial_path + "' to continue)",
          ErrorKind::invalid_argument);
  {
    io::AtomicOutput probe(s.partial_path);  // checks the folder is writable, with a clear error
  }
  // HDF5 cannot store a chunk of 4 GiB or more, and a chunk holds at least one grid.
  require(config.height * row_bytes < (std::int64_t(1) << 32),
          "a " + std::to_string(config.height) + " x " + std::to_string(config.width) +
              " grid does not fit one HDF5 chunk (4 GiB): use --packed (8 cells per byte) or "
              "--format npy");
  try {
    create_new_file(s, config, description, item, row_bytes);
  } catch (...) {
    // A run that could not even start leaves nothing behind (a .partial would invite --resume).
    s.index.reset();
    s.generations.reset();
    s.file.reset();
    std::error_code ignored;
    fs::remove(s.partial_path, ignored);
    throw;
  }
}

void H5ChunkFile::create_new_file(State& s, const Config& config,
                                  const H5RunDescription& description,
                                  const std::vector<std::size_t>& item, std::int64_t row_bytes) {
  s.file.emplace(io::H5File::create(s.partial_path));
  const std::size_t chunk_items = static_cast<std::size_t>(std::max<std::int64_t>(
      1, std::min<std::int64_t>(config.chunk_size,
                                (std::int64_t(4) << 20) / (config.height * row_bytes))));
  s.generations.emplace(*s.file, "/generations", item, chunk_items);
  s.index.emplace(*s.file, "/generation_index", std::vector<std::size_t>{}, std::size_t(1024));
  io::H5File& f = *s.file;
  f.write_attribute("/", "width", config.width);
  f.write_attribute("/", "height", config.height);
  f.write_attribute("/", "packed", std::int64_t(config.packed_output ? 1 : 0));
  f.write_attribute("/", "bitorder", std::string("little"));
  f.write_attribute("/", "every", config.every);
  f.write_attribute("/", "chunk_size", config.chunk_size);
  f.write_attribute("/", "steps", config.steps);
  f.write_attribute("/", "boundary", description.boundary);
  f.write_attribute("/", "engine", description.engine);
  f.write_attribute("/", "seed", description.seed);
  f.write_attribute("/", "initial", description.initial);
  f.write_attribute("/", "density", description.density);
  f.write_attribute("/", "rule", std::string("B3/S23"));
  f.write_attribute("/", "portasim_version", std::string(PORTASIM_VERSION_STRING));
  f.flush();
  s.created = true;
}

H5ChunkFile::~H5ChunkFile() {
  State& s = *m_state;
  if (s.finished || !s.created || s.chunks_written > 0) return;  // what it holds is resumable
  // A new run that failed before its first chunk (e.g. out of memory while setting up)
  // leaves nothing: an empty .partial would only invite a --resume that has nothing to resume.
  s.index.reset();
  s.generations.reset();
  s.file.reset();
  std::error_code ignored;
  fs::remove(s.partial_path, ignored);
}

void H5ChunkFile::write(const Chunk& chunk) {
  State& s = *m_state;
  // The grids first, on disk, then their numbers: /generation_index never names a grid that
  // is not on disk. A write that fails half way (a full disk) can leave the file's extents
  // longer than what reached the disk; --resume trusts only the consecutive prefix of the
  // index (see the constructor).
  s.generations->append(chunk.data, static_cast<std::size_t>(chunk.count));
  s.file->flush();
  s.index->append(chunk.generations, static_cast<std::size_t>(chunk.count));
  s.file->flush();
  ++s.chunks_written;
}

std::optional<ResumePoint> H5ChunkFile::resume_point() const { return m_state->resume; }

const std::string& H5ChunkFile::partial_path() const noexcept { return m_state->partial_path; }

void H5ChunkFile::finish() {
  State& s = *m_state;
  s.index.reset();
  s.generations.reset();
  s.file.reset();
  std::error_code error;
  fs::rename(s.partial_path, s.final_path, error);
  require(!error,
          "cannot rename '" + s.partial_path + "' to '" + s.final_path + "': " + error.message(),
          ErrorKind::io);
  s.finished = true;
}

}  // namespace portasim::life
