# DeepMind Control Suite family (dm_control 1.0.50's suite tasks): the module envfleet._dm_control;
# included from CMakeLists.txt after mujoco.cmake.
#
# It runs on the same engine as the MuJoCo family: libmujoco.so.4.0.0 from the mujoco-core
# wheel, found by cpp/families/mujoco/mujoco.cmake as the imported target envfleet_mujoco
# (linked by its full file name; the library's SONAME is what the module records as NEEDED).
# The task models are read at run time from the installed dm_control package (the Python
# registration passes their folder as the `assets_dir` option): nothing is needed at build time
# beyond MuJoCo.
if(NOT TARGET envfleet_mujoco)
  # mujoco.cmake has already said why MuJoCo is missing; the suite's task ids then name the
  # extra to install.
  message(WARNING "envfleet: building WITHOUT the dm_control family: it needs MuJoCo "
                  "(pip install mujoco-core==4.0.0)")
  return()
endif()

envfleet_add_module(_dm_control cpp/families/dm_control/module.cc)
install(TARGETS _dm_control LIBRARY DESTINATION envfleet)
target_link_libraries(_dm_control PRIVATE envfleet_mujoco)
# dlopen/dlsym: rendering loads libEGL or libOSMesa at run time (cpp/common/mujoco/gl_context.h).
target_link_libraries(_dm_control PRIVATE ${CMAKE_DL_LIBS})

# As for _mujoco: the installed module finds libmujoco in site-packages/mujoco/ through this
# relative RPATH only; the build-tree copy also gets the folder mujoco.cmake found.
set_target_properties(_dm_control PROPERTIES
  INSTALL_RPATH "$ORIGIN/../mujoco"
  BUILD_RPATH "${ENVFLEET_MUJOCO_DIR}")
