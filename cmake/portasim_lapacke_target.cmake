# LAPACKE (the C interface of LAPACK), for the SVD on host backends. No CMake module finds
# it, so look for the header and the library and wrap them in an imported target that both
# the build tree and portasimConfig.cmake define the same way.
if(NOT TARGET portasim_deps::lapacke)
  find_path(PORTASIM_LAPACKE_INCLUDE_DIR lapacke.h PATH_SUFFIXES lapacke openblas)
  find_library(PORTASIM_LAPACKE_LIBRARY NAMES lapacke openblas)
  if(PORTASIM_LAPACKE_INCLUDE_DIR AND PORTASIM_LAPACKE_LIBRARY)
    add_library(portasim_deps::lapacke INTERFACE IMPORTED)
    set_target_properties(portasim_deps::lapacke PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${PORTASIM_LAPACKE_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "${PORTASIM_LAPACKE_LIBRARY}")
  endif()
endif()
