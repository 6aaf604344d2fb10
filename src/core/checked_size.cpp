#include "portasim/core/checked_size.hpp"

#include <cmath>
#include <sstream>
#include <string>

#include "portasim/core/error.hpp"

namespace portasim {

std::int64_t checked_product(std::string_view what, std::initializer_list<std::int64_t> factors,
                             std::int64_t limit) {
  std::int64_t product = 1;
  for (const std::int64_t factor : factors) {
    require(factor >= 0, std::string(what) + " has a negative factor " + std::to_string(factor));
    if (factor == 0) return 0;
  }
  for (const std::int64_t factor : factors) {
    if (product > limit / factor) {
      std::ostringstream message;
      message << what << " is too large: ";
      const char* separator = "";
      for (const std::int64_t f : factors) {
        message << separator << f;
        separator = " x ";
      }
      message << " exceeds " << limit;
      throw_error(ErrorKind::invalid_argument, message.str());
    }
    product *= factor;
  }
  return product;
}

std::int64_t checked_step_count(std::string_view what, double t, double dt, std::int64_t limit) {
  const double ratio = t / dt;
  // 2^63 is the first double past int64's range; limit converts to at most that.
  if (!(std::isfinite(ratio) && ratio >= 0 && ratio < static_cast<double>(limit))) {
    std::ostringstream message;
    message << what << " gives " << ratio << " steps; at most " << limit << " are possible";
    throw_error(ErrorKind::invalid_argument, message.str());
  }
  return std::llround(ratio);
}

}  // namespace portasim
