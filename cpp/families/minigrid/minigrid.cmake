# MiniGrid env family (minigrid 3.2.0's grid worlds): the module envfleet._minigrid; included
# from CMakeLists.txt.
#
# The envs are ports written here (cpp/families/minigrid/): no engine is fetched or linked,
# so the module needs nothing but the C++ runtime. It is a module of its own rather than part
# of _core because the family is large (BabyAI's levels and the WFC mazes build on it) and
# compiling it into _core would slow every core rebuild and grow the module `import envfleet`
# loads.
#
# Options:
#   ENVFLEET_MINIGRID=OFF   skip the family (its task ids then say the module is missing)
option(ENVFLEET_MINIGRID "Build the MiniGrid env family (envfleet._minigrid)" ON)
if(NOT ENVFLEET_MINIGRID)
  message(STATUS "envfleet: MiniGrid family disabled (ENVFLEET_MINIGRID=OFF)")
  return()
endif()

envfleet_add_module(_minigrid cpp/families/minigrid/module.cc
  cpp/families/minigrid/babyai/level_types.cc)
install(TARGETS _minigrid LIBRARY DESTINATION envfleet)
message(STATUS "envfleet: MiniGrid family enabled")
