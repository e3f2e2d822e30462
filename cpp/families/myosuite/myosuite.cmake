# MyoSuite family (myosuite 3.0.0's musculoskeletal tasks): the module envfleet._myosuite;
# included from CMakeLists.txt after robotics.cmake.
#
# It runs on the MuJoCo family's engine (libmujoco.so.4.0.0 from the mujoco-core wheel) and
# shares the Gymnasium-Robotics family's MuJoCo env base (cpp/families/robotics/robot_env.h).
# Its models are myo-sim's, read at run time from the installed myo_sim package (the
# `assets_dir` option): nothing is needed at build time beyond MuJoCo.
if(NOT TARGET envfleet_mujoco)
  message(WARNING "envfleet: building WITHOUT the MyoSuite family: it needs MuJoCo "
                  "(pip install mujoco-core==4.0.0)")
  return()
endif()

envfleet_add_module(_myosuite cpp/families/myosuite/module.cc)
install(TARGETS _myosuite LIBRARY DESTINATION envfleet)
target_link_libraries(_myosuite PRIVATE envfleet_mujoco ${CMAKE_DL_LIBS})
set_target_properties(_myosuite PROPERTIES
  INSTALL_RPATH "$ORIGIN/../mujoco"
  BUILD_RPATH "${ENVFLEET_MUJOCO_DIR}")
