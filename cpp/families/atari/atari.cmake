# Atari (ALE) env family: the module envfleet._atari; included from CMakeLists.txt.
#
# The Arcade Learning Environment comes from the ale-py 0.12.1 sdist on PyPI, fetched at
# configure time into the build dir and never committed (ALE is GPL-2.0). Its emulator and
# game code (src/ale/{common,emucore,environment,games} + ale_interface.cpp; zlib only, no SDL,
# no Python) is compiled into a static, position-independent library linked into _atari and
# into no other module (ALE is GPL-2.0; envfleet's own code is Apache-2.0), with
# hidden visibility so that it never clashes with the ALE inside ale-py's own extension when
# both are loaded in one process. ROMs are read at run time from the installed ale-py wheel.
#
# Options:
#   ENVFLEET_ATARI=OFF            skip the family (its task ids then name the extra to install)
#   ENVFLEET_ALE_SDIST=<path>     use a local ale_py-0.12.1.tar.gz instead of downloading it
#   ENVFLEET_ALE_LTO=OFF          build ALE without link-time optimisation. LTO (ale-py's own
#                                 setting; here with GCC, the 6502 core excepted, see below)
#                                 costs no more build time than -O3 per file (about 2.3
#                                 CPU-minutes either way on this 2-core machine) and steps ~6%
#                                 faster; results are identical either way.
#
# Flags we measured and rejected (GCC 12.2, 2-core AMD EPYC VM; Pong-v5, _core.raw_step_rate,
# one thread; builds alternated in subprocesses for 16-20 rounds, median of per-round ratios
# against the build below; single rounds vary by +-15% on this machine, medians by ~3%):
#   PGO (-fprofile-generate, train on Pong/Breakout/SpaceInvaders/MsPacman/Seaquest, 3000
#   steps each, then -fprofile-use): 0.95-0.97x on Pong (1.04x on Breakout), although it
#   executes 8% fewer instructions per step (valgrind: 3.11M vs 3.38M). Time goes to the
#   6502 interpreter's dispatch (M6502Low::execute ~47%, TIA::poke/updateFrame ~19%,
#   System::peek ~6%), which profile feedback does not speed up. Variants were no better:
#   -fprofile-partial-training 0.96-0.98x, PGO without LTO 0.96x, PGO with the 6502 core
#   LTO-compiled too 0.98x, PGO without unrolling/peeling/tracer 1.00x. PGO would also add
#   ~2.5 min of build time (instrumented build plus a training run), so it is not used.
#   -O2 0.97-0.98x; -march=x86-64-v2 0.98x and -march=x86-64-v3 0.99x (no gain, and not
#   portable); -fno-plt and -fno-semantic-interposition do nothing here (ALE is a static
#   library with hidden visibility, so its calls are direct already).
option(ENVFLEET_ATARI "Build the Atari env family (ALE from the ale-py 0.12.1 sdist)" ON)
set(ENVFLEET_ALE_SDIST "" CACHE FILEPATH "Local copy of ale_py-0.12.1.tar.gz (skips the download)")
option(ENVFLEET_ALE_LTO "Compile ALE with link-time optimisation" ON)
if(NOT ENVFLEET_ATARI)
  message(STATUS "envfleet: Atari family disabled (ENVFLEET_ATARI=OFF)")
  return()
endif()

set(_ale_version 0.12.1)
set(_ale_sha256 c503d574c5983e1063b451201ccb779d935919c0f6bf116fb0f4f8aa4c86d249)
# PyPI's immutable file URL (the /packages/source/ redirect does not serve this project).
set(_ale_url "https://files.pythonhosted.org/packages/3e/e8/e69da8a5fb5feafa9fffb32ed8c2b306b7571b77faf779f61e4eb53304ec/ale_py-${_ale_version}.tar.gz")

find_package(ZLIB)
if(NOT ZLIB_FOUND)
  message(WARNING "envfleet: zlib (zlib1g-dev) not found: building without the Atari family")
  return()
endif()

# ---- fetch and extract the sdist (once per build dir; re-configures reuse it) ----------------
set(_ale_root "${CMAKE_BINARY_DIR}/_deps/ale")
set(_ale_tarball "${_ale_root}/ale_py-${_ale_version}.tar.gz")
set(_ale_src "${_ale_root}/ale_py-${_ale_version}/src")
set(_ale_stamp "${_ale_root}/extracted-${_ale_sha256}.stamp")

if(NOT EXISTS "${_ale_stamp}")
  envfleet_fetch_pypi_file(ale-py ${_ale_version} ${_ale_sha256} "${_ale_url}" "${_ale_tarball}"
                       "${ENVFLEET_ALE_SDIST}" _ale_ok)
  if(NOT _ale_ok)
    message(FATAL_ERROR
      "envfleet: ${_ale_ok_WHY}.\n"
      "Download it yourself and pass -DENVFLEET_ALE_SDIST=<path> (pip: "
      "-Ccmake.define.ENVFLEET_ALE_SDIST=<path>), or build without Atari: -DENVFLEET_ATARI=OFF.")
  endif()
  file(REMOVE_RECURSE "${_ale_root}/ale_py-${_ale_version}")
  file(ARCHIVE_EXTRACT INPUT "${_ale_tarball}" DESTINATION "${_ale_root}"
       PATTERNS "ale_py-${_ale_version}/src/ale/*" "ale_py-${_ale_version}/LICENSE.md")
  file(TOUCH "${_ale_stamp}")
endif()

# ---- the ALE library -------------------------------------------------------------------------
# The same source lists as the sdist's CMake files (every .cpp/.cxx of these directories).
set(_ale_dir "${_ale_src}/ale")
file(GLOB _ale_sources CONFIGURE_DEPENDS
  "${_ale_dir}/ale_interface.cpp"
  "${_ale_dir}/common/*.cpp" "${_ale_dir}/common/*.cxx"
  "${_ale_dir}/emucore/*.cxx"
  "${_ale_dir}/environment/*.cpp"
  "${_ale_dir}/games/*.cpp"
  "${_ale_dir}/games/supported/*.cpp")
set(ALE_VERSION ${_ale_version})
set(ALE_VERSION_MAJOR 0)
set(ALE_VERSION_MINOR 12)
set(ALE_VERSION_PATCH 1)
set(ALE_VERSION_GIT_SHA "sdist")
configure_file("${_ale_dir}/version.hpp.in" "${_ale_root}/include/version.hpp" @ONLY)

add_library(envfleet_ale STATIC ${_ale_sources})
# ALE's own build uses C++17 and -O3 (CMAKE_BUILD_TYPE Release gives -O3 here too). It is
# integer emulation: flags do not change results (the alignment tests compare every frame
# with ale-py's LTO build).
target_compile_features(envfleet_ale PRIVATE cxx_std_17)
target_include_directories(envfleet_ale SYSTEM PUBLIC "${_ale_src}" "${_ale_root}/include")
target_link_libraries(envfleet_ale PRIVATE ZLIB::ZLIB Threads::Threads)
target_compile_options(envfleet_ale PRIVATE -w)
set_target_properties(envfleet_ale PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
if(ENVFLEET_ALE_LTO AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # The archive then holds GCC LTO objects; the driver's linker plugin optimises them when
  # _atari is linked (_atari's own files are not LTO-compiled). Other compilers: no LTO.
  include(CheckIPOSupported)
  check_ipo_supported(RESULT _ale_ipo OUTPUT _ale_ipo_why LANGUAGES CXX)
  if(_ale_ipo)
    set_target_properties(envfleet_ale PROPERTIES INTERPROCEDURAL_OPTIMIZATION ON)
    # Except the 6502 core: compiled on its own, GCC inlines System::peek/poke into its
    # interpreter loop, which whole-program LTO declines to do (its growth limits are
    # global). Measured: 8% fewer instructions per Atari step and ~6% less time than either
    # all-LTO or no LTO, with identical frames.
    set_source_files_properties("${_ale_dir}/emucore/M6502Low.cxx" PROPERTIES
                                COMPILE_OPTIONS "-fno-lto")
  else()
    message(STATUS "envfleet: building ALE without LTO (${_ale_ipo_why})")
  endif()
endif()

envfleet_add_module(_atari cpp/families/atari/module.cc)
install(TARGETS _atari LIBRARY DESTINATION envfleet)
target_link_libraries(_atari PRIVATE envfleet_ale ZLIB::ZLIB)
# Whoever receives a wheel with _atari receives ALE, so ALE's licence travels with it.
install(FILES "${_ale_root}/ale_py-${_ale_version}/LICENSE.md"
        DESTINATION envfleet/licenses RENAME ALE-GPL-2.0-LICENSE.md)
message(STATUS "envfleet: Atari family enabled (ALE ${_ale_version} from ${_ale_tarball})")
