# MuJoCo env family: owned by the MuJoCo work; included from CMakeLists.txt.
# When it adds sources it also defines ENVFLEET_WITH_MUJOCO so registry.cc registers them.
