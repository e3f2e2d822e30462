# Procgen env family (OpenAI Procgen 0.10.7's 16 games, EnvPool's 50 ids): the module
# envfleet._procgen; included from CMakeLists.txt.
#
# The games run in procgen's own compiled library, libenv.so (the libenv C API: make, act,
# observe, close; MIT; Qt 5 linked in statically, so it needs only libc++, zlib and GLib from
# the system), taken with the game assets from OpenAI's procgen==0.10.7 release wheel for
# CPython 3.10 (manylinux2014, uploaded by OpenAI in January 2022; procgen has no Python 3.11
# wheel and no sdist, but libenv.so is a plain C library that no Python version enters). The
# wheel is downloaded at configure time (sha256-checked) and only unpacked, never installed
# (its metadata pins numpy<2 and gym3). Its procgen/data/ folder (prebuilt/libenv.so and
# assets/) is installed as envfleet/procgen_engine/procgen/data/, and _procgen loads libenv.so
# with dlopen when it is imported. Why this and not a build from procgen's source, or the
# community's procgen2 repackage: docs/families/procgen.md.
#
# Options:
#   ENVFLEET_PROCGEN=OFF            skip the family
#   ENVFLEET_PROCGEN_WHEEL=<path>   use a local copy of the procgen 0.10.7 wheel named below
#   ENVFLEET_PROCGEN_INSTALL_ENGINE=OFF
#                                   install the module only, not the engine (56 MB): binary
#                                   wheels ship it as a wheel of its own,
#                                   envfleet-procgen-engine (tools/build_wheels.py), which
#                                   installs the same files into the same folder
option(ENVFLEET_PROCGEN "Build the Procgen env family (engine from the procgen 0.10.7 wheel)" ON)
option(ENVFLEET_PROCGEN_INSTALL_ENGINE "Install procgen's engine with the module" ON)
set(ENVFLEET_PROCGEN_WHEEL "" CACHE FILEPATH "Local copy of the procgen 0.10.7 cp310 manylinux wheel")
if(NOT ENVFLEET_PROCGEN)
  message(STATUS "envfleet: Procgen family disabled (ENVFLEET_PROCGEN=OFF)")
  return()
endif()

set(_pg_wheel_name procgen-0.10.7-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl)
set(_pg_sha256 4b594d14e42f0f2166e59a9e294477b906eb99c90c3343b570b7124cbc865f53)
set(_pg_root "${CMAKE_BINARY_DIR}/_deps/procgen")
set(_pg_engine "${_pg_root}/engine")
set(_pg_stamp "${_pg_root}/extracted-${_pg_sha256}-1.stamp")  # -1: the asset list
if(NOT EXISTS "${_pg_stamp}")
  envfleet_fetch_pypi_file(procgen 0.10.7 ${_pg_sha256}
    "https://files.pythonhosted.org/packages/eb/9e/4dea48895a9350ff045ae724cbebf1fb8f2d2eafff16b6a39fc8842e1084/${_pg_wheel_name}"
    "${_pg_root}/${_pg_wheel_name}" "${ENVFLEET_PROCGEN_WHEEL}" _pg_ok)
  if(NOT _pg_ok)
    message(WARNING "envfleet: building without the Procgen family: ${_pg_ok_WHY}. Download it "
      "yourself and pass -DENVFLEET_PROCGEN_WHEEL=<path> (pip: "
      "-Ccmake.define.ENVFLEET_PROCGEN_WHEEL=<path>).")
    return()
  endif()
  file(REMOVE_RECURSE "${_pg_engine}")
  file(ARCHIVE_EXTRACT INPUT "${_pg_root}/${_pg_wheel_name}" DESTINATION "${_pg_engine}"
       PATTERNS "procgen/data/*" "procgen-0.10.7.dist-info/LICENSE")
  if(NOT EXISTS "${_pg_engine}/procgen/data/prebuilt/libenv.so")
    message(FATAL_ERROR "envfleet: ${_pg_wheel_name} holds no procgen/data/prebuilt/libenv.so")
  endif()
  file(RENAME "${_pg_engine}/procgen-0.10.7.dist-info/LICENSE"
       "${_pg_root}/Procgen-MIT-LICENSE.txt")
  # The asset list the module checks at import ("<size> <path>" per file): procgen exits the
  # process when an image it loads is missing (libenv.h, CheckAssets).
  set(_pg_assets "${_pg_engine}/procgen/data/assets")
  file(GLOB_RECURSE _pg_files RELATIVE "${_pg_assets}" "${_pg_assets}/*")
  list(SORT _pg_files)
  set(_pg_manifest "")
  foreach(_f IN LISTS _pg_files)
    file(SIZE "${_pg_assets}/${_f}" _size)
    string(APPEND _pg_manifest "${_size} ${_f}\n")
  endforeach()
  file(WRITE "${_pg_engine}/assets.manifest" "${_pg_manifest}")
  file(TOUCH "${_pg_stamp}")
endif()

envfleet_add_module(_procgen cpp/families/procgen/module.cc)
target_link_libraries(_procgen PRIVATE ${CMAKE_DL_LIBS})
install(TARGETS _procgen LIBRARY DESTINATION envfleet)
if(ENVFLEET_PROCGEN_INSTALL_ENGINE)
  install(DIRECTORY "${_pg_engine}/procgen/data" DESTINATION envfleet/procgen_engine/procgen
          USE_SOURCE_PERMISSIONS)
  install(FILES "${_pg_engine}/assets.manifest" DESTINATION envfleet/procgen_engine)
  install(FILES "${_pg_root}/Procgen-MIT-LICENSE.txt" DESTINATION envfleet/licenses)
endif()
message(STATUS "envfleet: Procgen family enabled")
