// The runner of envfleet's C++ unit tests (check.h):
//
//   envfleet_cpp_tests                    runs every test
//   envfleet_cpp_tests 'Pool.*' Spec.X    runs the tests matching any glob pattern (* and ?)
//   envfleet_cpp_tests --list [pattern]   prints the names of the (matching) tests, one a line
//   --timeout S                           a test running past S seconds (default 120) ends the
//                                         run with exit code 3, naming it (a hang is a failure)
//
// Exit code: 0 when every check passed, 1 when some failed, 2 for a usage error or patterns
// that match no test, 3 for a timeout.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "check.h"

namespace envfleet {
namespace check {

void Report(const char* file, int line, const std::string& message) {
  std::lock_guard<std::mutex> lock(OutputMutex());
  std::cout << file << ":" << line << ": " << message << std::endl;
}

namespace {

// fnmatch-style glob with * and ? only.
bool Matches(const char* pattern, const char* text) {
  if (*pattern == '\0') return *text == '\0';
  if (*pattern == '*') {
    for (const char* t = text;; ++t) {
      if (Matches(pattern + 1, t)) return true;
      if (*t == '\0') return false;
    }
  }
  if (*text == '\0') return false;
  return (*pattern == '?' || *pattern == *text) && Matches(pattern + 1, text + 1);
}

std::atomic<int64_t> g_deadline_ms{0};  // 0: no test running
std::atomic<const TestCase*> g_running{nullptr};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void StartWatchdog(double timeout_s) {
  std::thread([timeout_s] {
    while (true) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      const int64_t deadline = g_deadline_ms.load();
      if (deadline != 0 && NowMs() > deadline) {
        const TestCase* test = g_running.load();
        std::lock_guard<std::mutex> lock(OutputMutex());
        std::cout << (test ? test->file : "?") << ":" << (test ? test->line : 0) << ": "
                  << (test ? test->name : "?") << " ran past the " << timeout_s
                  << " s timeout (hung?)" << std::endl;
        std::_Exit(3);
      }
    }
  }).detach();
}

}  // namespace
}  // namespace check
}  // namespace envfleet

int main(int argc, char** argv) {
  using namespace envfleet::check;
  bool list = false;
  double timeout_s = 120;
  std::vector<std::string> patterns;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--list") {
      list = true;
    } else if (arg == "--timeout" && i + 1 < argc) {
      timeout_s = std::atof(argv[++i]);
    } else if (arg == "-h" || arg == "--help" || (!arg.empty() && arg[0] == '-')) {
      std::cerr << "usage: " << argv[0] << " [--list] [--timeout SECONDS] [pattern...]\n";
      return 2;
    } else {
      patterns.push_back(arg);
    }
  }

  std::vector<const TestCase*> selected;
  for (const TestCase& test : Registry()) {
    bool match = patterns.empty();
    for (const std::string& p : patterns) match = match || Matches(p.c_str(), test.name.c_str());
    if (match) selected.push_back(&test);
  }
  std::sort(selected.begin(), selected.end(),
            [](const TestCase* a, const TestCase* b) { return a->name < b->name; });
  if (list) {
    for (const TestCase* test : selected) std::cout << test->name << "\n";
    return 0;
  }
  if (selected.empty()) {
    std::cerr << "no test matches the given patterns\n";
    return 2;
  }

  StartWatchdog(timeout_s);
  std::vector<std::string> failed;
  const int64_t start_all = NowMs();
  for (const TestCase* test : selected) {
    {
      std::lock_guard<std::mutex> lock(OutputMutex());
      std::cout << "[ RUN      ] " << test->name << std::endl;
    }
    Failures().store(0);
    g_running.store(test);
    const int64_t start = NowMs();
    g_deadline_ms.store(start + static_cast<int64_t>(timeout_s * 1000));
    try {
      test->body();
    } catch (const AbortTest&) {
      // REQUIRE failed; already reported.
    } catch (const std::exception& e) {
      Fail(test->file, test->line, std::string("uncaught exception: ") + e.what());
    } catch (...) {
      Fail(test->file, test->line, "uncaught exception of a non-std type");
    }
    g_deadline_ms.store(0);
    const int64_t ms = NowMs() - start;
    const int64_t failures = Failures().load();
    std::lock_guard<std::mutex> lock(OutputMutex());
    if (failures == 0) {
      std::cout << "[       OK ] " << test->name << " (" << ms << " ms)" << std::endl;
    } else {
      std::cout << "[   FAILED ] " << test->name << " (" << failures << " failed check"
                << (failures == 1 ? "" : "s") << ", " << ms << " ms)" << std::endl;
      failed.push_back(test->name);
    }
  }
  std::cout << selected.size() << " tests, " << failed.size() << " failed (" << NowMs() - start_all
            << " ms)" << std::endl;
  for (const std::string& name : failed) std::cout << "FAILED: " << name << "\n";
  return failed.empty() ? 0 : 1;
}
