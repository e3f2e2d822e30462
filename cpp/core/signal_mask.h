// NewThreadsBlockSignals: while it lives, the threads that the calling thread starts block the
// asynchronous signals (a thread takes its creator's signal mask); the caller's own mask is as
// before once it goes. Every thread envfleet starts for its own work (the pool's workers and
// build helpers, the render threads, ViZDoom's engine launcher) is started under one.
//
// Why: the kernel hands a process-directed signal (Ctrl-C's SIGINT) to any thread that does
// not block it. Python runs its signal handlers in the main thread only: a SIGINT that a worker
// takes sets Python's flag but does not interrupt the main thread's blocking call (time.sleep,
// input(), a lock), so KeyboardInterrupt would wait until that call ended on its own (measured:
// with a pool alive and the machine loaded, 10 of 200 Ctrl-Cs reached a worker and a
// time.sleep(120) went on). Faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT)
// stay unblocked: they are the faulting thread's own.
#ifndef ENVFLEET_CORE_SIGNAL_MASK_H_
#define ENVFLEET_CORE_SIGNAL_MASK_H_

#include <pthread.h>
#include <signal.h>

namespace envfleet {

class NewThreadsBlockSignals {
 public:
  NewThreadsBlockSignals() {
    sigset_t asynchronous;
    sigfillset(&asynchronous);
    for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT}) {
      sigdelset(&asynchronous, s);
    }
    pthread_sigmask(SIG_BLOCK, &asynchronous, &saved_);
  }
  ~NewThreadsBlockSignals() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }
  NewThreadsBlockSignals(const NewThreadsBlockSignals&) = delete;
  NewThreadsBlockSignals& operator=(const NewThreadsBlockSignals&) = delete;

 private:
  sigset_t saved_;
};

}  // namespace envfleet

#endif  // ENVFLEET_CORE_SIGNAL_MASK_H_
