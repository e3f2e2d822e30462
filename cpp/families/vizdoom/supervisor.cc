// vizdoom_supervisor: what ViZDoom's client library starts in place of the engine (its
// "ViZDoom path"), one per env. It exists so that an engine never outlives the process that
// asked for it, and so that a terminal's Ctrl-C interrupts Python rather than killing engines.
//
//   vizdoom_supervisor <engine args...> -envfleet-engine <engine path> -envfleet-parent <pid>
//
// The client library passes the engine's arguments (the first is this program's path, which
// the client believes is the engine); envfleet's env appends the two options above, which are
// removed before the engine sees its arguments. The supervisor
//   - moves into a process group of its own: a terminal's SIGINT goes to the foreground group
//     (Python's), not to the engines, so Ctrl-C raises KeyboardInterrupt in Python and the pool
//     stays usable;
//   - asks the kernel for SIGTERM when the thread that started it ends (PR_SET_PDEATHSIG): the
//     client's launcher thread lives exactly as long as the engine unless the process dies, by
//     a crash or SIGKILL included;
//   - starts the engine as its child, which the kernel kills when the supervisor dies (the
//     client's own close() ends a stuck engine by killing its pid, which is the supervisor's);
//   - on SIGTERM or SIGHUP kills the engine, and whenever the engine is gone removes the
//     instance's shared memory and message queues (/dev/shm/ViZDoom{SM,MQCtr,MQDoom}<id>),
//     which the engine and the client remove only when both close normally. Removing a name
//     leaves existing mappings valid, so a client that still holds them is unaffected.
// It exits with the engine's status (128 + signal number if a signal ended the engine).
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace {

// Names as ViZDoom's client library makes them (ViZDoomController.h: SM_NAME_BASE,
// MQ_CTR_NAME_BASE, MQ_DOOM_NAME_BASE + the instance id).
void RemoveInstanceObjects(const std::string& instance_id) {
  if (instance_id.empty()) return;
  for (const char* base : {"ViZDoomSM", "ViZDoomMQCtr", "ViZDoomMQDoom"}) {
    shm_unlink((std::string(base) + instance_id).c_str());
  }
}

// The engine's -config file lives in a folder the env made for it (scratch_dir.h), which the
// env removes when it closes; if the owner died, the supervisor removes it.
void RemoveScratchFolder(const std::string& config_path) {
  const size_t slash = config_path.rfind('/');
  if (slash == std::string::npos) return;
  const std::string folder = config_path.substr(0, slash);
  if (folder.substr(folder.rfind('/') + 1).rfind("envfleet-vizdoom-", 0) != 0) return;
  std::error_code ignored;
  std::filesystem::remove_all(folder, ignored);
}

int ExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string engine;
  std::string instance_id;
  std::string config_path;
  pid_t parent = 0;
  std::vector<char*> args;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-envfleet-engine") == 0 && i + 1 < argc) {
      engine = argv[++i];
    } else if (std::strcmp(argv[i], "-envfleet-parent") == 0 && i + 1 < argc) {
      parent = static_cast<pid_t>(std::atol(argv[++i]));
    } else {
      if (std::strcmp(argv[i], "+viz_instance_id") == 0 && i + 1 < argc) {
        instance_id = argv[i + 1];
      } else if (std::strcmp(argv[i], "-config") == 0 && i + 1 < argc) {
        config_path = argv[i + 1];
      }
      args.push_back(argv[i]);
    }
  }
  if (engine.empty() || parent <= 0) {
    std::fprintf(stderr,
                 "vizdoom_supervisor: envfleet's ViZDoom envs start this program with "
                 "-envfleet-engine <path> -envfleet-parent <pid>; it is not meant to be run "
                 "by hand\n");
    return 2;
  }
  args.insert(args.begin(), engine.data());
  args.push_back(nullptr);

  setpgid(0, 0);
  // SIGTERM/SIGHUP/SIGCHLD are taken with sigwait below; SIGINT and SIGQUIT (a terminal's, if
  // it still reached this group) are ignored: the process that owns the env decides. The mask
  // is set whole: this program inherits the launching thread's, which blocks the asynchronous
  // signals (vizdoom_env.h, StartEngine).
  sigset_t wait_for;
  sigemptyset(&wait_for);
  for (int s : {SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&wait_for, s);
  sigprocmask(SIG_SETMASK, &wait_for, nullptr);
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) {  // the parent died before the request above took effect
    RemoveInstanceObjects(instance_id);
    RemoveScratchFolder(config_path);
    return 1;
  }

  const pid_t child = fork();
  if (child < 0) {
    std::perror("vizdoom_supervisor: fork");
    return 1;
  }
  if (child == 0) {
    // The engine keeps a cache folder, ./_vizdoom, in its working directory: the env's
    // scratch folder, not the user's (the env passes every path absolute).
    const size_t slash = config_path.rfind('/');
    if (slash != std::string::npos && config_path.find("/envfleet-vizdoom-") != std::string::npos) {
      if (chdir(config_path.substr(0, slash).c_str()) != 0) _exit(126);
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) _exit(1);
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);  // the engine starts with nothing blocked
    execv(engine.c_str(), args.data());
    std::fprintf(stderr, "vizdoom_supervisor: cannot start the engine %s: %s\n", engine.c_str(),
                 std::strerror(errno));
    _exit(127);
  }

  int status = 0;
  for (;;) {
    siginfo_t info{};
    const int sig = sigwaitinfo(&wait_for, &info);
    if (sig < 0) continue;
    if (sig == SIGCHLD) {
      const pid_t done = waitpid(child, &status, WNOHANG);
      if (done == child) break;
      continue;
    }
    // SIGTERM or SIGHUP: the owner's launcher thread ended (the kernel sends the death signal
    // in the name of the owner's process: si_pid is its pid; the whole process is going,
    // though it may not be gone yet, so getppid() cannot tell), or someone ends the env.
    kill(child, SIGKILL);
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (info.si_pid == parent || getppid() != parent) RemoveScratchFolder(config_path);
    break;
  }
  RemoveInstanceObjects(instance_id);
  return ExitCode(status);
}
