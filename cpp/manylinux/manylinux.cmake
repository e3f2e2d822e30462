# Binary-wheel builds (tools/build_wheels.py; RELEASING.md): modules that load on any x86-64
# Linux with glibc 2.28 or newer (the manylinux_2_28 platform), built with this machine's g++.
# Included by cpp/envfleet.cmake; does nothing unless ENVFLEET_GLIBC_STUBS is set.
#
# A module links against the glibc it is built on, and records the newest version of every
# glibc symbol it calls (pthread_* at GLIBC_2.34, exp/log/pow at 2.29 ...): on an older system
# it would not load. ENVFLEET_GLIBC_STUBS names a folder of glibc 2.28 link stubs (libc.so.6,
# libm.so.6, libpthread.so.0 ... with 2.28's symbols and versions, made by Zig from glibc's
# ABI lists; tools/build_wheels.py prepares it), searched before the system's libraries, so
# every glibc symbol binds to the version a 2.28 system has, in the library that has it there.
# libstdc++ is linked statically (the system's libstdc++.so.6 may be older than g++ 12's) and
# its symbols, with those of every other static library (Boost), are kept inside each module
# (--exclude-libs), so that two modules, or a module and another package's C++ runtime, never
# bind to each other's copies. glibc_compat.cc supplies the one glibc 2.32 variable g++ 12's
# headers read. tools/build_wheels.py checks the result: auditwheel, and no glibc symbol left
# without a version.
set(ENVFLEET_GLIBC_STUBS "" CACHE PATH
    "Folder of glibc 2.28 link stubs: build manylinux_2_28 modules (tools/build_wheels.py)")
set(ENVFLEET_GLIBC_COMPAT_SOURCES "")
if(ENVFLEET_GLIBC_STUBS)
  if(NOT EXISTS "${ENVFLEET_GLIBC_STUBS}/libc.so")
    message(FATAL_ERROR "envfleet: ENVFLEET_GLIBC_STUBS=${ENVFLEET_GLIBC_STUBS} holds no libc.so")
  endif()
  add_link_options(-static-libstdc++ "LINKER:--exclude-libs,ALL" "-L${ENVFLEET_GLIBC_STUBS}")
  # In glibc 2.28 the thread, dl and rt functions live in libraries of their own (2.34 moved
  # them into libc.so.6, so the system's build links none): every link names their stubs,
  # kept where used.
  set(CMAKE_CXX_STANDARD_LIBRARIES
      "-Wl,--push-state,--as-needed -lpthread -ldl -lrt -Wl,--pop-state ${CMAKE_CXX_STANDARD_LIBRARIES}")
  set(ENVFLEET_GLIBC_COMPAT_SOURCES "${CMAKE_CURRENT_LIST_DIR}/glibc_compat.cc")
  # LLVM's linker (Zig's, through the ld.lld script tools/build_wheels.py puts in bin/) with
  # -Bsymbolic, for a module that links Debian's static libraries (Boost): they are compiled
  # as position-independent executables' code, which binds its own symbols directly, and GNU
  # ld refuses that in a shared object even where -Bsymbolic makes it correct.
  if(NOT EXISTS "${ENVFLEET_GLIBC_STUBS}/bin/ld.lld")
    message(FATAL_ERROR "envfleet: ${ENVFLEET_GLIBC_STUBS}/bin/ld.lld is missing")
  endif()
  set(ENVFLEET_PIE_ARCHIVES_LINK_OPTIONS -fuse-ld=lld "-B${ENVFLEET_GLIBC_STUBS}/bin/"
      "LINKER:-Bsymbolic")
  message(STATUS "envfleet: manylinux_2_28 build against the glibc stubs in ${ENVFLEET_GLIBC_STUBS}")
endif()

# A binary wheel carries the licences of what it links in beyond a source build's: g++'s
# runtime (libstdc++, GPL-3.0 with the GCC Runtime Library Exception, as Debian states it) and
# glibc's static start-up pieces from Zig's glibc (libc_nonshared: atexit, 2.28's stat
# wrappers; their notices, which tools/build_wheels.py copies beside the stubs). Boost's is
# installed by vizdoom.cmake, which links it.
if(ENVFLEET_GLIBC_STUBS)
  string(REGEX MATCH "^[0-9]+" _envfleet_gcc_major "${CMAKE_CXX_COMPILER_VERSION}")
  set(_envfleet_gcc_copyright "/usr/share/doc/gcc-${_envfleet_gcc_major}-base/copyright")
  foreach(_notice IN ITEMS "${_envfleet_gcc_copyright}" "${ENVFLEET_GLIBC_STUBS}/glibc-LICENSES.txt")
    if(NOT EXISTS "${_notice}")
      message(FATAL_ERROR "envfleet: a binary wheel must carry ${_notice}, which is missing")
    endif()
  endforeach()
  install(FILES "${_envfleet_gcc_copyright}" DESTINATION envfleet/licenses
          RENAME libstdc++-GPL-3.0-with-GCC-exception.txt)
  install(FILES "${ENVFLEET_GLIBC_STUBS}/glibc-LICENSES.txt" DESTINATION envfleet/licenses
          RENAME glibc-nonshared-LICENSES.txt)
endif()
