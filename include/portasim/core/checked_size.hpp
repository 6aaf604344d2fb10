#pragma once
// Sizes built from user-given counts, with overflow refused as bad input before anything is
// allocated: a count that cannot be represented is the caller's mistake (exit 2 at the
// command line), never an out-of-memory error or a wrapped-around size.

#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace portasim {

// The product of non-negative `factors`; throws ErrorKind::invalid_argument naming `what`
// (e.g. "--chunk-size x --height x --width bytes") when it exceeds `limit`.
std::int64_t checked_product(std::string_view what, std::initializer_list<std::int64_t> factors,
                             std::int64_t limit = INT64_MAX);

// round(t / dt) as a step count; throws ErrorKind::invalid_argument naming `what` (e.g.
// "--t-ms / --dt-ms") when the ratio is not finite or exceeds `limit`. std::llround alone
// is undefined past int64's range.
std::int64_t checked_step_count(std::string_view what, double t, double dt,
                                std::int64_t limit = INT64_MAX);

}  // namespace portasim
