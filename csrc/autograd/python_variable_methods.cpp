// The Tensor methods' binding (torch/csrc/autograd/python_variable_methods.cpp).
//
// Upstream generates one C function per method that parses its arguments with PythonArgParser and
// then calls the op. Here the op's kernel is Python and takes its arguments itself, so a method is
// a `_VariableMethod`: a method descriptor whose call goes straight to the kernel through
// vectorcall, with no Python frame of its own. Only where the kernel raises one of the argument
// errors does it hand the call to the Python parser (torchlite/_ops/python_arg_parser.py's
// `_rebind_method`), which either raises torch's TypeError for the signatures none of which binds,
// returns the arguments to call the kernel with again (a deprecated signature), or re-raises the
// kernel's own error.
#include "autograd/python_variable_methods.h"
#include "autograd/python_fast_ops.h"

#include <Python.h>
#include <structmember.h>

#include <cstddef>

namespace torch {
namespace autograd {
namespace {

struct VariableMethod {
  PyObject_HEAD vectorcallfunc vectorcall;
  PyObject* kernel; // the op: kernel(self, *args, **kwargs)
  PyObject* name; // str: the method's name
  PyObject* schemas; // the op's Python signatures, for `rebind`
  PyObject* rebind; // rebind(name, schemas, args, kwargs, error) -> (args, kwargs)
  PyObject* errors; // the exception types that go to `rebind`
  const FastOpEntry* fast; // the C++ entry tried first (Note [C++ dispatch of the hot ops]), or null
};

PyObject* kwargs_of(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* kwargs = PyDict_New();
  if (kwargs == nullptr || kwnames == nullptr) {
    return kwargs;
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); ++i) {
    if (PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) < 0) {
      Py_DECREF(kwargs);
      return nullptr;
    }
  }
  return kwargs;
}

// The failure path: the kernel raised `error` (the current exception) for self.method(*args, **kwargs).
PyObject* rebind_and_call(VariableMethod* m, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject *type = nullptr, *error = nullptr, *traceback = nullptr;
  PyErr_Fetch(&type, &error, &traceback);
  PyErr_NormalizeException(&type, &error, &traceback);
  if (traceback != nullptr) {
    PyException_SetTraceback(error, traceback);
  }
  Py_XDECREF(type);
  Py_XDECREF(traceback);
  PyObject* rest = PyTuple_New(nargs - 1);
  PyObject* kwargs = kwargs_of(args, nargs, kwnames);
  PyObject* bound = nullptr;
  if (rest != nullptr && kwargs != nullptr) {
    for (Py_ssize_t i = 1; i < nargs; ++i) {
      Py_INCREF(args[i]);
      PyTuple_SET_ITEM(rest, i - 1, args[i]);
    }
    bound = PyObject_CallFunctionObjArgs(m->rebind, m->name, m->schemas, rest, kwargs, error, nullptr);
  }
  Py_XDECREF(rest);
  Py_XDECREF(kwargs);
  Py_XDECREF(error);
  if (bound == nullptr) {
    return nullptr;
  }
  // A signature bound: call the kernel with the arguments it was rebound to.
  PyObject* result = nullptr;
  PyObject *new_args = nullptr, *new_kwargs = nullptr, *call_args = nullptr;
  if (PyArg_UnpackTuple(bound, "rebind", 2, 2, &new_args, &new_kwargs)) {
    PyObject* positional = PySequence_Tuple(new_args);
    if (positional != nullptr) {
      Py_ssize_t n = PyTuple_GET_SIZE(positional);
      call_args = PyTuple_New(n + 1);
      if (call_args != nullptr) {
        Py_INCREF(args[0]);
        PyTuple_SET_ITEM(call_args, 0, args[0]);
        for (Py_ssize_t i = 0; i < n; ++i) {
          PyObject* item = PyTuple_GET_ITEM(positional, i);
          Py_INCREF(item);
          PyTuple_SET_ITEM(call_args, i + 1, item);
        }
        result = PyObject_Call(m->kernel, call_args, new_kwargs == Py_None ? nullptr : new_kwargs);
        Py_DECREF(call_args);
      }
      Py_DECREF(positional);
    }
  }
  Py_DECREF(bound);
  return result;
}

PyObject* VariableMethod_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* m = reinterpret_cast<VariableMethod*>(self);
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (m->fast != nullptr) {
    PyObject* fast = call_fast_op(*m->fast, args, nargs, kwnames);
    if (fast != nullptr || PyErr_Occurred()) {
      return fast;
    }
  }
  PyObject* result = PyObject_Vectorcall(m->kernel, args, nargsf, kwnames);
  if (result == nullptr && m->rebind == Py_None && nargs == 2 && PyErr_ExceptionMatches(PyExc_TypeError)) {
    // a binary operator (torch's TypeError_to_NotImplemented_): Python then tries the other operand's
    PyErr_Clear();
    return Py_NewRef(Py_NotImplemented);
  }
  if (result != nullptr || nargs == 0 || !PyErr_ExceptionMatches(m->errors)) {
    return result;
  }
  return rebind_and_call(m, args, nargs, kwnames);
}

PyObject* VariableMethod_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject *kernel, *name, *schemas, *rebind, *errors;
  static const char* names[] = {"kernel", "name", "schemas", "rebind", "errors", nullptr};
  if (!PyArg_ParseTupleAndKeywords(
          args,
          kwargs,
          "OUOOO:_VariableMethod",
          const_cast<char**>(names),
          &kernel,
          &name,
          &schemas,
          &rebind,
          &errors)) {
    return nullptr;
  }
  auto* m = reinterpret_cast<VariableMethod*>(type->tp_alloc(type, 0));
  if (m == nullptr) {
    return nullptr;
  }
  m->vectorcall = VariableMethod_vectorcall;
  m->fast = find_fast_op(PyUnicode_AsUTF8(name));
  for (auto [slot, value] :
       {std::pair{&m->kernel, kernel},
        std::pair{&m->name, name},
        std::pair{&m->schemas, schemas},
        std::pair{&m->rebind, rebind},
        std::pair{&m->errors, errors}}) {
    Py_INCREF(value);
    *slot = value;
  }
  return reinterpret_cast<PyObject*>(m);
}

int VariableMethod_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* m = reinterpret_cast<VariableMethod*>(self);
  Py_VISIT(m->kernel);
  Py_VISIT(m->name);
  Py_VISIT(m->schemas);
  Py_VISIT(m->rebind);
  Py_VISIT(m->errors);
  return 0;
}

int VariableMethod_clear(PyObject* self) {
  auto* m = reinterpret_cast<VariableMethod*>(self);
  Py_CLEAR(m->kernel);
  Py_CLEAR(m->name);
  Py_CLEAR(m->schemas);
  Py_CLEAR(m->rebind);
  Py_CLEAR(m->errors);
  return 0;
}

void VariableMethod_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  VariableMethod_clear(self);
  Py_TYPE(self)->tp_free(self);
}

// A method descriptor: Tensor.abs is the object itself; x.abs binds x (the interpreter's method
// calls skip the binding: Py_TPFLAGS_METHOD_DESCRIPTOR).
PyObject* VariableMethod_get(PyObject* self, PyObject* obj, PyObject* /*type*/) {
  if (obj == nullptr || obj == Py_None) {
    Py_INCREF(self);
    return self;
  }
  return PyMethod_New(self, obj);
}

PyObject* VariableMethod_name(PyObject* self, void* /*closure*/) {
  PyObject* name = reinterpret_cast<VariableMethod*>(self)->name;
  Py_INCREF(name);
  return name;
}

PyObject* VariableMethod_doc(PyObject* self, void* /*closure*/) {
  return PyObject_GetAttrString(reinterpret_cast<VariableMethod*>(self)->kernel, "__doc__");
}

PyObject* VariableMethod_cpp_dispatch(PyObject* self, void* /*closure*/) {
  return PyBool_FromLong(reinterpret_cast<VariableMethod*>(self)->fast != nullptr);
}

PyObject* VariableMethod_repr(PyObject* self) {
  return PyUnicode_FromFormat(
      "<method '%U' of 'torchlite.Tensor' objects>", reinterpret_cast<VariableMethod*>(self)->name);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
PyGetSetDef VariableMethod_getset[] = {
    {"__name__", VariableMethod_name, nullptr, nullptr, nullptr},
    {"__qualname__", VariableMethod_name, nullptr, nullptr, nullptr},
    {"__doc__", VariableMethod_doc, nullptr, nullptr, nullptr},
    // whether the method has a C++ entry (Note [C++ dispatch of the hot ops])
    {"_cpp_dispatch", VariableMethod_cpp_dispatch, nullptr, nullptr, nullptr},
    {nullptr},
};

PyMemberDef VariableMethod_members[] = {
    // what inspect.signature follows
    {"__wrapped__", T_OBJECT, offsetof(VariableMethod, kernel), READONLY, nullptr},
    {nullptr},
};

PyTypeObject VariableMethodType = {PyVarObject_HEAD_INIT(nullptr, 0)};

// torchlite.<op> of an op the table marks `cpp_dispatch:` (python_torch_functions.cpp's role): a
// builtin-like callable (it binds no self when stored on a class, as torch's functions) that tries
// the op's C++ entry, then calls the generated Python function `kernel`, which parses the rest.
PyObject* VariableFunction_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* m = reinterpret_cast<VariableMethod*>(self);
  PyObject* fast = call_fast_op(*m->fast, args, PyVectorcall_NARGS(nargsf), kwnames);
  if (fast != nullptr || PyErr_Occurred()) {
    return fast;
  }
  return PyObject_Vectorcall(m->kernel, args, nargsf, kwnames);
}

PyObject* VariableFunction_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject *kernel, *name;
  static const char* names[] = {"kernel", "name", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OU:_VariableFunction", const_cast<char**>(names), &kernel, &name)) {
    return nullptr;
  }
  const FastOpEntry* fast = find_fast_op(PyUnicode_AsUTF8(name));
  if (fast == nullptr || fast->inplace) {
    PyErr_Format(PyExc_ValueError, "_VariableFunction: '%U' has no C++ entry", name);
    return nullptr;
  }
  auto* m = reinterpret_cast<VariableMethod*>(type->tp_alloc(type, 0));
  if (m == nullptr) {
    return nullptr;
  }
  m->vectorcall = VariableFunction_vectorcall;
  m->fast = fast;
  for (auto [slot, value] :
       {std::pair{&m->kernel, kernel},
        std::pair{&m->name, name},
        std::pair{&m->schemas, Py_None},
        std::pair{&m->rebind, Py_None},
        std::pair{&m->errors, Py_None}}) {
    Py_INCREF(value);
    *slot = value;
  }
  return reinterpret_cast<PyObject*>(m);
}

PyObject* VariableFunction_kernel_attr(PyObject* self, void* closure) {
  return PyObject_GetAttrString(reinterpret_cast<VariableMethod*>(self)->kernel, static_cast<const char*>(closure));
}

PyObject* VariableFunction_repr(PyObject* self) {
  return PyUnicode_FromFormat("<built-in function %U>", reinterpret_cast<VariableMethod*>(self)->name);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
PyGetSetDef VariableFunction_getset[] = {
    {"__name__", VariableMethod_name, nullptr, nullptr, nullptr},
    {"__qualname__", VariableMethod_name, nullptr, nullptr, nullptr},
    {"__doc__", VariableMethod_doc, nullptr, nullptr, nullptr},
    {"__module__", VariableFunction_kernel_attr, nullptr, nullptr, const_cast<char*>("__module__")},
    {"_cpp_dispatch", VariableMethod_cpp_dispatch, nullptr, nullptr, nullptr},
    {nullptr},
};

PyTypeObject VariableFunctionType = {PyVarObject_HEAD_INIT(nullptr, 0)};
#pragma GCC diagnostic pop

} // namespace

namespace {

// The slots both types share (a VariableMethod object), then `t` ready and added to `m` as `name`.
void add_type(
    pybind11::module_& m,
    PyTypeObject& t,
    const char* qualified_name,
    const char* name,
    const char* doc,
    unsigned long extra_flags,
    newfunc new_fn,
    PyGetSetDef* getset,
    reprfunc repr) {
  t.tp_name = qualified_name;
  t.tp_doc = doc;
  t.tp_basicsize = sizeof(VariableMethod);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | extra_flags;
  t.tp_new = new_fn;
  t.tp_dealloc = VariableMethod_dealloc;
  t.tp_traverse = VariableMethod_traverse;
  t.tp_clear = VariableMethod_clear;
  t.tp_vectorcall_offset = offsetof(VariableMethod, vectorcall);
  t.tp_call = PyVectorcall_Call;
  t.tp_getset = getset;
  t.tp_members = VariableMethod_members;
  t.tp_repr = repr;
  if (PyType_Ready(&t) < 0) {
    throw pybind11::error_already_set();
  }
  Py_INCREF(&t);
  m.add_object(name, reinterpret_cast<PyObject*>(&t));
}

} // namespace

void initVariableMethodBindings(pybind11::module_& m) {
  VariableMethodType.tp_descr_get = VariableMethod_get;
  add_type(
      m,
      VariableMethodType,
      "torchlite._C._VariableMethod",
      "_VariableMethod",
      "A Tensor method: calls its op's kernel; binds the arguments to the op's signatures "
      "only where the kernel refuses them (torch's argument errors).",
      Py_TPFLAGS_METHOD_DESCRIPTOR,
      VariableMethod_new,
      VariableMethod_getset,
      VariableMethod_repr);
  add_type(
      m,
      VariableFunctionType,
      "torchlite._C._VariableFunction",
      "_VariableFunction",
      "A torchlite.<op> with a C++ entry: tries it, then calls the op's Python function.",
      0,
      VariableFunction_new,
      VariableFunction_getset,
      VariableFunction_repr);
}

} // namespace autograd
} // namespace torch
