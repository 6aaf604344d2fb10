#include <string>

#include "portasim/core/error.hpp"
#include "portasim/life/simulation.hpp"

namespace portasim::life {

const char* to_string(Boundary boundary) noexcept { return boundary == Boundary::torus ? "torus" : "dead"; }
const char* to_string(Engine engine) noexcept { return engine == Engine::bits ? "bits" : "byte"; }

void validate(const Config& c) {
  require(c.width > 0, "width must be > 0, got " + std::to_string(c.width));
  require(c.height > 0, "height must be > 0, got " + std::to_string(c.height));
  require(c.steps >= 0, "steps must be >= 0, got " + std::to_string(c.steps));
  require(c.chunk_size > 0, "chunk size must be > 0, got " + std::to_string(c.chunk_size));
  require(c.every > 0, "every must be > 0, got " + std::to_string(c.every));
  require(c.engine != Engine::bits || c.width % cells_per_word == 0,
          "the bit-packed engine needs a width that is a multiple of 64, got " + std::to_string(c.width));
  require(!c.packed_output || c.width % cells_per_word == 0,
          "bit-packed output needs a width that is a multiple of 64, got " + std::to_string(c.width));
  require(c.width <= (std::int64_t(1) << 31) && c.height <= (std::int64_t(1) << 31), "grid too large");
}

double RunStats::cells_per_second() const {
  const double generations = static_cast<double>(last_generation - first_generation);
  return seconds > 0 ? generations * static_cast<double>(cells) / seconds : 0.0;
}

}  // namespace portasim::life
