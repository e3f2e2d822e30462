// envfleet's C++ unit-test runner: a few macros and a main() (check_main.cc), no framework.
//
//   TEST(Suite, Name) { ... }        registers the test "Suite.Name"
//   CHECK(cond)                      records a failure (file:line and the expression) and goes on
//   CHECK_EQ(a, b), CHECK_NE, CHECK_LT, CHECK_LE, CHECK_GT, CHECK_GE
//                                    the same, printing both values; integers of different
//                                    signedness compare by value (std::cmp_*), not by conversion
//   CHECK_THROWS(Type, expr...)      expr must throw Type (or a class derived from it)
//   CHECK_THROWS_WITH(Type, "text", expr...)   ... whose what() contains "text"
//   REQUIRE(cond), REQUIRE_EQ(a, b)  as CHECK, but a failure ends the test at once (for
//                                    preconditions of the lines below it)
//
// Checks may run on any thread. The runner (envfleet_cpp_tests [--list] [--timeout S]
// [pattern...]) runs every test whose name matches one of the glob patterns (all without
// one), reports each failure with its file and line, and exits non-zero if any check failed.
#ifndef ENVFLEET_TESTS_CPP_CHECK_H_
#define ENVFLEET_TESTS_CPP_CHECK_H_

#include <atomic>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <mutex>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace envfleet {
namespace check {

struct TestCase {
  std::string name;  // "Suite.Name"
  void (*body)();
  const char* file;
  int line;
};

inline std::vector<TestCase>& Registry() {
  static std::vector<TestCase> tests;
  return tests;
}

struct Registrar {
  Registrar(const char* suite, const char* name, void (*body)(), const char* file, int line) {
    Registry().push_back({std::string(suite) + "." + name, body, file, line});
  }
};

// Failed checks of the running test.
inline std::atomic<int64_t>& Failures() {
  static std::atomic<int64_t> failures{0};
  return failures;
}

inline std::mutex& OutputMutex() {
  static std::mutex mutex;
  return mutex;
}

void Report(const char* file, int line, const std::string& message);  // check_main.cc

inline void Fail(const char* file, int line, const std::string& message) {
  Failures().fetch_add(1);
  Report(file, line, message);
}

// Thrown by REQUIRE to end the running test; the runner catches it.
struct AbortTest {};

template <typename T>
std::string Show(const T& value) {
  using D = std::decay_t<T>;
  std::ostringstream out;
  if constexpr (std::is_same_v<D, bool>) {
    out << (value ? "true" : "false");
  } else if constexpr (std::is_same_v<D, char> || std::is_same_v<D, signed char> ||
                       std::is_same_v<D, unsigned char>) {
    out << static_cast<int>(value);
  } else if constexpr (std::is_enum_v<D>) {
    out << "enum " << static_cast<int64_t>(value);
  } else if constexpr (std::is_floating_point_v<D>) {
    out << std::setprecision(std::numeric_limits<D>::max_digits10) << value;
  } else if constexpr (requires(std::ostream& os, const D& v) { os << v; }) {
    out << value;
  } else if constexpr (requires(const D& v) {
                         v.begin();
                         v.end();
                       }) {
    out << "{";
    const char* sep = "";
    for (const auto& item : value) {
      out << sep << Show(item);
      sep = ", ";
    }
    out << "}";
  } else {
    out << "<" << sizeof(D) << "-byte value>";
  }
  return out.str();
}

// The types std::cmp_equal and friends accept: integers, not bool or character types.
template <typename T>
constexpr bool kCmpInteger =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char> &&
    !std::is_same_v<T, wchar_t> && !std::is_same_v<T, char8_t> && !std::is_same_v<T, char16_t> &&
    !std::is_same_v<T, char32_t>;
template <typename A, typename B>
constexpr bool kIntegers = kCmpInteger<A> && kCmpInteger<B>;

struct Eq {
  static constexpr const char* kOp = "==";
  template <typename A, typename B>
  static bool Holds(const A& a, const B& b) {
    if constexpr (kIntegers<A, B>) {
      return std::cmp_equal(a, b);
    } else {
      return a == b;
    }
  }
};
struct Ne {
  static constexpr const char* kOp = "!=";
  template <typename A, typename B>
  static bool Holds(const A& a, const B& b) {
    return !Eq::Holds(a, b);
  }
};
struct Lt {
  static constexpr const char* kOp = "<";
  template <typename A, typename B>
  static bool Holds(const A& a, const B& b) {
    if constexpr (kIntegers<A, B>) {
      return std::cmp_less(a, b);
    } else {
      return a < b;
    }
  }
};
struct Le {
  static constexpr const char* kOp = "<=";
  template <typename A, typename B>
  static bool Holds(const A& a, const B& b) {
    return !Lt::Holds(b, a);
  }
};
struct Gt {
  static constexpr const char* kOp = ">";
  template <typename A, typename B>
  static bool Holds(const A& a, const B& b) {
    return Lt::Holds(b, a);
  }
};
struct Ge {
  static constexpr const char* kOp = ">=";
  template <typename A, typename B>
  static bool Holds(const A& a, const B& b) {
    return !Lt::Holds(a, b);
  }
};

// Returns whether the comparison held; records a failure naming both sides if not.
template <typename Op, typename A, typename B>
bool Compare(const char* file, int line, const char* macro, const char* a_text, const char* b_text,
             const A& a, const B& b) {
  if (Op::Holds(a, b)) return true;
  Fail(file, line,
       std::string(macro) + "(" + a_text + ", " + b_text + "): " + Show(a) + " " + Op::kOp + " " +
           Show(b) + " does not hold");
  return false;
}

inline bool Contains(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

// An exception's message: what() if it has one, else the value itself.
template <typename E>
std::string WhatOf(const E& error) {
  if constexpr (requires { error.what(); }) {
    return error.what();
  } else {
    return Show(error);
  }
}

}  // namespace check
}  // namespace envfleet

#define ENVFLEET_CHECK_NAME_(suite, name) envfleet_test_##suite##_##name

#define TEST(suite, name)                                                                  \
  static void ENVFLEET_CHECK_NAME_(suite, name)();                                         \
  static const ::envfleet::check::Registrar ENVFLEET_CHECK_NAME_(suite, name##_registrar)( \
      #suite, #name, &ENVFLEET_CHECK_NAME_(suite, name), __FILE__, __LINE__);              \
  static void ENVFLEET_CHECK_NAME_(suite, name)()

#define CHECK(cond)                                                               \
  do {                                                                            \
    if (!(cond)) ::envfleet::check::Fail(__FILE__, __LINE__, "CHECK(" #cond ")"); \
  } while (0)

#define REQUIRE(cond)                                                    \
  do {                                                                   \
    if (!(cond)) {                                                       \
      ::envfleet::check::Fail(__FILE__, __LINE__, "REQUIRE(" #cond ")"); \
      throw ::envfleet::check::AbortTest{};                              \
    }                                                                    \
  } while (0)

#define ENVFLEET_CHECK_CMP_(op, macro, a, b) \
  ::envfleet::check::Compare<::envfleet::check::op>(__FILE__, __LINE__, macro, #a, #b, (a), (b))

#define CHECK_EQ(a, b) ((void)ENVFLEET_CHECK_CMP_(Eq, "CHECK_EQ", a, b))
#define CHECK_NE(a, b) ((void)ENVFLEET_CHECK_CMP_(Ne, "CHECK_NE", a, b))
#define CHECK_LT(a, b) ((void)ENVFLEET_CHECK_CMP_(Lt, "CHECK_LT", a, b))
#define CHECK_LE(a, b) ((void)ENVFLEET_CHECK_CMP_(Le, "CHECK_LE", a, b))
#define CHECK_GT(a, b) ((void)ENVFLEET_CHECK_CMP_(Gt, "CHECK_GT", a, b))
#define CHECK_GE(a, b) ((void)ENVFLEET_CHECK_CMP_(Ge, "CHECK_GE", a, b))
#define REQUIRE_EQ(a, b)                                                                    \
  do {                                                                                      \
    if (!ENVFLEET_CHECK_CMP_(Eq, "REQUIRE_EQ", a, b)) throw ::envfleet::check::AbortTest{}; \
  } while (0)

#define CHECK_THROWS_WITH(type, text, ...)                                                      \
  do {                                                                                          \
    bool envfleet_thrown_ = false;                                                              \
    try {                                                                                       \
      (void)(__VA_ARGS__);                                                                      \
    } catch (const type& envfleet_error_) {                                                     \
      envfleet_thrown_ = true;                                                                  \
      const char* envfleet_text_ = text;                                                        \
      const std::string envfleet_what_ = ::envfleet::check::WhatOf(envfleet_error_);            \
      if (envfleet_text_ != nullptr &&                                                          \
          !::envfleet::check::Contains(envfleet_what_, envfleet_text_)) {                       \
        ::envfleet::check::Fail(__FILE__, __LINE__,                                             \
                                "CHECK_THROWS(" #type ", " #__VA_ARGS__ "): it threw \"" +      \
                                    envfleet_what_ + "\", which lacks \"" + envfleet_text_ +    \
                                    "\"");                                                      \
      }                                                                                         \
    } catch (...) {                                                                             \
      envfleet_thrown_ = true;                                                                  \
      ::envfleet::check::Fail(__FILE__, __LINE__,                                               \
                              "CHECK_THROWS(" #type ", " #__VA_ARGS__                           \
                              "): it threw something else");                                    \
    }                                                                                           \
    if (!envfleet_thrown_) {                                                                    \
      ::envfleet::check::Fail(__FILE__, __LINE__,                                               \
                              "CHECK_THROWS(" #type ", " #__VA_ARGS__ "): nothing was thrown"); \
    }                                                                                           \
  } while (0)

#define CHECK_THROWS(type, ...) CHECK_THROWS_WITH(type, nullptr, __VA_ARGS__)

#endif  // ENVFLEET_TESTS_CPP_CHECK_H_
