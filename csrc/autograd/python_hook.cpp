#include "autograd/python_hook.h"
#include "autograd/function.h"
#include "autograd/variable.h"

#include <string>

namespace py = pybind11;

namespace torch {
namespace autograd {

namespace {

py::tuple wrap_list(const variable_list& vars) {
  py::tuple t(vars.size());
  for (size_t i = 0; i < vars.size(); ++i) {
    t[i] = py::reinterpret_steal<py::object>(THPVariable_Wrap(vars[i]));
  }
  return t;
}

std::string hook_name(PyObject* fn) {
  if (PyObject_HasAttrString(fn, "__name__")) {
    return py::str(py::handle(fn).attr("__name__")).cast<std::string>();
  }
  return py::str(py::handle(fn)).cast<std::string>();
}

Variable unpack_or_undefined(const py::handle& obj, PyObject* fn) {
  if (obj.is_none())
    return Variable();
  if (!THPVariable_Check(obj.ptr())) {
    throw py::type_error(
        "expected Variable or None (got " + std::string(Py_TYPE(obj.ptr())->tp_name) + ") from hook '" + hook_name(fn) +
        "'");
  }
  return THPVariable_Unpack(obj.ptr());
}

// A hook that returns a tuple replaces `values`; None keeps them.
variable_list replace_values(PyObject* fn, const py::object& res, const variable_list& values) {
  if (res.is_none())
    return values;
  if (!PyTuple_Check(res.ptr()) && !PyList_Check(res.ptr())) {
    throw py::type_error("hook '" + hook_name(fn) + "' should return a tuple of Tensors or None");
  }
  py::sequence seq = py::reinterpret_borrow<py::sequence>(res);
  if (seq.size() != values.size()) {
    throw std::runtime_error(
        "hook '" + hook_name(fn) + "' has returned an incorrect number of values (got " + std::to_string(seq.size()) +
        ", but expected " + std::to_string(values.size()) + ")");
  }
  variable_list out(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = unpack_or_undefined(seq[i], fn);
  return out;
}

py::object call(PyObject* fn, PyObject* const* args, size_t nargs) {
  PyObject* r = PyObject_Vectorcall(fn, args, nargs, nullptr);
  if (!r)
    throw py::error_already_set();
  return py::reinterpret_steal<py::object>(r);
}

} // namespace

variable_list PyFunctionPreHook::operator()(const variable_list& grads) {
  if (slot_->removed.load())
    return grads;
  py::gil_scoped_acquire gil;
  py::tuple args = wrap_list(grads);
  PyObject* argv[] = {args.ptr()};
  return replace_values(slot_->fn.ptr(), call(slot_->fn.ptr(), argv, 1), grads);
}

variable_list PyFunctionPostHook::operator()(const variable_list& outputs, const variable_list& inputs) {
  if (slot_->removed.load())
    return outputs;
  py::gil_scoped_acquire gil;
  py::tuple grad_inputs = wrap_list(outputs);
  py::tuple grad_outputs = wrap_list(inputs);
  PyObject* argv[] = {grad_inputs.ptr(), grad_outputs.ptr()};
  return replace_values(slot_->fn.ptr(), call(slot_->fn.ptr(), argv, 2), outputs);
}

void PyFunctionTensorPostAccGradHooks::operator()(const Variable& tensor) {
  py::gil_scoped_acquire gil;
  py::object t = py::reinterpret_steal<py::object>(THPVariable_Wrap(tensor));
  for (const auto& slot : hooks) {
    if (slot->removed.load())
      continue;
    PyObject* argv[] = {t.ptr()};
    if (!call(slot->fn.ptr(), argv, 1).is_none()) {
      throw std::runtime_error("Tensor post accumulate grad hooks should return None.");
    }
  }
}

Variable call_tensor_hook(PyObject* fn, const Variable& grad) {
  if (!grad.defined())
    return Variable();
  py::gil_scoped_acquire gil;
  py::object g = py::reinterpret_steal<py::object>(THPVariable_Wrap(grad));
  PyObject* argv[] = {g.ptr()};
  Variable res = unpack_or_undefined(call(fn, argv, 1), fn);
  if (res.defined()) {
    if (res.dtype() != grad.dtype()) {
      throw std::runtime_error(
          "hook '" + hook_name(fn) + "' has changed the type of value (was " + grad.toString() + " got " +
          res.toString() + ")");
    }
    if (res.sizes() != grad.sizes()) {
      throw std::runtime_error("hook '" + hook_name(fn) + "' has changed the size of value");
    }
  }
  return res;
}

void initHookBindings(py::module_& m) {
  py::class_<RemovableHandle>(m, "RemovableHandle")
      .def("remove", &RemovableHandle::remove)
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](RemovableHandle& h, py::args) { h.remove(); });

  m.def("_register_tensor_hook", [](py::handle self_obj, py::object fn) {
    if (!THPVariable_Check(self_obj.ptr()))
      throw py::type_error("_register_tensor_hook: expected a Tensor");
    const Variable& self = THPVariable_Unpack(self_obj.ptr());
    if (!self.requires_grad()) {
      throw std::runtime_error("cannot register a hook on a tensor that doesn't require gradient");
    }
    auto holder = std::make_shared<SafePyObject>(fn.ptr());
    const unsigned pos =
        register_hook(self, [holder](const Variable& grad) { return call_tensor_hook(holder->ptr(), grad); });
    // Lets the tensor report the function to the cycle collector (Note [PyObject traversal]).
    const auto& hooks = impl::get_autograd_meta(self)->hooks_;
    if (pos < hooks.size() && hooks[pos])
      THPVariable_record_hook(self_obj.ptr(), hooks[pos], fn.ptr());
    // The handle must not keep the tensor alive.
    std::weak_ptr<at::TensorImpl> weak = self.getIntrusivePtr();
    return RemovableHandle{[weak, pos] {
      if (auto impl = weak.lock())
        remove_hook(Variable(impl), pos);
    }};
  });

  m.def("_register_post_accumulate_grad_hook", [](const Variable& self, py::object fn) {
    if (!self.requires_grad()) {
      throw std::runtime_error("cannot register a hook on a tensor that doesn't require gradient");
    }
    if (self.grad_fn()) {
      throw std::runtime_error("post accumulate grad hooks cannot be registered on non-leaf tensors");
    }
    auto slot = std::make_shared<PyHookSlot>(fn.ptr());
    {
      // The AccumulateGrad node reads the hooks under its mutex on an engine
      // thread (and takes the GIL inside them): take the mutex without the GIL.
      auto acc = impl::try_get_grad_accumulator(self);
      py::gil_scoped_release no_gil;
      std::unique_lock<std::mutex> lock;
      if (acc)
        lock = std::unique_lock<std::mutex>(acc->mutex());
      auto& hooks = impl::post_acc_grad_hooks(self);
      if (!hooks)
        hooks = std::make_unique<PyFunctionTensorPostAccGradHooks>();
      static_cast<PyFunctionTensorPostAccGradHooks*>(hooks.get())->hooks.push_back(slot);
    }
    return RemovableHandle{[slot] { slot->removed = true; }};
  });
}

} // namespace autograd
} // namespace torch
