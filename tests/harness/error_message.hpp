#pragma once
// The message of the portasim::Error that `operation` throws, after checking its kind; a test
// failure and an empty message when it throws none. Tests then look for the words a user
// would read (the option's name, the value allowed).

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "portasim/core/error.hpp"

namespace portasim::testing {

inline std::string error_message(const std::function<void()>& operation,
                                 ErrorKind kind = ErrorKind::invalid_argument) {
  try {
    operation();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no portasim::Error thrown";
  return {};
}

}  // namespace portasim::testing
