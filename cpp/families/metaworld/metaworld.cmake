# Meta-World family (metaworld 3.1.1's 50 v3 Sawyer tasks): the module envfleet._metaworld;
# included from CMakeLists.txt after mujoco.cmake and robotics.cmake.
#
# It runs on the MuJoCo family's engine (libmujoco.so.4.0.0 from the mujoco-core wheel) and
# shares the Gymnasium-Robotics family's MuJoCo env base (cpp/families/robotics/robot_env.h:
# model cache, rendering, pixel and stacking wrappers). Its models are Meta-World's own, read
# at run time from the installed metaworld package (the `assets_dir` option): nothing is
# needed at build time beyond MuJoCo.
if(NOT TARGET envfleet_mujoco)
  message(WARNING "envfleet: building WITHOUT the Meta-World family: it needs MuJoCo "
                  "(pip install mujoco-core==4.0.0)")
  return()
endif()

envfleet_add_module(_metaworld cpp/families/metaworld/module.cc
  cpp/families/metaworld/tasks_a.cc
  cpp/families/metaworld/tasks_b.cc
  cpp/families/metaworld/tasks_c.cc
  cpp/families/metaworld/tasks_d.cc
  cpp/families/metaworld/tasks_e.cc)
install(TARGETS _metaworld LIBRARY DESTINATION envfleet)
target_link_libraries(_metaworld PRIVATE envfleet_mujoco ${CMAKE_DL_LIBS})
set_target_properties(_metaworld PROPERTIES
  INSTALL_RPATH "$ORIGIN/../mujoco"
  BUILD_RPATH "${ENVFLEET_MUJOCO_DIR}")
