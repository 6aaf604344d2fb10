# HDF5::HDF5 appears with CMake 3.19; older CMake gets an equivalent interface target so
# that portasim's export names one target either way.
if(NOT TARGET HDF5::HDF5)
  add_library(HDF5::HDF5 INTERFACE IMPORTED)
  set_target_properties(HDF5::HDF5 PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${HDF5_INCLUDE_DIRS}"
    INTERFACE_LINK_LIBRARIES "${HDF5_LIBRARIES}"
    INTERFACE_COMPILE_DEFINITIONS "${HDF5_DEFINITIONS}")
endif()
