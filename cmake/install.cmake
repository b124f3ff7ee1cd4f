# Installation and packaging: `cmake --install build --prefix P` installs the library, the public
# headers, the CLI, a CMake package (find_package(symshape CONFIG) gives symshape::symshape, which
# brings GiNaC, CLN and nlohmann-json with it) and a pkg-config file; `cpack -G DEB` (run in the
# build directory) makes a Debian package of the same files.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(SYMSHAPE_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/symshape")

# The library's public include directory is the source tree's include/ while building, the
# prefix's include/ once installed.
if(TARGET symshape)
  get_target_property(symshape_kind symshape TYPE)
  if(NOT symshape_kind STREQUAL "INTERFACE_LIBRARY")
    set_target_properties(symshape PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
      "$<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>;$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
    install(TARGETS symshape EXPORT symshapeTargets
      ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
      LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
    if(TARGET symshape_onnx)
      # symshape::symshape_onnx reads and writes ONNX models (onnx.h); built without libonnx it
      # says so when called.
      install(TARGETS symshape_onnx EXPORT symshapeTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
    endif()
    install(EXPORT symshapeTargets NAMESPACE symshape:: DESTINATION "${SYMSHAPE_CMAKE_DIR}")
    if(TARGET symshape_mpi)
      # symshape::symshape_mpi (interp/mpi.h) in its own export set: the package config loads it
      # only when the consumer's CMake finds MPI, so consumers without MPI are not asked for it.
      install(TARGETS symshape_mpi EXPORT symshapeMpiTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
      install(EXPORT symshapeMpiTargets NAMESPACE symshape:: DESTINATION "${SYMSHAPE_CMAKE_DIR}")
    endif()
  endif()
endif()
# Every public header, except interp/mpi.h when its library (symshape_mpi) was not built.
if(TARGET symshape_mpi)
  set(symshape_header_exclude "")
else()
  set(symshape_header_exclude PATTERN "interp/mpi.h" EXCLUDE)
endif()
install(DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/include/symshape"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  FILES_MATCHING PATTERN "*.h" ${symshape_header_exclude})

# The programs: symshape, and symshape-mpirun when it was built.
foreach(program IN ITEMS symshape_cli symshape_mpirun)
  if(TARGET ${program})
    install(TARGETS ${program} RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
  endif()
endforeach()

configure_package_config_file(
  "${CMAKE_CURRENT_SOURCE_DIR}/cmake/symshapeConfig.cmake.in"
  "${CMAKE_CURRENT_BINARY_DIR}/symshapeConfig.cmake"
  INSTALL_DESTINATION "${SYMSHAPE_CMAKE_DIR}")
write_basic_package_version_file(
  "${CMAKE_CURRENT_BINARY_DIR}/symshapeConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${CMAKE_CURRENT_BINARY_DIR}/symshapeConfig.cmake"
  "${CMAKE_CURRENT_BINARY_DIR}/symshapeConfigVersion.cmake"
  DESTINATION "${SYMSHAPE_CMAKE_DIR}")

# The .pc file finds the prefix from its own place, so an install moved with --prefix works.
file(RELATIVE_PATH SYMSHAPE_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file("${CMAKE_CURRENT_SOURCE_DIR}/cmake/symshape.pc.in"
  "${CMAKE_CURRENT_BINARY_DIR}/symshape.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/symshape.pc"
  DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# A Debian package of the above. The library is static, so the package depends on the -dev
# packages a consumer compiles against; the programs' shared-library dependencies come from
# dpkg-shlibdeps.
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "symshape")
set(CPACK_PACKAGE_VENDOR "the symshape developers")
set(CPACK_PACKAGE_CONTACT "symshape developers <symshape@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libginac-dev, libcln-dev, nlohmann-json3-dev, pkg-config")
if(SYMSHAPE_WITH_ONNX)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${CPACK_DEBIAN_PACKAGE_DEPENDS}, libonnx-dev, libprotobuf-dev")
endif()
if(JEMALLOC_FOUND)
  # The CLI's allocator (dpkg-shlibdeps finds it too, when it is installed).
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${CPACK_DEBIAN_PACKAGE_DEPENDS}, libjemalloc2")
endif()
if(SYMSHAPE_PYTHON)
  # The extension is built for one CPython minor version (its ABI tag is in the file name).
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "${CPACK_DEBIAN_PACKAGE_DEPENDS}, python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}~), python3 (<< ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}.99~)")
  # symshape.fx needs PyTorch; the rest of the package does not.
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-torch, python3-torchvision")
endif()
find_program(SYMSHAPE_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(SYMSHAPE_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
endif()
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
include(CPack)

# A test that installs into the build tree and builds tests/package/consumer against the
# installed package with find_package and with pkg-config. Not under the sanitizers: it checks
# the package, not the code, and the sanitizer flags are not part of it.
if(NOT SYMSHAPE_SANITIZE AND TARGET symshape_cli)
  add_test(NAME package_consumer
    COMMAND "${CMAKE_COMMAND}"
      -DBUILD_DIR=${CMAKE_BINARY_DIR}
      -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}
      -DCXX=${CMAKE_CXX_COMPILER}
      "-DPYTHON=$<$<BOOL:${SYMSHAPE_PYTHON}>:${Python3_EXECUTABLE}>"
      "-DPYTHON_DIR=${SYMSHAPE_PYTHON_INSTALL_DIR}"
      -P "${CMAKE_CURRENT_SOURCE_DIR}/cmake/package_test.cmake")
  set_tests_properties(package_consumer PROPERTIES LABELS package TIMEOUT 600)
endif()
