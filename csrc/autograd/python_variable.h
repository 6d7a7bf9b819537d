#pragma once
// The Python tensor object (torch/csrc/autograd/python_variable.h): the C type
// torchlite._C.TensorBase, which torchlite.Tensor subclasses in Python. It
// holds an at::Tensor and, once asked for, a numpy view of the same memory.
#include <Python.h>
#include <pybind11/pybind11.h>

#include "aten/Tensor.h"
#include "autograd/function_hook.h"
#include "autograd/variable.h"

#include <memory>
#include <optional>
#include <vector>

namespace torch {
namespace autograd {

// A Python tensor hook registered through this object: the C++ hook in
// cdata's AutogradMeta::hooks_ and the function it calls (borrowed; the hook
// owns it while it lives). Lets tp_traverse find the function (Note
// [PyObject traversal]).
struct PyTensorHookRecord {
  std::weak_ptr<FunctionPreHook> hook;
  const FunctionPreHook* hook_ptr;
  PyObject* fn;
};

struct THPVariable {
  PyObject_HEAD at::Tensor cdata;
  // numpy array over cdata's memory: the array the tensor was made from, or
  // a view made on first use. Never resized, so it always matches cdata.
  PyObject* array;
  // Tensor hooks registered through this object; null until the first.
  std::vector<PyTensorHookRecord>* hooks;
};

extern PyTypeObject THPVariableType;
// torchlite.Tensor, registered by the package at import (_set_tensor_class).
extern PyTypeObject* THPVariableClass;
// torchlite._backend's cupy stream switch, set when cupy is loaded (None
// before): hook(stream_id, device_index) makes that stream cupy's current one
// on the calling thread and returns a callable that restores the previous one.
extern PyObject* THPCudaStreamHook;

inline bool THPVariable_Check(PyObject* obj) {
  return PyObject_TypeCheck(obj, &THPVariableType);
}
inline const at::Tensor& THPVariable_Unpack(PyObject* obj) {
  return reinterpret_cast<THPVariable*>(obj)->cdata;
}
// The Python object of `var` (new reference): the live wrapper recorded in
// the TensorImpl's pyobj slot, or a new torchlite.Tensor. None if undefined.
PyObject* THPVariable_Wrap(at::Tensor var);

void THPVariable_initModule(pybind11::module_& m);

// Records that `fn` is called by `hook`, a hook of `self`'s tensor (GIL held).
void THPVariable_record_hook(PyObject* self, const std::shared_ptr<FunctionPreHook>& hook, PyObject* fn);

// Note [Python objects owned from C++]
// The engine drops tensors, hooks and nodes on whatever thread runs it, mostly
// without the GIL. A Python reference held from C++ therefore lives in a
// SafePyObject (or an owner made by make_pyobject_owner), whose destruction
// takes the GIL. After interpreter finalization began the reference is leaked:
// Python objects can no longer be touched then.
bool python_is_alive();

class SafePyObject {
 public:
  // Takes a new reference; the caller holds the GIL.
  explicit SafePyObject(PyObject* obj) : obj_(obj) {
    Py_XINCREF(obj_);
  }
  SafePyObject(const SafePyObject&) = delete;
  SafePyObject& operator=(const SafePyObject&) = delete;
  ~SafePyObject();
  PyObject* ptr() const noexcept {
    return obj_;
  }

 private:
  PyObject* obj_;
};

// Note [Engine threads at interpreter exit]
// Engine threads (device threads, the reentrant pool) can drop the last C++
// reference to a Python object while the interpreter exits, e.g. a finished
// GraphTask's buffers, freed by a pool thread after the caller got its
// result. A thread that asks for the GIL once finalization has begun is ended
// by Python with pthread_exit, and its forced unwind through a noexcept
// destructor calls std::terminate. So every release of a Python reference
// from C++ takes the GIL through GilForRelease, a gate that the module's
// atexit callback (run with the GIL, before finalization begins) closes: it
// then waits, with the GIL released, for the releases already through it.
// A release after that leaks its object, as one after finalization does.
class GilForRelease {
 public:
  GilForRelease();
  ~GilForRelease();
  GilForRelease(const GilForRelease&) = delete;
  GilForRelease& operator=(const GilForRelease&) = delete;
  // Whether the GIL was taken: false once the interpreter is exiting.
  explicit operator bool() const {
    return gil_.has_value();
  }

 private:
  std::optional<pybind11::gil_scoped_acquire> gil_;
};
// The atexit callback; called with the GIL.
void close_python_release_gate();

// A storage owner that keeps `obj` (an array of `nbytes`) alive; steals the
// reference. See Note [Releasing arrays without the GIL].
std::shared_ptr<void> make_pyobject_owner(PyObject* obj, size_t nbytes);
// Releases the arrays whose release was deferred; the caller holds the GIL.
void release_deferred_pyobjects();

// _wrap(array, base, view=True): a new reference to a tensor over `array`, a
// view of base's memory, sharing its version counter; null with a Python error.
PyObject* THPVariable_wrap_view(PyObject* array, PyObject* base);

// The ScalarType of a numpy dtype object (np.dtype('float32')); false for another object or a
// dtype torchlite lacks.
bool THPDtype_numpy_scalar_type(PyObject* dtype, at::ScalarType* out);

} // namespace autograd
} // namespace torch

// Error translation for functions written against the raw C API (PyTorch's
// HANDLE_TH_ERRORS): a Python error keeps its type and message, pybind11's
// builtin exceptions their type, anything else becomes RuntimeError.
#define HANDLE_TH_ERRORS try {
#define END_HANDLE_TH_ERRORS_RET(retval)           \
  }                                                \
  catch (pybind11::error_already_set & e) {        \
    e.restore();                                   \
    return retval;                                 \
  }                                                \
  catch (const pybind11::builtin_exception& e) {   \
    e.set_error();                                 \
    return retval;                                 \
  }                                                \
  catch (const std::exception& e) {                \
    PyErr_SetString(PyExc_RuntimeError, e.what()); \
    return retval;                                 \
  }
#define END_HANDLE_TH_ERRORS END_HANDLE_TH_ERRORS_RET(nullptr)

namespace pybind11 {
namespace detail {

// at::Tensor <-> torchlite.Tensor for pybind11-bound functions. None loads as
// an undefined tensor and an undefined tensor casts to None.
template <>
struct type_caster<at::Tensor> {
  PYBIND11_TYPE_CASTER(at::Tensor, const_name("torchlite.Tensor"));

  bool load(handle src, bool) {
    if (src.is_none()) {
      value = at::Tensor();
      return true;
    }
    if (!torch::autograd::THPVariable_Check(src.ptr()))
      return false;
    value = torch::autograd::THPVariable_Unpack(src.ptr());
    return true;
  }
  static handle cast(const at::Tensor& src, return_value_policy, handle) {
    return torch::autograd::THPVariable_Wrap(src);
  }
};

} // namespace detail
} // namespace pybind11
