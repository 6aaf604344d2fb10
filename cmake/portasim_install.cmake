include(CMakePackageConfigHelpers)
set(PORTASIM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/portasim)

install(DIRECTORY include/portasim DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/include/portasim/config.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/portasim)
install(EXPORT portasimTargets NAMESPACE portasim:: DESTINATION ${PORTASIM_INSTALL_CMAKEDIR})

configure_package_config_file(cmake/portasimConfig.cmake.in
  ${PROJECT_BINARY_DIR}/portasimConfig.cmake INSTALL_DESTINATION ${PORTASIM_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/portasimConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/portasimConfig.cmake
              ${PROJECT_BINARY_DIR}/portasimConfigVersion.cmake
              cmake/portasim_hdf5_target.cmake
              cmake/portasim_lapacke_target.cmake
        DESTINATION ${PORTASIM_INSTALL_CMAKEDIR})
