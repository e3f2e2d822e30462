// C++ exception messages become Python str, decoded as UTF-8. A message that is not valid
// UTF-8 (an engine quoting bytes of a file, such as a MuJoCo XML element name) made that
// decoding fail: Python then saw a UnicodeDecodeError (or a TypeError from code that re-raised
// it) instead of the exception. Every module registers this translator, which nanobind tries
// before its default one: a valid message passes on unchanged; any other gets its invalid
// bytes replaced (U+FFFD) and the exception type nanobind's default translator gives.
#ifndef ENVFLEET_BIND_ERROR_TEXT_H_
#define ENVFLEET_BIND_ERROR_TEXT_H_

#include <nanobind/nanobind.h>

#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>

namespace envfleet::bind {

inline PyObject* PythonTypeOf(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e)) return PyExc_MemoryError;
  if (dynamic_cast<const std::out_of_range*>(&e)) return PyExc_IndexError;
  if (dynamic_cast<const std::overflow_error*>(&e)) return PyExc_OverflowError;
  if (dynamic_cast<const std::invalid_argument*>(&e) ||
      dynamic_cast<const std::domain_error*>(&e) || dynamic_cast<const std::length_error*>(&e) ||
      dynamic_cast<const std::range_error*>(&e)) {
    return PyExc_ValueError;
  }
  return PyExc_RuntimeError;
}

inline void RegisterErrorTextTranslator() {
  nanobind::register_exception_translator([](const std::exception_ptr& error, void*) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      const char* what = e.what();
      const Py_ssize_t size = static_cast<Py_ssize_t>(std::strlen(what));
      PyObject* strict = PyUnicode_DecodeUTF8(what, size, "strict");
      if (strict != nullptr) {
        Py_DECREF(strict);
        throw;  // valid: nanobind's own translators handle it
      }
      PyErr_Clear();
      PyObject* text = PyUnicode_DecodeUTF8(what, size, "replace");
      PyErr_SetObject(PythonTypeOf(e), text);
      Py_XDECREF(text);
    }
  });
}

}  // namespace envfleet::bind

#endif  // ENVFLEET_BIND_ERROR_TEXT_H_
