# ViZDoom env family (EnvPool's Doom scenarios): the module envfleet._vizdoom and its engine
# supervisor; included from CMakeLists.txt.
#
# ViZDoom is two programs: the engine (a ZDoom fork, one process per env) and a client library
# that starts it and drives it tic by tic through Boost.Interprocess message queues and shared
# memory. The engine comes ready-built in the vizdoom==1.3.2 wheel (with its WADs and
# scenarios), read at run time from the installed package (envfleet[vizdoom]). The client
# library is compiled here from the vizdoom 1.3.2 sdist (src/lib, MIT), fetched at configure
# time into the build dir and never committed, into a static, position-independent library
# with hidden visibility, linked into _vizdoom only (vizdoom's own Python extension holds
# another copy; both may be loaded in one process). Its version must equal the engine's: the
# engine refuses a client of another version at init.
#
# The library needs Boost (headers, and the compiled filesystem and thread libraries). Where
# Boost is missing the family is left out, with a warning naming the Debian packages; its task
# ids then say what to install. Boost.Interprocess's shared-memory layout is header-only and
# has not changed between the wheel's Boost 1.66 and Debian's 1.74 (the alignment tests run
# the wheel's engine against this library).
#
# vizdoom_supervisor (supervisor.cc) is the program the client library starts in place of the
# engine: it starts the engine in a process group of its own (so a terminal's Ctrl-C reaches
# Python, not the engines) and, when the process that started it dies however it dies
# (SIGKILL included), kills its engine and removes the instance's shared memory and queues.
#
# Options:
#   ENVFLEET_VIZDOOM=OFF            skip the family
#   ENVFLEET_VIZDOOM_SDIST=<path>   use a local vizdoom-1.3.2.tar.gz instead of downloading it
option(ENVFLEET_VIZDOOM "Build the ViZDoom env family (client library from the vizdoom 1.3.2 sdist)" ON)
set(ENVFLEET_VIZDOOM_SDIST "" CACHE FILEPATH "Local copy of vizdoom-1.3.2.tar.gz (skips the download)")
if(NOT ENVFLEET_VIZDOOM)
  message(STATUS "envfleet: ViZDoom family disabled (ENVFLEET_VIZDOOM=OFF)")
  return()
endif()

# A binary wheel (cpp/manylinux) carries Boost inside _vizdoom: Debian's static libraries,
# hidden there by --exclude-libs, and linked as manylinux.cmake says.
if(ENVFLEET_GLIBC_STUBS)
  set(Boost_USE_STATIC_LIBS ON)
endif()
find_package(Boost 1.66 CONFIG QUIET COMPONENTS filesystem thread chrono)
if(NOT Boost_FOUND)
  message(WARNING
    "envfleet: Boost (headers, filesystem, thread, chrono) not found: building without the ViZDoom "
    "family. On Debian/Ubuntu: apt-get install libboost-dev libboost-filesystem-dev "
    "libboost-thread-dev libboost-chrono-dev, then reinstall envfleet.")
  return()
endif()

set(_vzd_version 1.3.2)
set(_vzd_sha256 10eef8c2a65111c774ed1311438d95949719d1ac41dc1f7010936dc544f70de2)
set(_vzd_root "${CMAKE_BINARY_DIR}/_deps/vizdoom")
set(_vzd_src "${_vzd_root}/vizdoom-${_vzd_version}")
set(_vzd_stamp "${_vzd_root}/extracted-${_vzd_sha256}-1.stamp")  # -1: the edit below
if(NOT EXISTS "${_vzd_stamp}")
  envfleet_fetch_pypi_file(vizdoom ${_vzd_version} ${_vzd_sha256}
    "https://files.pythonhosted.org/packages/42/17/bac513f66800598eab4869ec93021efb09beda7d02b42750dff8a7615838/vizdoom-${_vzd_version}.tar.gz"
    "${_vzd_root}/vizdoom-${_vzd_version}.tar.gz" "${ENVFLEET_VIZDOOM_SDIST}" _vzd_ok)
  if(NOT _vzd_ok)
    message(WARNING "envfleet: building without the ViZDoom family: ${_vzd_ok_WHY}. Download it "
      "yourself and pass -DENVFLEET_VIZDOOM_SDIST=<path> (pip: "
      "-Ccmake.define.ENVFLEET_VIZDOOM_SDIST=<path>).")
    return()
  endif()
  file(REMOVE_RECURSE "${_vzd_src}")
  file(ARCHIVE_EXTRACT INPUT "${_vzd_root}/vizdoom-${_vzd_version}.tar.gz"
       DESTINATION "${_vzd_root}"
       PATTERNS "vizdoom-${_vzd_version}/src/lib/*" "vizdoom-${_vzd_version}/include/*"
                "vizdoom-${_vzd_version}/src/vizdoom/src/viz_doom_classes.h")
  # The one edit to the extracted sources (a null check, in the three places close() and
  # restartMap() read it): when an engine fails to start (a scenario without a
  # player start, a bad WAD), DoomController::init() calls close() before the game state is
  # mapped, and close() reads gameState->DEMO_RECORDING through a null pointer: the process
  # crashes instead of raising. The guard makes it raise ViZDoom's own error.
  set(_vzd_controller "${_vzd_src}/src/lib/ViZDoomController.cpp")
  file(READ "${_vzd_controller}" _vzd_code)
  string(FIND "${_vzd_code}" "if (this->gameState->DEMO_RECORDING)" _vzd_at)
  if(_vzd_at EQUAL -1)
    message(FATAL_ERROR "envfleet: ViZDoomController.cpp is not the 1.3.2 source expected")
  endif()
  string(REPLACE "if (this->gameState->DEMO_RECORDING)"
                 "if (this->gameState && this->gameState->DEMO_RECORDING)" _vzd_code "${_vzd_code}")
  file(WRITE "${_vzd_controller}" "// envfleet: null checks on gameState added (vizdoom.cmake says why)\n${_vzd_code}")
  file(TOUCH "${_vzd_stamp}")
endif()

# ---- the client library ------------------------------------------------------------------------
set(ViZDoom_VERSION_ID 132)  # as vizdoom's CMakeLists.txt makes it: major minor patch
set(ViZDoom_VERSION_STR ${_vzd_version})
configure_file("${_vzd_src}/src/lib/ViZDoomVersion.h.in"
               "${_vzd_root}/include/ViZDoomVersion.h")
file(GLOB _vzd_sources CONFIGURE_DEPENDS "${_vzd_src}/src/lib/*.cpp")
add_library(envfleet_vizdoom_client STATIC ${_vzd_sources})
target_compile_features(envfleet_vizdoom_client PRIVATE cxx_std_17)
# src/lib is public for ViZDoomConfigLoader.h (the env reads ViZDoom's button and variable names
# through it).
target_include_directories(envfleet_vizdoom_client SYSTEM
                           PUBLIC "${_vzd_src}/include" "${_vzd_src}/src/lib"
                           PRIVATE "${_vzd_root}/include")
target_link_libraries(envfleet_vizdoom_client PUBLIC Boost::headers
                      PRIVATE Boost::filesystem Boost::thread Boost::chrono Threads::Threads rt)
target_compile_options(envfleet_vizdoom_client PRIVATE -w)
set_target_properties(envfleet_vizdoom_client PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)

# ---- the engine supervisor and the module ------------------------------------------------------
add_executable(vizdoom_supervisor cpp/families/vizdoom/supervisor.cc)
if(ENVFLEET_GLIBC_STUBS)
  # A binary wheel's supervisor is one static executable: a program, unlike a module, also
  # takes its start-up code from the glibc it is linked with, and this machine's (2.36) calls
  # __libc_start_main the way only glibc 2.34 and newer understand. Linked statically it needs
  # no glibc at all on the user's system.
  target_link_options(vizdoom_supervisor PRIVATE -static -s)
endif()
install(TARGETS vizdoom_supervisor RUNTIME DESTINATION envfleet)

envfleet_add_module(_vizdoom cpp/families/vizdoom/module.cc)
target_link_libraries(_vizdoom PRIVATE envfleet_vizdoom_client)
if(ENVFLEET_GLIBC_STUBS)
  target_link_options(_vizdoom PRIVATE ${ENVFLEET_PIE_ARCHIVES_LINK_OPTIONS})  # Boost's archives
endif()
install(TARGETS _vizdoom LIBRARY DESTINATION envfleet)
# ViZDoom's client library is MIT (the sdist has no licence file: the text heads every source
# file): its notice travels with the module.
file(READ "${_vzd_src}/src/lib/ViZDoomController.cpp" _vzd_head LIMIT 4000)
string(FIND "${_vzd_head}" "/*" _vzd_begin)
string(FIND "${_vzd_head}" "*/" _vzd_end)
math(EXPR _vzd_begin "${_vzd_begin} + 2")
math(EXPR _vzd_length "${_vzd_end} - ${_vzd_begin}")
string(SUBSTRING "${_vzd_head}" ${_vzd_begin} ${_vzd_length} _vzd_notice)
string(STRIP "${_vzd_notice}" _vzd_notice)
file(WRITE "${_vzd_root}/ViZDoom-MIT-LICENSE.txt" "${_vzd_notice}")
install(FILES "${_vzd_root}/ViZDoom-MIT-LICENSE.txt" DESTINATION envfleet/licenses)
if(ENVFLEET_GLIBC_STUBS)
  # Boost is linked in (above): its licence, as Debian's copyright file states it.
  set(_vzd_boost_copyright "/usr/share/doc/libboost${Boost_VERSION_MAJOR}.${Boost_VERSION_MINOR}-dev/copyright")
  if(NOT EXISTS "${_vzd_boost_copyright}")
    message(FATAL_ERROR "envfleet: a binary wheel links Boost in and must carry its licence, "
                        "but ${_vzd_boost_copyright} is missing")
  endif()
  file(READ "${_vzd_boost_copyright}" _vzd_boost_text)
  string(FIND "${_vzd_boost_text}" "License: BSL-1.0\n" _vzd_at)
  if(_vzd_at EQUAL -1)
    message(FATAL_ERROR "envfleet: ${_vzd_boost_copyright} states no BSL-1.0 licence")
  endif()
  string(SUBSTRING "${_vzd_boost_text}" ${_vzd_at} -1 _vzd_boost_text)
  string(FIND "${_vzd_boost_text}" "\n\n" _vzd_end)  # the paragraph ends at a blank line
  string(SUBSTRING "${_vzd_boost_text}" 0 ${_vzd_end} _vzd_boost_text)
  string(REGEX REPLACE "\n \.?" "\n" _vzd_boost_text "${_vzd_boost_text}")
  file(WRITE "${_vzd_root}/Boost-BSL-1.0-LICENSE.txt" "${_vzd_boost_text}\n")
  install(FILES "${_vzd_root}/Boost-BSL-1.0-LICENSE.txt" DESTINATION envfleet/licenses)
endif()
message(STATUS "envfleet: ViZDoom family enabled (client library ${_vzd_version}, Boost ${Boost_VERSION})")
