include(CMakePackageConfigHelpers)
set(PORTASIM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/portasim)

install(DIRECTORY include/portasim DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/include/portasim/config.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/portasim)
install(EXPORT portasimTargets NAMESPACE portasim:: DESTINATION ${PORTASIM_INSTALL_CMAKEDIR})

# Kokkos backends the library was compiled for, spelt as in Kokkos_DEVICES: the package
# config refuses a Kokkos without one of them.
set(PORTASIM_KOKKOS_DEVICES)
foreach(_backend IN ITEMS SERIAL OPENMP CUDA)
  if(PORTASIM_HAS_${_backend})
    list(APPEND PORTASIM_KOKKOS_DEVICES ${_backend})
  endif()
endforeach()
# A target that links a further package PUBLIC-ly (e.g. CUDA::cusolver, LAPACKE) registers the
# find_package arguments from any directory, and consumers find it too:
#   set_property(GLOBAL APPEND PROPERTY PORTASIM_CONFIG_DEPENDENCIES "CUDAToolkit")
get_property(_config_dependencies GLOBAL PROPERTY PORTASIM_CONFIG_DEPENDENCIES)
set(PORTASIM_CONFIG_EXTRA_DEPENDENCIES "")
foreach(_dependency IN LISTS _config_dependencies)
  string(APPEND PORTASIM_CONFIG_EXTRA_DEPENDENCIES "find_dependency(${_dependency})\n")
endforeach()

configure_package_config_file(cmake/portasimConfig.cmake.in
  ${PROJECT_BINARY_DIR}/portasimConfig.cmake INSTALL_DESTINATION ${PORTASIM_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/portasimConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/portasimConfig.cmake
              ${PROJECT_BINARY_DIR}/portasimConfigVersion.cmake
              cmake/portasim_hdf5_target.cmake
              cmake/portasim_lapacke_target.cmake
        DESTINATION ${PORTASIM_INSTALL_CMAKEDIR})
