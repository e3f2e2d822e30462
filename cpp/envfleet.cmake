# What every envfleet C++ build shares, included by CMakeLists.txt (the modules) and by
# tests/cpp/CMakeLists.txt (the C++ tests and the test-only module), so that the tests compile
# exactly what ships:
#   envfleet_core                  the header-only core (cpp/core, cpp/common) as an interface
#                                  target: include path, threads, the arithmetic flags
#   envfleet_add_module(<name> <sources>...)
#                                  an extension module over the core and the binding template
#                                  (cpp/bind/env_module.h); the caller decides where it installs
set(CMAKE_CXX_STANDARD 20)  # std::counting_semaphore; the hot path uses only atomics and these
set(CMAKE_CXX_STANDARD_REQUIRED ON)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()

# ENVFLEET_SANITIZE: sanitizers to build with, e.g. "address,undefined" or "thread" (a CMake list
# works too); empty, as for every shipped build, by default. .ci/sanitizers.sh uses it for the
# modules and the C++ tests. It applies to every target defined after this point, the engines
# compiled from source and nanobind included, so a report shows the whole stack. UBSan does not
# recover (-fno-sanitize-recover): its first report ends the process with an error, as ASan's
# and TSan's (halt_on_error=1) do. The sanitizer runtime must come first in the process: a
# Python that imports such a module needs LD_PRELOAD=$(g++ -print-file-name=libasan.so) (or
# libtsan.so). A sanitized build is for checking, not speed: -O1 (after the build type's flags,
# so it wins) compiles much faster than -O3 and is what the sanitizers' manuals advise; -g1
# gives reports file:line.
set(ENVFLEET_SANITIZE "" CACHE STRING "Sanitizers for every target, e.g. address,undefined or thread")
if(ENVFLEET_SANITIZE)
  string(REPLACE ";" "," _envfleet_sanitizers "${ENVFLEET_SANITIZE}")
  add_compile_options(-fsanitize=${_envfleet_sanitizers} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer -O1 -g1)
  add_link_options(-fsanitize=${_envfleet_sanitizers})
  message(STATUS "envfleet: sanitized build (-fsanitize=${_envfleet_sanitizers})")
endif()

include("${CMAKE_CURRENT_LIST_DIR}/manylinux/manylinux.cmake")  # binary wheels only

find_package(Python 3.11 REQUIRED COMPONENTS Interpreter Development.Module)
find_package(Threads REQUIRED)

# nanobind's CMake package lives inside the pip-installed nanobind.
execute_process(
  COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
  OUTPUT_STRIP_TRAILING_WHITESPACE OUTPUT_VARIABLE nanobind_ROOT)
find_package(nanobind CONFIG REQUIRED)

# NumPy's C API: arrays are created directly over our output blocks (no copy, no DLPack detour).
execute_process(
  COMMAND "${Python_EXECUTABLE}" -c "import numpy; print(numpy.get_include())"
  OUTPUT_STRIP_TRAILING_WHITESPACE OUTPUT_VARIABLE NUMPY_INCLUDE_DIR)

# No -march=native: results must be bit-identical to the references on any x86-64 machine,
# and FMA contraction would change floating-point results (-ffp-contract=off). -fno-plt calls
# libm (CartPole's sincos, MuJoCo) through the GOT, not a PLT stub: one jump less per call.
add_library(envfleet_core INTERFACE)
target_include_directories(envfleet_core INTERFACE "${CMAKE_CURRENT_LIST_DIR}")
target_compile_options(envfleet_core INTERFACE -ffp-contract=off -fno-plt -Wall -Wextra)
target_link_libraries(envfleet_core INTERFACE Threads::Threads)

# NOMINSIZE: nanobind otherwise compiles a module's sources with -Os, and ours hold the envs
# and the pool's hot loops, not only bindings (-Os left CarRacing's pixel loops as calls and
# byte-wise copies). -O3 keeps every result: no fast-math, and -ffp-contract=off.
# Profiles (perf report) and sanitizer reports need the modules' symbols, which nanobind strips
# from Release modules.
option(ENVFLEET_KEEP_SYMBOLS "Keep the extension modules' symbols (for profiling)" OFF)
function(envfleet_add_module name)
  set(_keep_symbols "")
  if(ENVFLEET_SANITIZE OR ENVFLEET_KEEP_SYMBOLS)
    set(_keep_symbols NOSTRIP)
  endif()
  nanobind_add_module(${name} NB_STATIC NOMINSIZE ${_keep_symbols} ${ARGN}
                      ${ENVFLEET_GLIBC_COMPAT_SOURCES})
  target_include_directories(${name} PRIVATE ${NUMPY_INCLUDE_DIR})
  target_link_libraries(${name} PRIVATE envfleet_core)
endfunction()

# envfleet_fetch_pypi_file(<project> <version> <sha256> <url> <file> <local_copy> <out_ok>)
#   Makes <file> (a path in the build dir) hold <project>==<version>'s sdist (a .tar.gz <file>)
#   or wheel (a .whl <file>) with <sha256>, unless it already does: from <local_copy> if given
#   (a user's -DENVFLEET_<F>_SDIST=<path>), else from <url> (PyPI's immutable file URL), else
#   through `pip download`, which honours the machine's index configuration (mirrors, proxies;
#   nothing is built or installed). Sets <out_ok> to TRUE when the file is there, else FALSE
#   with <out_ok>_WHY saying what was tried. Used by every family whose engine comes from PyPI.
function(envfleet_fetch_pypi_file project version sha256 url path local_copy out_ok)
  set(_local "${local_copy}")
  get_filename_component(_dir "${path}" DIRECTORY)
  get_filename_component(_file "${path}" NAME)
  file(MAKE_DIRECTORY "${_dir}")
  if(_file MATCHES "\\.whl$")
    # The wheel's own tags, whatever Python runs the build: the file is unpacked, not installed.
    string(REGEX MATCH "-(cp[0-9]+)-[^-]+-([^-]+)\\.whl$" _tags "${_file}")
    string(REPLACE "." ";" _platforms "${CMAKE_MATCH_2}")
    list(GET _platforms -1 _platform)
    string(REGEX REPLACE "^cp" "" _python "${CMAKE_MATCH_1}")
    set(_pip_kind --only-binary :all: --python-version ${_python} --platform ${_platform})
    set(_kind wheel)
  else()
    set(_pip_kind --no-binary "${project}" --no-build-isolation)
    set(_kind sdist)
  endif()
  set(_tries "")
  foreach(_source IN ITEMS present local url pip)
    if(_source STREQUAL "local" AND _local)
      file(COPY_FILE "${_local}" "${path}")
      list(APPEND _tries "the local copy ${_local}")
    elseif(_source STREQUAL "url" AND url)
      message(STATUS "envfleet: downloading the ${project} ${version} ${_kind}")
      file(DOWNLOAD "${url}" "${path}" STATUS _status TLS_VERIFY ON)
      list(APPEND _tries "${url} (${_status})")
    elseif(_source STREQUAL "pip")
      # The build's Python first; under pip's build isolation it may have no pip, so then the
      # pip on PATH (the user's environment's).
      message(STATUS "envfleet: fetching the ${project} ${version} ${_kind} with pip download")
      execute_process(
        COMMAND "${Python_EXECUTABLE}" -m pip download --no-deps ${_pip_kind}
                "${project}==${version}" -d "${_dir}/pip"
        RESULT_VARIABLE _pip_result OUTPUT_QUIET ERROR_VARIABLE _pip_err)
      find_program(_envfleet_path_pip NAMES pip3 pip)
      if(NOT EXISTS "${_dir}/pip/${_file}" AND _envfleet_path_pip)
        execute_process(
          COMMAND "${_envfleet_path_pip}" download --no-deps ${_pip_kind}
                  "${project}==${version}" -d "${_dir}/pip"
          RESULT_VARIABLE _pip_result OUTPUT_QUIET ERROR_VARIABLE _pip_err2)
        string(APPEND _pip_err " / ${_envfleet_path_pip}: ${_pip_err2}")
      endif()
      if(EXISTS "${_dir}/pip/${_file}")
        file(COPY_FILE "${_dir}/pip/${_file}" "${path}")
      endif()
      list(APPEND _tries "pip download (${_pip_err})")
    elseif(NOT _source STREQUAL "present")
      continue()
    endif()
    if(EXISTS "${path}")
      file(SHA256 "${path}" _hash)
      if(_hash STREQUAL "${sha256}")
        set(${out_ok} TRUE PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
  set(${out_ok} FALSE PARENT_SCOPE)
  list(JOIN _tries "; " _why)
  set(${out_ok}_WHY "could not obtain ${_file} (sha256 ${sha256}); tried ${_why}" PARENT_SCOPE)
endfunction()
