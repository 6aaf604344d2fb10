#pragma once
// Which GPU this process uses. The rule (first that applies):
//   1. an explicit id (RuntimeOptions::device_id, --kokkos-device-id on the command line);
//   2. PORTASIM_DEVICE=<id>;
//   3. the node-local MPI rank modulo the number of devices, from the first of
//      OMPI_COMM_WORLD_LOCAL_RANK (Open MPI), SLURM_LOCALID (srun), MV2_COMM_WORLD_LOCAL_RANK
//      (MVAPICH2), PMI_LOCAL_RANK (MPICH/Hydra, Intel MPI) that is set;
//   4. device 0.
// so that one rank per GPU works under mpirun or srun without flags. Values are parsed
// strictly: a non-numeric or negative value, or an id beyond the devices, is an Error.
// choose_device is a pure function of its inputs (testable without a GPU).

#include <functional>
#include <string>

namespace portasim {

struct DeviceChoice {
  int device_id = -1;  // -1: no device (device_count == 0)
  std::string reason;  // e.g. "SLURM_LOCALID=5 modulo 4 devices"
};

// Looks a variable up; nullptr when unset.
using EnvironmentLookup = std::function<const char*(const char*)>;

inline constexpr const char* device_variable = "PORTASIM_DEVICE";
inline constexpr const char* local_rank_variables[] = {
    "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MV2_COMM_WORLD_LOCAL_RANK", "PMI_LOCAL_RANK"};

// requested_id >= 0 is rule 1.
DeviceChoice choose_device(int device_count, const EnvironmentLookup& environment,
                           int requested_id = -1);
// The same with the process environment.
DeviceChoice choose_device(int device_count, int requested_id = -1);

}  // namespace portasim
