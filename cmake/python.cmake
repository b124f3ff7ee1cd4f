# The Python package `symshape`: pybind11 bindings of the library (the extension symshape._core)
# and the pure-Python layer in python/symshape/ (SymInt arithmetic helpers, symshape.fx). Built
# when pybind11 and Python's headers are found; importable from the build tree with
# PYTHONPATH=build/python and installed under SYMSHAPE_PYTHON_INSTALL_DIR.
#
# The interpreter is Debian's /usr/bin/python3 when it exists (the one with Debian's
# python3-torch), not whatever `python3` comes first on PATH (a pyenv or a venv without it).
# Give -DPython3_EXECUTABLE=... to choose another.
option(SYMSHAPE_PYTHON "Build the Python module when pybind11 and Python's headers are found" ON)

if(SYMSHAPE_PYTHON AND SYMSHAPE_SANITIZE)
  # A module built with ASan only loads into an interpreter started with libasan preloaded,
  # which is fragile; the sanitizer build tests the C++ code, the Release build the bindings.
  message(STATUS "symshape: the Python module is not built under SYMSHAPE_SANITIZE "
                 "(tested in the non-sanitizer build)")
  set(SYMSHAPE_PYTHON OFF)
endif()

if(SYMSHAPE_PYTHON)
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
  if(Python3_FOUND)
    find_package(pybind11 CONFIG QUIET)
  endif()
  if(NOT Python3_FOUND OR NOT pybind11_FOUND)
    message(STATUS "symshape: pybind11 or Python's headers not found (pybind11-dev, "
                   "python3-dev); the Python module is not built")
    set(SYMSHAPE_PYTHON OFF)
  endif()
endif()

if(SYMSHAPE_PYTHON)
  message(STATUS "symshape: building the Python module for ${Python3_EXECUTABLE} "
                 "(Python ${Python3_VERSION}, pybind11 ${pybind11_VERSION})")
  # The static library is linked into a shared object.
  set_property(TARGET symshape PROPERTY POSITION_INDEPENDENT_CODE ON)
  set_property(TARGET symshape_onnx PROPERTY POSITION_INDEPENDENT_CODE ON)

  set(SYMSHAPE_PYTHON_DIR "${CMAKE_BINARY_DIR}/python")
  file(GLOB SYMSHAPE_PYTHON_BINDING_SOURCES CONFIGURE_DEPENDS
    "${CMAKE_CURRENT_SOURCE_DIR}/python/src/*.cc")
  list(SORT SYMSHAPE_PYTHON_BINDING_SOURCES)
  pybind11_add_module(symshape_python MODULE NO_EXTRAS ${SYMSHAPE_PYTHON_BINDING_SOURCES})
  set_target_properties(symshape_python PROPERTIES
    OUTPUT_NAME _core
    LIBRARY_OUTPUT_DIRECTORY "${SYMSHAPE_PYTHON_DIR}/symshape")
  target_include_directories(symshape_python PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(symshape_python PRIVATE symshape symshape_onnx)
  symshape_target_flags(symshape_python)

  # The pure-Python files next to the extension, copied on every build (cheap), so that
  # build/python is the package as installed.
  file(GLOB SYMSHAPE_PYTHON_FILES CONFIGURE_DEPENDS
    "${CMAKE_CURRENT_SOURCE_DIR}/python/symshape/*.py"
    "${CMAKE_CURRENT_SOURCE_DIR}/python/symshape/*.pyi"
    "${CMAKE_CURRENT_SOURCE_DIR}/python/symshape/py.typed")
  add_custom_target(symshape_python_files ALL
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${SYMSHAPE_PYTHON_DIR}/symshape"
    COMMAND "${CMAKE_COMMAND}" -E copy_if_different ${SYMSHAPE_PYTHON_FILES}
            "${SYMSHAPE_PYTHON_DIR}/symshape/"
    COMMENT "Copying the symshape Python package to ${SYMSHAPE_PYTHON_DIR}"
    VERBATIM)
  add_dependencies(symshape_python symshape_python_files)

  set(SYMSHAPE_PYTHON_INSTALL_DIR "lib/python3/dist-packages" CACHE STRING
    "Where the symshape Python package is installed, relative to the prefix")
  install(TARGETS symshape_python LIBRARY DESTINATION "${SYMSHAPE_PYTHON_INSTALL_DIR}/symshape")
  install(FILES ${SYMSHAPE_PYTHON_FILES} DESTINATION "${SYMSHAPE_PYTHON_INSTALL_DIR}/symshape")

  # The Python tests (unittest, from the standard library), with the build tree's package;
  # test_docs also compiles the C++ programs of docs/library.md against the build's library.
  # Tests that need PyTorch skip when it cannot be imported, unless the environment variable CI
  # is set: in CI a missing torch is a failure.
  foreach(suite IN ITEMS api fx_models fx_out docs view first_hour layouts functionalize_torch)
    add_test(NAME python_${suite}
      COMMAND "${Python3_EXECUTABLE}" -m unittest -v test_${suite}
      WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/tests/python")
    set_tests_properties(python_${suite} PROPERTIES
      LABELS python TIMEOUT 300
      ENVIRONMENT "PYTHONPATH=${SYMSHAPE_PYTHON_DIR};PYTHONDONTWRITEBYTECODE=1;SYMSHAPE_SOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR};SYMSHAPE_CLI=$<TARGET_FILE:symshape_cli>;SYMSHAPE_CXX=${CMAKE_CXX_COMPILER};SYMSHAPE_LIB=$<TARGET_FILE:symshape>")
  endforeach()

  # PyTorch as the reference, node by node (tests/python/test_torch_reference.py): one ctest
  # test per model, each its own process, so that a crash names its model; the list is the
  # test's MODELS (test_every_model_has_a_ctest_test, in python_torchref, checks that).
  set(SYMSHAPE_TORCHREF_MODELS
    resnet18 resnet50 mobilenet_v2 mobilenet_v3_small efficientnet_b0 shufflenet_v2_x0_5
    densenet121 squeezenet1_1 googlenet regnet_y_400mf convnext_tiny swin_t vit_b_16 maxvit_t
    vgg11_bn lraspp_mobilenet_v3_large r3d_18 transformer_encoder gpt llama)
  set(SYMSHAPE_TORCHREF_ENV "PYTHONPATH=${SYMSHAPE_PYTHON_DIR};PYTHONDONTWRITEBYTECODE=1;SYMSHAPE_SOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR};SYMSHAPE_CLI=$<TARGET_FILE:symshape_cli>")
  add_test(NAME python_torchref
    COMMAND "${Python3_EXECUTABLE}" -m unittest -v
            test_torch_reference.TorchReferenceTest.test_every_model_has_a_ctest_test
    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/tests/python")
  set_tests_properties(python_torchref PROPERTIES
    LABELS python TIMEOUT 120 ENVIRONMENT "${SYMSHAPE_TORCHREF_ENV}")
  # One ctest test per model of MODELS, each its own process (python_PREFIX_MODEL, running
  # TESTCASE.test_MODEL of tests/python), so that a crash names its model.
  function(symshape_add_model_tests prefix testcase label)
    foreach(model IN LISTS ARGN)
      add_test(NAME python_${prefix}_${model}
        COMMAND "${Python3_EXECUTABLE}" -m unittest -v ${testcase}.test_${model}
        WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/tests/python")
      set_tests_properties(python_${prefix}_${model} PROPERTIES
        LABELS "python;${label}" TIMEOUT 300 ENVIRONMENT "${SYMSHAPE_TORCHREF_ENV}")
    endforeach()
  endfunction()
  symshape_add_model_tests(torchref test_torch_reference.TorchReferenceTest torchref
    ${SYMSHAPE_TORCHREF_MODELS})
  # MaxViT runs at 224x224 (its partition size needs it): the slowest by far.
  set_tests_properties(python_torchref_maxvit_t PROPERTIES TIMEOUT 600)

  # Traced models through the default, decompose, autocast and complex pipelines, run back in
  # PyTorch (tests/python/test_lowered_models.py): one ctest test per model, so that a crash
  # names its model; the list is the test's MODELS (test_every_model_has_a_ctest_test checks it).
  set(SYMSHAPE_LOWERED_MODELS
    resnet18 mobilenet_v2 efficientnet_b0 shufflenet_v2 swin_t transformer_encoder gpt
    llama_rope)
  add_test(NAME python_lowered
    COMMAND "${Python3_EXECUTABLE}" -m unittest -v
            test_lowered_models.LoweredModelsTest.test_every_model_has_a_ctest_test
    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/tests/python")
  set_tests_properties(python_lowered PROPERTIES
    LABELS python TIMEOUT 120 ENVIRONMENT "${SYMSHAPE_TORCHREF_ENV}")
  symshape_add_model_tests(lowered test_lowered_models.LoweredModelsTest lowered
    ${SYMSHAPE_LOWERED_MODELS})
  # decompose --verify-numerics on the same models, with their own parameters and inputs
  # (tests/python/test_torch_decompose.py): one ctest test per model likewise.
  symshape_add_model_tests(torchdecompose test_torch_decompose.TorchDecomposeTest torchref
    ${SYMSHAPE_TORCHREF_MODELS})
  set_tests_properties(python_torchdecompose_maxvit_t PROPERTIES TIMEOUT 600)
endif()

# The ONNX tests in tests/python: the CLI on ONNX's backend node tests and on models exported by
# torch.onnx. They need a Python with onnx (python3-onnx; the model tests also torch and
# torchvision), not the module, so they are registered whenever the CLI reads ONNX; not in the
# sanitizer build (tests/onnx/fuzz_test.cc runs the importer there). Without onnx they skip,
# unless CI is set.
if(TARGET symshape_cli AND ONNX_FOUND AND TARGET onnx_proto AND NOT SYMSHAPE_SANITIZE)
  if(DEFINED Python3_EXECUTABLE)
    set(SYMSHAPE_ONNX_PYTHON "${Python3_EXECUTABLE}")
  elseif(EXISTS /usr/bin/python3)
    set(SYMSHAPE_ONNX_PYTHON /usr/bin/python3)
  else()
    find_program(SYMSHAPE_ONNX_PYTHON python3)
  endif()
  if(SYMSHAPE_ONNX_PYTHON)
    foreach(suite IN ITEMS onnx_node onnx_models onnx_guessed_sizes)
      add_test(NAME python_${suite}
        COMMAND "${SYMSHAPE_ONNX_PYTHON}" -m unittest -v test_${suite}
        WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/tests/python")
      set_tests_properties(python_${suite} PROPERTIES
        LABELS "python;onnx" TIMEOUT 600
        ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1;SYMSHAPE_SOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR};SYMSHAPE_CLI=$<TARGET_FILE:symshape_cli>")
    endforeach()
  endif()
endif()

# Random view chains against PyTorch (tests/python/test_view_chains.py): the CLI's values of
# every view against PyTorch's. Needs a Python with torch, not the module; skips without torch
# unless CI is set. Not in the sanitizer build (the C++ layout tests run there).
if(TARGET symshape_cli AND NOT SYMSHAPE_SANITIZE)
  if(DEFINED Python3_EXECUTABLE)
    set(SYMSHAPE_CHAINS_PYTHON "${Python3_EXECUTABLE}")
  elseif(EXISTS /usr/bin/python3)
    set(SYMSHAPE_CHAINS_PYTHON /usr/bin/python3)
  else()
    find_program(SYMSHAPE_CHAINS_PYTHON python3)
  endif()
  if(SYMSHAPE_CHAINS_PYTHON)
    add_test(NAME python_view_chains
      COMMAND "${SYMSHAPE_CHAINS_PYTHON}" -m unittest -v test_view_chains
      WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/tests/python")
    set_tests_properties(python_view_chains PROPERTIES
      LABELS python TIMEOUT 300
      ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1;SYMSHAPE_CLI=$<TARGET_FILE:symshape_cli>")
  endif()
endif()
