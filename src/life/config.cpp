#include <limits>
#include <string>

#include "portasim/core/checked_size.hpp"
#include "portasim/core/error.hpp"
#include "portasim/life/simulation.hpp"

namespace portasim::life {

const char* to_string(Boundary boundary) noexcept {
  return boundary == Boundary::torus ? "torus" : "dead";
}
const char* to_string(Engine engine) noexcept { return engine == Engine::bits ? "bits" : "byte"; }

void validate(const Config& c) {
  require(c.width > 0, "--width must be > 0, got " + std::to_string(c.width));
  require(c.height > 0, "--height must be > 0, got " + std::to_string(c.height));
  require(c.steps >= 0, "--steps must be >= 0, got " + std::to_string(c.steps));
  require(c.chunk_size > 0, "--chunk-size must be > 0, got " + std::to_string(c.chunk_size));
  require(c.every > 0, "--every must be > 0, got " + std::to_string(c.every));
  require(c.engine != Engine::bits || c.width % cells_per_word == 0,
          "--engine bits needs a --width that is a multiple of 64, got " + std::to_string(c.width));
  require(!c.packed_output || c.width % cells_per_word == 0,
          "--packed needs a --width that is a multiple of 64, got " + std::to_string(c.width));
  require(c.width <= (std::int64_t(1) << 31) && c.height <= (std::int64_t(1) << 31),
          "grid too large: --width and --height are at most 2^31");
  require(c.steps < std::numeric_limits<std::int64_t>::max(), "--steps must be less than 2^63 - 1");
  checked_product("ceil(--chunk-size / --every) x --height x --width bytes of a chunk",
                  {recorded_per_chunk(c), c.height, row_bytes(c)});
  checked_product("recorded generations (--steps / --every + 1) x --height x --width bytes",
                  {c.steps / c.every + 1, c.height, row_bytes(c)});
}

double RunStats::cells_per_second() const {
  const double generations = static_cast<double>(last_generation - first_generation);
  return seconds > 0 ? generations * static_cast<double>(cells) / seconds : 0.0;
}

}  // namespace portasim::life
