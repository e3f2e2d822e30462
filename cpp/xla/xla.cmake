# envfleet._xla: the XLA FFI handlers behind env.xla() (cpp/xla/xla_module.cc). XLA's FFI is
# header-only and its headers ship inside jaxlib (what jax.ffi.include_dir() names), a build
# requirement in pyproject.toml; a build by a Python without jaxlib (a plain CMake build) skips
# the module, and env.xla() then says to rebuild. The module reaches pools only through their
# plain-C tables (cpp/bind/pool_api.h), so it compiles none of the core and links nothing but
# the C++ runtime (and libdl, through which its CUDA handlers load the CUDA driver at run time:
# no CUDA headers or libraries at build time, cpp/xla/cuda_driver.h).
execute_process(
  COMMAND "${Python_EXECUTABLE}" -c
          "import os, jaxlib; print(os.path.join(os.path.dirname(jaxlib.__file__), 'include'))"
  RESULT_VARIABLE _jax_found
  OUTPUT_VARIABLE ENVFLEET_XLA_FFI_INCLUDE_DIR
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(_jax_found EQUAL 0 AND EXISTS "${ENVFLEET_XLA_FFI_INCLUDE_DIR}/xla/ffi/api/ffi.h")
  message(STATUS "envfleet._xla: XLA FFI headers from ${ENVFLEET_XLA_FFI_INCLUDE_DIR}")
  # NOMINSIZE (-O3, not nanobind's -Os): every jitted env call runs through these handlers
  # (CartPole's 8-env step through the CPU handler ran about 3% faster than at -Os).
  nanobind_add_module(_xla NB_STATIC NOMINSIZE "${CMAKE_CURRENT_LIST_DIR}/xla_module.cc"
                      ${ENVFLEET_GLIBC_COMPAT_SOURCES})
  target_include_directories(_xla PRIVATE "${CMAKE_CURRENT_LIST_DIR}/..")
  # SYSTEM: XLA's headers are not held to our warning flags.
  target_include_directories(_xla SYSTEM PRIVATE "${ENVFLEET_XLA_FFI_INCLUDE_DIR}")
  target_compile_options(_xla PRIVATE -Wall -Wextra)
  target_link_libraries(_xla PRIVATE ${CMAKE_DL_LIBS})
  install(TARGETS _xla LIBRARY DESTINATION envfleet)
else()
  message(STATUS "envfleet._xla: not built (jaxlib, which has XLA's FFI headers, is not importable)")
endif()
