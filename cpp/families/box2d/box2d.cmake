# Box2D env family (Gymnasium's LunarLander, BipedalWalker, CarRacing): the module
# envfleet._box2d; included from CMakeLists.txt.
#
# Box2D 2.3 comes from the box2d-py 2.3.8 sdist on PyPI, fetched at configure time into the build
# dir and never committed: it is the C++ tree that pybox2d (and so Gymnasium's reference, the
# `box2d` wheel) wraps. Its engine sources (Box2D/{Collision,Common,Dynamics}; not the SWIG
# wrapper) are compiled into a static, position-independent library with hidden visibility,
# linked into _box2d only, so it never clashes with the Box2D inside pybox2d's own extension
# when both are loaded in one process. Headers are included as <Box2D/Box2D.h>.
#
# Settings: pybox2d compiles the tree as it ships, with USE_EXCEPTIONS defined in b2Settings.h:
# a failed b2Assert sets a Python AssertionError and throws. We keep the checks (they are pure
# comparisons, so the arithmetic is the same either way) but throw a C++ exception that does
# not touch the Python C API: our steps run on worker threads without the GIL. That is the one
# edit made to the extracted b2Settings.h, and the header is marked as altered (zlib licence).
# No other define changes the engine: setup.py adds only -I. and -Wno-unused. Floating point
# is float32 throughout; our -ffp-contract=off and the x86-64 baseline ISA (no FMA) give the
# same instructions' results as the wheel's -O3 build, and sinf/cosf/atan2f come from the same
# libm at run time.
#
# Options:
#   ENVFLEET_BOX2D=OFF            skip the family (its task ids then name the extra to install)
#   ENVFLEET_BOX2D_SDIST=<path>   use a local box2d-py-2.3.8.tar.gz instead of downloading it
option(ENVFLEET_BOX2D "Build the Box2D env family (Box2D from the box2d-py 2.3.8 sdist)" ON)
set(ENVFLEET_BOX2D_SDIST "" CACHE FILEPATH "Local copy of box2d-py-2.3.8.tar.gz (skips the download)")
if(NOT ENVFLEET_BOX2D)
  message(STATUS "envfleet: Box2D family disabled (ENVFLEET_BOX2D=OFF)")
  return()
endif()

set(_box2d_version 2.3.8)
set(_box2d_sha256 bdacfbbc56079bb317548efe49d3d5a86646885cc27f4a2ee97e4b2960921ab7)
# PyPI's immutable file URL for the sdist.
set(_box2d_url "https://files.pythonhosted.org/packages/98/c2/ab05b5329dc4416b5ee5530f0625a79c394a3e3c10abe0812b9345256451/box2d-py-${_box2d_version}.tar.gz")

# ---- fetch and extract the sdist (once per build dir; re-configures reuse it) ----------------
set(_box2d_root "${CMAKE_BINARY_DIR}/_deps/box2d")
set(_box2d_tarball "${_box2d_root}/box2d-py-${_box2d_version}.tar.gz")
set(_box2d_src "${_box2d_root}/box2d-py-${_box2d_version}")
set(_box2d_stamp "${_box2d_root}/extracted-${_box2d_sha256}.stamp")

if(NOT EXISTS "${_box2d_stamp}")
  envfleet_fetch_pypi_file(box2d-py ${_box2d_version} ${_box2d_sha256} "${_box2d_url}"
                       "${_box2d_tarball}" "${ENVFLEET_BOX2D_SDIST}" _box2d_ok)
  if(NOT _box2d_ok)
    message(FATAL_ERROR
      "envfleet: ${_box2d_ok_WHY}.\n"
      "Download it yourself and pass -DENVFLEET_BOX2D_SDIST=<path> (pip: "
      "-Ccmake.define.ENVFLEET_BOX2D_SDIST=<path>), or build without Box2D: -DENVFLEET_BOX2D=OFF.")
  endif()
  file(REMOVE_RECURSE "${_box2d_src}")
  file(ARCHIVE_EXTRACT INPUT "${_box2d_tarball}" DESTINATION "${_box2d_root}"
       PATTERNS "box2d-py-${_box2d_version}/Box2D/*.h" "box2d-py-${_box2d_version}/Box2D/*.cpp"
                "box2d-py-${_box2d_version}/Box2D/Box2D-License.txt")

  # The one edit (see the top of this file): b2Assert throws a C++ exception instead of setting
  # a Python error, so the engine needs no Python headers and never calls Python's C API.
  set(_settings "${_box2d_src}/Box2D/Common/b2Settings.h")
  file(READ "${_settings}" _text)
  set(_python_assert [[#ifdef USE_EXCEPTIONS
#include <Python.h>
class b2AssertException {};
#define b2Assert(A) if (!(A)) { PyErr_SetString(PyExc_AssertionError, #A); throw b2AssertException(); }]])
  set(_cxx_assert [[#ifdef USE_EXCEPTIONS
// ALTERED by envfleet's box2d.cmake (not the original box2d-py 2.3.8 source): a failed check
// throws a C++ exception naming it instead of setting a Python AssertionError.
#include <stdexcept>
class b2AssertException : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};
#define b2Assert(A) if (!(A)) { throw b2AssertException("Box2D assertion failed: " #A); }]])
  string(FIND "${_text}" "${_python_assert}" _at)
  if(_at EQUAL -1)
    message(FATAL_ERROR "envfleet: unexpected b2Settings.h in ${_box2d_tarball}")
  endif()
  string(REPLACE "${_python_assert}" "${_cxx_assert}" _text "${_text}")
  file(WRITE "${_settings}" "${_text}")
  file(TOUCH "${_box2d_stamp}")
endif()

# ---- the Box2D library -----------------------------------------------------------------------
# The same source list as the sdist's setup.py (every .cpp of these directories), minus the
# SWIG wrapper.
set(_box2d_dir "${_box2d_src}/Box2D")
file(GLOB _box2d_sources CONFIGURE_DEPENDS
  "${_box2d_dir}/Collision/*.cpp" "${_box2d_dir}/Collision/Shapes/*.cpp"
  "${_box2d_dir}/Common/*.cpp"
  "${_box2d_dir}/Dynamics/*.cpp" "${_box2d_dir}/Dynamics/Contacts/*.cpp"
  "${_box2d_dir}/Dynamics/Joints/*.cpp")

add_library(envfleet_box2d_engine STATIC ${_box2d_sources})
target_include_directories(envfleet_box2d_engine SYSTEM PUBLIC "${_box2d_src}")
# The same arithmetic flag as our own code: without it GCC may fuse a*b+c on machines and
# flags that have FMA, which the reference build never does.
target_compile_options(envfleet_box2d_engine PRIVATE -ffp-contract=off -w)
set_target_properties(envfleet_box2d_engine PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)

envfleet_add_module(_box2d cpp/families/box2d/module.cc)
install(TARGETS _box2d LIBRARY DESTINATION envfleet)
target_link_libraries(_box2d PRIVATE envfleet_box2d_engine)
# Box2D's zlib licence asks that its notice stay with the software.
install(FILES "${_box2d_dir}/Box2D-License.txt"
        DESTINATION envfleet/licenses RENAME Box2D-zlib-LICENSE.txt)
message(STATUS "envfleet: Box2D family enabled (Box2D 2.3 from ${_box2d_tarball})")
