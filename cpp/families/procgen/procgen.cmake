# Procgen env family (OpenAI Procgen 0.10.7's 16 games, EnvPool's 50 ids): the module
# envfleet._procgen; included from CMakeLists.txt.
#
# The games run in procgen's own compiled library, libenv.so (the libenv C API: make, act,
# observe, close; MIT), taken with the Qt 5.9 libraries it links and the game assets from the
# procgen2==0.10.7 manylinux wheel (a repackage of procgen 0.10.7's release build: procgen
# itself has no Python 3.11 wheel and no sdist on PyPI). The wheel is downloaded at configure
# time (sha256-checked) and only unpacked, never installed: its metadata pins numpy<2 and gym3.
# Its files are installed under envfleet/procgen_engine/ in the wheel's own relative layout
# (procgen/data/prebuilt/libenv.so finds its Qt in ../../../procgen2.libs through its RUNPATH),
# and _procgen loads libenv.so with dlopen on first use. Why this and not a build from procgen's
# source: docs/families/procgen.md.
#
# Options:
#   ENVFLEET_PROCGEN=OFF            skip the family
#   ENVFLEET_PROCGEN_WHEEL=<path>   use a local procgen2 0.10.7 wheel instead of downloading it
option(ENVFLEET_PROCGEN "Build the Procgen env family (engine from the procgen2 0.10.7 wheel)" ON)
set(ENVFLEET_PROCGEN_WHEEL "" CACHE FILEPATH "Local copy of the procgen2 0.10.7 cp311 wheel")
if(NOT ENVFLEET_PROCGEN)
  message(STATUS "envfleet: Procgen family disabled (ENVFLEET_PROCGEN=OFF)")
  return()
endif()

set(_pg_wheel_name procgen2-0.10.7-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl)
set(_pg_sha256 d6dd12c4bfd8fdd7db947d375c6815e242c4cff92d62c7c04ed92b381de62715)
set(_pg_root "${CMAKE_BINARY_DIR}/_deps/procgen")
set(_pg_engine "${_pg_root}/engine")
set(_pg_stamp "${_pg_root}/extracted-${_pg_sha256}.stamp")
if(NOT EXISTS "${_pg_stamp}")
  envfleet_fetch_pypi_file(procgen2 0.10.7 ${_pg_sha256}
    "https://files.pythonhosted.org/packages/af/ac/09bd5615260ed8223eb61f309b4b48c820879f5e192310ff479c49250dbc/${_pg_wheel_name}"
    "${_pg_root}/${_pg_wheel_name}" "${ENVFLEET_PROCGEN_WHEEL}" _pg_ok)
  if(NOT _pg_ok)
    message(WARNING "envfleet: building without the Procgen family: ${_pg_ok_WHY}. Download it "
      "yourself and pass -DENVFLEET_PROCGEN_WHEEL=<path> (pip: "
      "-Ccmake.define.ENVFLEET_PROCGEN_WHEEL=<path>).")
    return()
  endif()
  file(REMOVE_RECURSE "${_pg_engine}")
  file(ARCHIVE_EXTRACT INPUT "${_pg_root}/${_pg_wheel_name}" DESTINATION "${_pg_engine}"
       PATTERNS "procgen/data/*" "procgen2.libs/*" "procgen2-0.10.7.dist-info/LICENSE")
  if(NOT EXISTS "${_pg_engine}/procgen/data/prebuilt/libenv.so")
    message(FATAL_ERROR "envfleet: ${_pg_wheel_name} holds no procgen/data/prebuilt/libenv.so")
  endif()
  file(RENAME "${_pg_engine}/procgen2-0.10.7.dist-info/LICENSE"
       "${_pg_root}/Procgen-MIT-LICENSE.txt")
  file(TOUCH "${_pg_stamp}")
endif()

envfleet_add_module(_procgen cpp/families/procgen/module.cc)
target_link_libraries(_procgen PRIVATE ${CMAKE_DL_LIBS})
install(TARGETS _procgen LIBRARY DESTINATION envfleet)
# The wheel's file modes are kept (libenv.so and the Qt libraries executable).
install(DIRECTORY "${_pg_engine}/procgen" "${_pg_engine}/procgen2.libs"
        DESTINATION envfleet/procgen_engine USE_SOURCE_PERMISSIONS)
install(FILES "${_pg_root}/Procgen-MIT-LICENSE.txt" DESTINATION envfleet/licenses)
message(STATUS "envfleet: Procgen family enabled")
