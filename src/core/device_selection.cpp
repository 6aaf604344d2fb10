#include "portasim/core/device_selection.hpp"

#include <cerrno>
#include <cstdlib>
#include <limits>

#include "portasim/core/error.hpp"

namespace portasim {

namespace {

int parse_index(const char* name, const char* value) {
  const std::string text(value);
  bool digits = !text.empty() && text.size() <= 9;
  for (char c : text) digits = digits && c >= '0' && c <= '9';
  require(digits, std::string(name) + "='" + text +
                      "' is not a valid index (expected a non-negative integer)");
  return std::atoi(text.c_str());
}

}  // namespace

DeviceChoice choose_device(int device_count, const EnvironmentLookup& environment,
                           int requested_id) {
  DeviceChoice choice;
  if (device_count <= 0) {
    choice.reason = "no device";
    return choice;
  }
  auto check_range = [device_count](int id, const std::string& source) {
    require(id < device_count, source + " asks for device " + std::to_string(id) + ", but only " +
                                   std::to_string(device_count) +
                                   " device(s) are visible (ids 0.." +
                                   std::to_string(device_count - 1) + ")");
    return id;
  };
  if (requested_id >= 0) {
    choice.device_id = check_range(requested_id, "the explicit device id");
    choice.reason = "requested";
    return choice;
  }
  if (const char* value = environment(device_variable)) {
    const int id = parse_index(device_variable, value);
    choice.device_id = check_range(id, std::string(device_variable) + "=" + value);
    choice.reason = std::string(device_variable) + "=" + value;
    return choice;
  }
  for (const char* name : local_rank_variables) {
    if (const char* value = environment(name)) {
      const int rank = parse_index(name, value);
      choice.device_id = rank % device_count;
      choice.reason = std::string(name) + "=" + value + " modulo " + std::to_string(device_count) +
                      " device(s)";
      return choice;
    }
  }
  choice.device_id = 0;
  choice.reason = "default";
  return choice;
}

DeviceChoice choose_device(int device_count, int requested_id) {
  return choose_device(
      device_count, [](const char* name) { return std::getenv(name); }, requested_id);
}

}  // namespace portasim
