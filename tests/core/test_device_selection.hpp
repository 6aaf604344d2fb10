#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "portasim/core/build_info.hpp"
#include "portasim/core/device_selection.hpp"
#include "portasim/core/error.hpp"

namespace test_device_selection {

inline portasim::EnvironmentLookup environment(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> const char* {
    auto it = values.find(name);
    return it == values.end() ? nullptr : it->second.c_str();
  };
}

TEST(TEST_CATEGORY, device_selection_follows_the_rule) {
  using portasim::choose_device;
  EXPECT_EQ(choose_device(0, environment({{"SLURM_LOCALID", "3"}})).device_id, -1);
  EXPECT_EQ(choose_device(4, environment({})).device_id, 0);
  EXPECT_EQ(choose_device(4, environment({})).reason, "default");
  // Each launcher's variable, modulo the device count.
  EXPECT_EQ(choose_device(4, environment({{"OMPI_COMM_WORLD_LOCAL_RANK", "6"}})).device_id, 2);
  EXPECT_EQ(choose_device(4, environment({{"SLURM_LOCALID", "5"}})).device_id, 1);
  EXPECT_EQ(choose_device(3, environment({{"MV2_COMM_WORLD_LOCAL_RANK", "2"}})).device_id, 2);
  EXPECT_EQ(choose_device(2, environment({{"PMI_LOCAL_RANK", "7"}})).device_id, 1);
  const auto choice = choose_device(4, environment({{"SLURM_LOCALID", "5"}}));
  EXPECT_EQ(choice.reason, "SLURM_LOCALID=5 modulo 4 device(s)");
  // Open MPI's variable wins over SLURM's (mpirun inside an allocation sets both).
  EXPECT_EQ(
      choose_device(8, environment({{"SLURM_LOCALID", "0"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "3"}}))
          .device_id,
      3);
  // PORTASIM_DEVICE overrides the rank, an explicit id overrides everything.
  EXPECT_EQ(
      choose_device(4, environment({{"SLURM_LOCALID", "1"}, {"PORTASIM_DEVICE", "3"}})).device_id,
      3);
  EXPECT_EQ(choose_device(4, environment({{"SLURM_LOCALID", "1"}, {"PORTASIM_DEVICE", "3"}}), 2)
                .device_id,
            2);
  EXPECT_EQ(choose_device(1, environment({{"OMPI_COMM_WORLD_LOCAL_RANK", "5"}})).device_id, 0);
}

TEST(TEST_CATEGORY, device_selection_rejects_bad_values) {
  using portasim::choose_device;
  for (const char* bad : {"", "-1", "one", "2x", " 1", "99999999999"}) {
    try {
      choose_device(4, environment({{"SLURM_LOCALID", bad}}));
      ADD_FAILURE() << "SLURM_LOCALID='" << bad << "' accepted";
    } catch (const portasim::Error& e) {
      EXPECT_NE(std::string(e.what()).find("SLURM_LOCALID='" + std::string(bad) + "'"),
                std::string::npos)
          << e.what();
    }
  }
  try {
    choose_device(2, environment({{"PORTASIM_DEVICE", "2"}}));
    ADD_FAILURE() << "device 2 of 2 accepted";
  } catch (const portasim::Error& e) {
    EXPECT_NE(std::string(e.what()).find("only 2 device(s)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(choose_device(2, environment({}), 5), portasim::Error);
}

TEST(TEST_CATEGORY, device_properties_are_plausible) {
  const auto host = portasim::host_properties();
  EXPECT_GE(host.hardware_threads, 1);
  EXPECT_GT(host.total_memory_bytes, std::size_t(1) << 28);
  EXPECT_GT(host.available_memory_bytes, 0u);
  EXPECT_LE(host.available_memory_bytes, host.total_memory_bytes);
  const auto info = portasim::build_info();
  std::ostringstream json;
  portasim::print_info_json(json, info, portasim::device_properties());
  for (const char* key : {"\"host\": {\"cpu_model\"", "\"hardware_threads\"", "\"active_device\"",
                          "\"device_selection\""})
    EXPECT_NE(json.str().find(key), std::string::npos) << key << " not in " << json.str();
  if (info.active_device >= 0) {
    EXPECT_FALSE(info.device_selection.empty());
  }
  for (const auto& d : portasim::device_properties()) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.compute_capability_major, 3);
    EXPECT_GT(d.multiprocessors, 0);
    EXPECT_GT(d.memory_bus_width_bits, 0);
    EXPECT_GT(d.memory_bandwidth_gb_per_s, 100.0);
    if (d.id == info.active_device) {
      EXPECT_GT(d.free_memory_bytes, 0u);
      EXPECT_LE(d.free_memory_bytes, d.total_memory_bytes);
    }
  }
}

}  // namespace test_device_selection
