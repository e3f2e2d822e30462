# Gymnasium-Robotics family (gymnasium-robotics 1.4.2's Fetch, Shadow Hand, Adroit, PointMaze and
# Franka Kitchen envs): the module envfleet._robotics; included from CMakeLists.txt after
# mujoco.cmake.
#
# It runs on the MuJoCo family's engine (libmujoco.so.4.0.0 from the mujoco-core wheel, the
# imported target envfleet_mujoco that mujoco.cmake finds) but is a module of its own: the
# family is large (five robots, 157 ids), its models are read from another package (the
# installed gymnasium-robotics, passed as the `assets_dir` option at run time: nothing is
# needed at build time beyond MuJoCo), and `make("Ant-v5")` should not load it. Each robot's
# env types are compiled in their own file (<robot>.cc), so a change to one robot rebuilds one
# file.
if(NOT TARGET envfleet_mujoco)
  message(WARNING "envfleet: building WITHOUT the Gymnasium-Robotics family: it needs MuJoCo "
                  "(pip install mujoco-core==4.0.0)")
  return()
endif()

envfleet_add_module(_robotics cpp/families/robotics/module.cc
  cpp/families/robotics/fetch.cc
  cpp/families/robotics/hand.cc
  cpp/families/robotics/maze.cc
  cpp/families/robotics/adroit.cc
  cpp/families/robotics/kitchen.cc)
install(TARGETS _robotics LIBRARY DESTINATION envfleet)
target_link_libraries(_robotics PRIVATE envfleet_mujoco)
# dlopen/dlsym: rendering loads libEGL or libOSMesa at run time (cpp/common/mujoco/gl_context.h).
target_link_libraries(_robotics PRIVATE ${CMAKE_DL_LIBS})

# As for _mujoco: the installed module finds libmujoco in site-packages/mujoco/ through this
# relative RPATH only; the build-tree copy also gets the folder mujoco.cmake found.
set_target_properties(_robotics PROPERTIES
  INSTALL_RPATH "$ORIGIN/../mujoco"
  BUILD_RPATH "${ENVFLEET_MUJOCO_DIR}")
