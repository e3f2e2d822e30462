# MuJoCo env family (Gymnasium's MuJoCo v4/v5 tasks): the module envfleet._mujoco; included from
# CMakeLists.txt.
#
# libmujoco comes from the mujoco-core wheel (a build requirement in pyproject.toml; at run time
# the `mujoco` package depends on the same mujoco-core). The wheel installs
#   site-packages/mujoco/libmujoco.so.4.0.0     (no unversioned libmujoco.so symlink)
#   site-packages/mujoco/include/mujoco/*.h
# We locate that folder with find_spec, which does not import `mujoco` (importing it would load
# its Python bindings, OpenGL helpers and so on, which a build does not need).
execute_process(
  COMMAND "${Python_EXECUTABLE}" -c "
import importlib.util
spec = importlib.util.find_spec('mujoco')
print(spec.submodule_search_locations[0] if spec else '')"
  OUTPUT_VARIABLE ENVFLEET_MUJOCO_DIR
  OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE _envfleet_mujoco_rc)

set(ENVFLEET_MUJOCO_LIBRARY "${ENVFLEET_MUJOCO_DIR}/libmujoco.so.4.0.0")
if(NOT _envfleet_mujoco_rc EQUAL 0 OR NOT ENVFLEET_MUJOCO_DIR
   OR NOT EXISTS "${ENVFLEET_MUJOCO_LIBRARY}"
   OR NOT EXISTS "${ENVFLEET_MUJOCO_DIR}/include/mujoco/mujoco.h")
  # A missing engine leaves the other families buildable: the MuJoCo task ids then name the
  # extra to install. (pip builds always have it: mujoco-core is a build requirement.)
  message(WARNING
    "envfleet: building WITHOUT the MuJoCo family: it needs the mujoco-core==4.0.0 wheel "
    "(libmujoco.so.4.0.0 and its headers) in the Python environment of ${Python_EXECUTABLE}, "
    "found '${ENVFLEET_MUJOCO_DIR}'. Install it with: pip install mujoco-core==4.0.0")
  return()
endif()
message(STATUS "envfleet: MuJoCo from ${ENVFLEET_MUJOCO_DIR}")

# Linked by its full file name: -lmujoco cannot work without the unversioned symlink. The
# library's SONAME is libmujoco.so.4.0.0, so that is what the module records as NEEDED.
add_library(envfleet_mujoco SHARED IMPORTED)
set_target_properties(envfleet_mujoco PROPERTIES
  IMPORTED_LOCATION "${ENVFLEET_MUJOCO_LIBRARY}"
  IMPORTED_SONAME "libmujoco.so.4.0.0"
  INTERFACE_INCLUDE_DIRECTORIES "${ENVFLEET_MUJOCO_DIR}/include")

envfleet_add_module(_mujoco cpp/families/mujoco/module.cc)
install(TARGETS _mujoco LIBRARY DESTINATION envfleet)
target_link_libraries(_mujoco PRIVATE envfleet_mujoco)
# dlopen/dlsym: rendering loads libEGL or libOSMesa at run time (cpp/common/mujoco/gl_context.h), so neither is
# linked and the module builds and imports without them. (In libc itself since glibc 2.34.)
target_link_libraries(_mujoco PRIVATE ${CMAKE_DL_LIBS})

# Where the dynamic loader finds libmujoco at run time, without `import mujoco` first: _mujoco
# sits in site-packages/envfleet/ and libmujoco in site-packages/mujoco/. Only this relative
# path is recorded in the installed module (no build-machine path); the build-tree copy also
# gets the folder found above, for running from the build tree.
set_target_properties(_mujoco PROPERTIES
  INSTALL_RPATH "$ORIGIN/../mujoco"
  BUILD_RPATH "${ENVFLEET_MUJOCO_DIR}")
