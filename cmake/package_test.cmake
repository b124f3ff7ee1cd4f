# ctest's package_consumer: install the build into BUILD_DIR/package-test/prefix, then build
# tests/package/consumer against it with find_package(symshape) and, by hand, with the flags
# pkg-config gives, and run both programs and the installed CLI; then make the Debian package,
# check its dependencies and files, and build the consumer against its unpacked contents.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DCXX=... -P cmake/package_test.cmake
set(work "${BUILD_DIR}/package-test")
set(prefix "${work}/prefix")
file(REMOVE_RECURSE "${work}")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

function(expect_consumer_output text)
  foreach(line IN ITEMS "output: float32[batch, 2, 3]" "guards:" "2 <= L['x'].size()[0] <= 64")
    string(FIND "${text}" "${line}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "the consumer printed:\n${text}\nwithout the line '${line}'")
    endif()
  endforeach()
endfunction()

run("cmake --install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(file IN ITEMS include/symshape/ir.h bin/symshape)
  if(NOT EXISTS "${prefix}/${file}")
    message(FATAL_ERROR "cmake --install did not install ${file}")
  endif()
endforeach()

# Every public header is installed (interp/mpi.h with its library, symshape_mpi).
file(GLOB_RECURSE source_headers RELATIVE "${SOURCE_DIR}/include" "${SOURCE_DIR}/include/symshape/*.h")
file(GLOB mpi_library "${prefix}/*/libsymshape_mpi.a")
foreach(header IN LISTS source_headers)
  if(header STREQUAL "symshape/interp/mpi.h" AND NOT mpi_library)
    continue()
  endif()
  if(NOT EXISTS "${prefix}/include/${header}")
    message(FATAL_ERROR "cmake --install did not install the public header ${header}")
  endif()
endforeach()

# The consumer must get C++20 from the package, not from its own CMakeLists.txt.
file(READ "${SOURCE_DIR}/tests/package/consumer/CMakeLists.txt" consumer_cmake)
if(consumer_cmake MATCHES "CMAKE_CXX_STANDARD|cxx_std_")
  message(FATAL_ERROR "tests/package/consumer/CMakeLists.txt sets a C++ standard itself")
endif()

# find_package
run("configuring the consumer" "${CMAKE_COMMAND}" -S "${SOURCE_DIR}/tests/package/consumer"
    -B "${work}/consumer" "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX}"
    -DCMAKE_BUILD_TYPE=Release)
run("building the consumer" "${CMAKE_COMMAND}" --build "${work}/consumer")
run("running the consumer" "${work}/consumer/consumer")
expect_consumer_output("${last_output}")

# pkg-config
file(GLOB_RECURSE pc_files "${prefix}/*/symshape.pc")
if(NOT pc_files)
  message(FATAL_ERROR "no symshape.pc under ${prefix}")
endif()
list(GET pc_files 0 pc_file)
get_filename_component(pc_dir "${pc_file}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
run("pkg-config" pkg-config --cflags --libs symshape)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run("compiling with pkg-config's flags" "${CXX}" "${SOURCE_DIR}/tests/package/consumer/main.cc"
    -o "${work}/consumer_pc" ${flags})
run("running the pkg-config consumer" "${work}/consumer_pc")
expect_consumer_output("${last_output}")

run("the installed CLI" "${prefix}/bin/symshape" --version)

# The installed Python package, from the prefix with PYTHONPATH (when the module was built). The
# program's lines are separated by newlines: run() would split its arguments at semicolons.
if(PYTHON)
  set(ENV{PYTHONPATH} "${prefix}/${PYTHON_DIR}")
  run("importing the installed symshape" "${PYTHON}" -c
      "import symshape\nassert symshape.__file__.startswith('${prefix}'), symshape.__file__\nprint(symshape.check(symshape.load_graph('${SOURCE_DIR}/examples/mlp.json'))['relu'])")
  string(FIND "${last_output}" "float32[batch, 64]" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the installed Python package printed:\n${last_output}")
  endif()
  unset(ENV{PYTHONPATH})
endif()

# The Debian package: its files and its dependencies on Debian's packages.
if(EXISTS "${BUILD_DIR}/CPackConfig.cmake")
  find_program(dpkg_deb dpkg-deb)
  if(dpkg_deb)
    run("cpack -G DEB" cpack -G DEB --config "${BUILD_DIR}/CPackConfig.cmake" -B "${work}/deb")
    file(GLOB debs "${work}/deb/symshape_*.deb")
    if(NOT debs)
      message(FATAL_ERROR "cpack made no symshape_*.deb in ${work}/deb")
    endif()
    list(GET debs 0 deb)
    run("dpkg-deb -f" "${dpkg_deb}" -f "${deb}" Depends)
    set(deps libginac-dev libcln-dev nlohmann-json3-dev)
    if(PYTHON)
      list(APPEND deps python3)
    endif()
    foreach(dep IN LISTS deps)
      string(FIND "${last_output}" "${dep}" at)
      if(at EQUAL -1)
        message(FATAL_ERROR "${deb} does not depend on ${dep}: ${last_output}")
      endif()
    endforeach()
    set(python_files "")
    if(PYTHON)
      set(python_files ./usr/${PYTHON_DIR}/symshape/__init__.py ./usr/${PYTHON_DIR}/symshape/fx.py
                       ./usr/${PYTHON_DIR}/symshape/__init__.pyi ./usr/${PYTHON_DIR}/symshape/_core)
    endif()
    run("dpkg-deb -c" "${dpkg_deb}" -c "${deb}")
    foreach(file IN ITEMS ./usr/bin/symshape ./usr/include/symshape/ir.h
                          ./usr/lib/cmake/symshape/symshapeConfig.cmake ./usr/lib/libsymshape.a
                          ${python_files})
      string(FIND "${last_output}" "${file}" at)
      if(at EQUAL -1)
        message(FATAL_ERROR "${deb} has no ${file}:\n${last_output}")
      endif()
    endforeach()
    # What `apt-get install ./symshape_*.deb` puts under /usr, unpacked into a scratch root (the
    # package's CMake files find their prefix from their own location): the consumer builds
    # against it with find_package and runs.
    run("dpkg-deb -x" "${dpkg_deb}" -x "${deb}" "${work}/deb-root")
    run("configuring the consumer against the .deb" "${CMAKE_COMMAND}"
        -S "${SOURCE_DIR}/tests/package/consumer" -B "${work}/consumer-deb"
        "-DCMAKE_PREFIX_PATH=${work}/deb-root/usr" "-DCMAKE_CXX_COMPILER=${CXX}"
        -DCMAKE_BUILD_TYPE=Release)
    run("building the consumer against the .deb" "${CMAKE_COMMAND}" --build "${work}/consumer-deb")
    run("running the .deb's consumer" "${work}/consumer-deb/consumer")
    expect_consumer_output("${last_output}")
  endif()
endif()
message(STATUS "package test passed: ${prefix}")
