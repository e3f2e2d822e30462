// Linked into every module of a manylinux_2_28 build (manylinux.cmake): what the C++ runtime
// compiled on this machine expects of glibc but glibc 2.28 does not have. Each definition is
// hidden: it serves the module that holds it and never another library.

// <cstdlib> is left out on purpose: glibc 2.36's <stdlib.h> declares arc4random itself.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>

extern "C" {

// g++ 12's libstdc++ (its headers and its static library) reads glibc 2.32's
// __libc_single_threaded to skip atomic reference counts while a process has one thread.
// glibc 2.28 has no such variable. Each module gets its own, always 0 ("may be threaded"):
// reference counts then always use atomics, as they do under any glibc before 2.32. Correct
// in every process, at the cost of a lock prefix on shared_ptr copies outside the hot path.
__attribute__((visibility("hidden"))) char __libc_single_threaded = 0;

// std::random_device draws from glibc 2.36's arc4random where the static libstdc++ was built
// against it. The same kernel entropy through getrandom (glibc 2.25); like glibc's own, it
// never returns a bad value: it retries when interrupted and aborts when the kernel has none.
__attribute__((visibility("hidden"))) std::uint32_t arc4random() {
  std::uint32_t value = 0;
  for (;;) {
    const ssize_t got = getrandom(&value, sizeof(value), 0);
    if (got == static_cast<ssize_t>(sizeof(value))) return value;
    if (got < 0 && errno != EINTR) __builtin_abort();
  }
}

}  // extern "C"
