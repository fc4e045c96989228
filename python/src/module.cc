// graphcost._core: the C++ library as a Python extension. graphcost/__init__.py re-exports it
// with the pure-Python parts (kernel_tuner). A graphcost::Error becomes graphcost.Error (a
// ValueError) with the CLI's one-line message; a LibTorch error a RuntimeError with the first
// line of its text (the rest is a C++ stack trace).
#include <c10/util/Exception.h>

#include <cstring>

#include "core/error.h"
#include "python/src/bindings.h"

namespace graphcost::python {
namespace {

std::string first_line(const char* text) {
  const char* end = std::strchr(text, '\n');
  return end == nullptr ? std::string(text) : std::string(text, end);
}

}  // namespace
}  // namespace graphcost::python

PYBIND11_MODULE(_core, m) {
  namespace py = pybind11;
  using namespace graphcost::python;
  m.doc() = "graphcost: learned cost models that rank compiler configurations (C++ core)";
  static py::exception<graphcost::Error> error(m, "Error", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const graphcost::Error& e) {
      error(first_line(e.what()).c_str());
    } catch (const c10::Error& e) {
      PyErr_SetString(PyExc_RuntimeError, first_line(e.what()).c_str());
    }
  });
  bind_data(m);
  bind_model(m);
  bind_train(m);
  bind_tune(m);
}
