#include "autograd/python_variable.h"
#include "aten/Functions.h"
#include "autograd/grad_mode.h"
#include "autograd/python_cpp_function.h"
#include "autograd/python_function.h"
#include "autograd/python_hook.h"
#include "c10/core/InferenceMode.h"

#include <pybind11/numpy.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace py = pybind11;

namespace torch {
namespace autograd {

PyTypeObject* THPVariableClass = nullptr;
PyObject* THPCudaStreamHook = nullptr;

bool python_is_alive() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

namespace {
std::atomic<bool> release_gate_closed{false};
std::atomic<int> releases_in_flight{0};
} // namespace

GilForRelease::GilForRelease() {
  releases_in_flight.fetch_add(1);
  if (!release_gate_closed.load() && python_is_alive()) {
    gil_.emplace();
  } else {
    releases_in_flight.fetch_sub(1);
  }
}

GilForRelease::~GilForRelease() {
  if (!gil_)
    return;
  gil_.reset();
  releases_in_flight.fetch_sub(1);
}

void close_python_release_gate() {
  release_gate_closed.store(true);
  py::gil_scoped_release no_gil;
  while (releases_in_flight.load() > 0)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
}

SafePyObject::~SafePyObject() {
  if (!obj_)
    return;
  GilForRelease gil;
  if (gil)
    Py_DECREF(obj_);
}

// Note [Releasing arrays without the GIL]
// The owner of a numpy-backed tensor's memory is the array. An engine worker
// that frees saved tensors node by node, without the GIL, would take the GIL
// once per array, and several backward() calls running at once would queue
// on it. So a thread without the GIL defers the release: the array joins a
// pending list that is released under one GIL acquisition once it holds
// kMaxDeferred arrays or kMaxDeferredBytes; run_backward releases what is
// left as soon as it has the GIL back, and so does every tensor deallocation
// (for arrays freed outside a backward). A thread holding the GIL releases at once.
namespace {
constexpr size_t kMaxDeferred = 64;
constexpr size_t kMaxDeferredBytes = size_t(16) << 20;

struct DeferredPyObjects {
  std::mutex mutex;
  std::vector<PyObject*> objects;
  size_t bytes = 0;
  std::atomic<size_t> count{0}; // objects.size(), readable without the mutex
};
DeferredPyObjects& deferred() {
  static auto* d = new DeferredPyObjects(); // never destroyed: used until exit
  return *d;
}

void decref_all(std::vector<PyObject*>& objects) {
  for (PyObject* o : objects)
    Py_DECREF(o);
  objects.clear();
}
} // namespace

void release_deferred_pyobjects() {
  std::vector<PyObject*> objects;
  {
    auto& d = deferred();
    if (d.count.load(std::memory_order_relaxed) == 0)
      return;
    std::lock_guard<std::mutex> lock(d.mutex);
    objects.swap(d.objects);
    d.bytes = 0;
    d.count = 0;
  }
  decref_all(objects);
}

std::shared_ptr<void> make_pyobject_owner(PyObject* obj, size_t nbytes) {
  return std::shared_ptr<void>(obj, [nbytes](void* p) {
    if (!python_is_alive())
      return;
    auto* o = static_cast<PyObject*>(p);
    if (PyGILState_Check()) {
      Py_DECREF(o);
      return;
    }
    std::vector<PyObject*> full;
    {
      auto& d = deferred();
      std::lock_guard<std::mutex> lock(d.mutex);
      d.objects.push_back(o);
      d.bytes += nbytes;
      d.count = d.objects.size();
      if (d.objects.size() < kMaxDeferred && d.bytes < kMaxDeferredBytes)
        return;
      full.swap(d.objects);
      d.bytes = 0;
      d.count = 0;
    }
    GilForRelease gil;
    if (gil)
      decref_all(full);
  });
}

namespace {

// The storage's array is the memory's only holder: it owns its data (it is
// no view of another array) and only the storage refers to it. Read without
// the GIL: with one reference, held by the caller's storage, no other thread
// can change the count; a stale higher count only makes the answer "no".
bool numpy_owner_is_exclusive(const void* owner) {
  auto* arr = static_cast<PyObject*>(const_cast<void*>(owner));
  return Py_REFCNT(arr) == 1 && (py::detail::array_proxy(arr)->flags & py::detail::npy_api::NPY_ARRAY_OWNDATA_) != 0;
}

// numpy type numbers (stable parts of the numpy C API).
constexpr int NPY_BOOL = 0;
constexpr int NPY_INT8 = 1; // NPY_BYTE
constexpr int NPY_UINT8 = 2; // NPY_UBYTE
constexpr int NPY_INT16 = 3; // NPY_SHORT
constexpr int NPY_INT32 = 5; // NPY_INT
constexpr int NPY_FLOAT16 = 23; // NPY_HALF
constexpr int NPY_INT64 = 7; // NPY_LONG on LP64 platforms
constexpr int NPY_LONGLONG = 9;
constexpr int NPY_FLOAT32 = 11;
constexpr int NPY_FLOAT64 = 12;

int npy_typenum(at::ScalarType t) {
  switch (t) {
    case at::kFloat:
      return NPY_FLOAT32;
    case at::kDouble:
      return NPY_FLOAT64;
    case at::kLong:
      return NPY_INT64;
    case at::kBool:
      return NPY_BOOL;
    case at::kHalf:
      return NPY_FLOAT16;
    case at::kInt:
      return NPY_INT32;
    case at::kShort:
      return NPY_INT16;
    case at::kChar:
      return NPY_INT8;
    case at::kByte:
      return NPY_UINT8;
  }
  throw std::runtime_error("unsupported dtype");
}

bool scalar_type_of(int typenum, at::ScalarType* out) {
  switch (typenum) {
    case NPY_FLOAT32:
      *out = at::kFloat;
      return true;
    case NPY_FLOAT64:
      *out = at::kDouble;
      return true;
    case NPY_INT64:
    case NPY_LONGLONG:
      *out = at::kLong;
      return true;
    case NPY_BOOL:
      *out = at::kBool;
      return true;
    case NPY_FLOAT16:
      *out = at::kHalf;
      return true;
    case NPY_INT32:
      *out = at::kInt;
      return true;
    case NPY_INT16:
      *out = at::kShort;
      return true;
    case NPY_INT8:
      *out = at::kChar;
      return true;
    case NPY_UINT8:
      *out = at::kByte;
      return true;
    default:
      return false;
  }
}

// An ndarray of a supported dtype for `obj`: numpy scalars become 0-d
// arrays; the integer widths torchlite lacks (uint16, uint32, uint64) become
// int64, as torch.from_numpy widens nothing but torchlite supports fewer dtypes.
py::array ensure_supported_array(PyObject* obj) {
  py::array arr = py::array::ensure(py::handle(obj));
  if (!arr)
    throw py::error_already_set();
  at::ScalarType st;
  if (scalar_type_of(arr.dtype().num(), &st))
    return arr;
  const char kind = arr.dtype().kind();
  if (kind == 'i' || kind == 'u')
    return arr.attr("astype")("int64");
  if (kind == 'f')
    return arr.attr("astype")("float32");
  throw py::type_error(
      "can't convert np.ndarray of type " + py::str(arr.dtype().attr("name")).cast<std::string>() +
      ". The only supported types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool.");
}

constexpr const char* kStorageCapsule = "torchlite.StorageImpl";

// The StorageImpl behind an array made over a tensor's memory (array_from_tensor
// or _empty_array): its base, or its base's base..., is our capsule.
std::shared_ptr<at::StorageImpl> storage_of(const py::array& arr) {
  PyObject* base = py::detail::array_proxy(arr.ptr())->base;
  while (base && py::isinstance<py::array>(base))
    base = py::detail::array_proxy(base)->base;
  if (!base || !PyCapsule_IsValid(base, kStorageCapsule))
    return nullptr;
  return *static_cast<std::shared_ptr<at::StorageImpl>*>(PyCapsule_GetPointer(base, kStorageCapsule));
}

// A tensor over the array's memory (zero-copy). When the memory belongs to a
// C++ storage (an op computed into _empty_array) the tensor shares that
// storage, so dropping it never needs the GIL; otherwise it keeps the array
// alive.
at::Tensor tensor_from_array(py::array& arr, c10::Device device) {
  const auto itemsize = static_cast<int64_t>(arr.itemsize());
  for (py::ssize_t d = 0; d < arr.ndim(); ++d) {
    if (arr.strides(d) % itemsize != 0) {
      // Element strides cannot express it: take a contiguous copy.
      arr = py::array::ensure(arr, py::array::c_style);
      break;
    }
  }
  if (arr.size() == 0 && arr.ndim() > 0) {
    // numpy allocates an empty array with zero strides; torch lays an empty
    // tensor out as any other (contiguous), and the offsets and strides of
    // its views (select, slice: _ops/TensorGeometry.py) come from that.
    bool zero_strides = true;
    for (py::ssize_t d = 0; d < arr.ndim(); ++d)
      zero_strides = zero_strides && arr.strides(d) == 0;
    if (zero_strides) {
      std::vector<py::ssize_t> shape(arr.shape(), arr.shape() + arr.ndim());
      std::vector<py::ssize_t> byte_strides(shape.size());
      py::ssize_t step = itemsize;
      for (py::ssize_t d = arr.ndim() - 1; d >= 0; --d) {
        byte_strides[static_cast<size_t>(d)] = step;
        step *= shape[static_cast<size_t>(d)] > 0 ? shape[static_cast<size_t>(d)] : 1;
      }
      arr = py::array(arr.dtype(), shape, byte_strides, arr.data(), arr);
    }
  }
  at::ScalarType st;
  scalar_type_of(arr.dtype().num(), &st);
  std::vector<int64_t> sizes(static_cast<size_t>(arr.ndim()));
  std::vector<int64_t> strides(sizes.size());
  int64_t extent = itemsize;
  bool empty = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    sizes[d] = arr.shape(static_cast<py::ssize_t>(d));
    strides[d] = arr.strides(static_cast<py::ssize_t>(d)) / itemsize;
    if (sizes[d] == 0)
      empty = true;
    extent += (sizes[d] - 1) * std::abs(strides[d]) * itemsize;
  }
  void* data = const_cast<void*>(arr.data());
  auto storage = storage_of(arr);
  if (storage && storage->device() == device) {
    const auto offset = (static_cast<char*>(data) - static_cast<char*>(storage->data())) / itemsize;
    return at::Tensor(std::make_shared<at::TensorImpl>(std::move(storage), st, sizes, strides, offset));
  }
  const bool writeable = arr.writeable();
  auto owner = make_pyobject_owner(py::array(arr).release().ptr(), static_cast<size_t>(arr.nbytes()));
  at::Tensor t = at::from_blob(
      data,
      sizes,
      strides,
      st,
      device,
      std::move(owner),
      empty ? 0 : static_cast<size_t>(extent),
      numpy_owner_is_exclusive);
  if (!writeable)
    t.unsafeGetTensorImpl()->storage()->set_read_only();
  return t;
}

// The tensor a view op makes over `arr`, a numpy view of base's memory: it
// shares base's storage, at the offset arr's data pointer gives (exact for an
// empty view too, whose array torchlite._ops.TensorGeometry places where torch's view
// starts), so storage_offset(), as_strided and the view geometry of autograd
// see torch's storage. An array that is not inside base's storage (or that
// element strides cannot express) gets its own, as a non-view would.
at::Tensor view_from_array(py::array& arr, const at::Tensor& base) {
  const auto itemsize = static_cast<int64_t>(arr.itemsize());
  const auto& storage = base.unsafeGetTensorImpl()->storage();
  std::vector<int64_t> sizes(static_cast<size_t>(arr.ndim()));
  std::vector<int64_t> strides(sizes.size());
  int64_t extent = 1;
  bool empty = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    const auto byte_stride = static_cast<int64_t>(arr.strides(static_cast<py::ssize_t>(d)));
    if (byte_stride < 0 || byte_stride % itemsize != 0)
      return tensor_from_array(arr, base.device());
    sizes[d] = arr.shape(static_cast<py::ssize_t>(d));
    strides[d] = byte_stride / itemsize;
    if (sizes[d] == 0)
      empty = true;
    extent += (sizes[d] - 1) * strides[d];
  }
  const auto byte_offset = static_cast<const char*>(arr.data()) - static_cast<const char*>(storage->data());
  if (byte_offset < 0 || byte_offset % itemsize != 0 ||
      (!empty && byte_offset + extent * itemsize > static_cast<int64_t>(storage->nbytes()))) {
    return tensor_from_array(arr, base.device());
  }
  at::ScalarType st;
  scalar_type_of(arr.dtype().num(), &st);
  return at::Tensor(
      std::make_shared<at::TensorImpl>(storage, st, std::move(sizes), std::move(strides), byte_offset / itemsize));
}

// Note [CUDA arrays]
// A cuda tensor's `_array` is a cupy array over the same device memory, as a
// cpu tensor's is a numpy array. Either the tensor was made from a cupy array
// (or any object with __cuda_array_interface__), which then owns the memory,
// or the memory was allocated in C++ and torchlite._backend's factory, set
// when cupy is first loaded, wraps it in a cupy array that keeps the storage
// alive. Nothing here needs cupy or a GPU: only pointers and shapes pass.
PyObject* cuda_array_factory = nullptr;

bool is_cuda_array(PyObject* obj) {
  return !py::isinstance<py::array>(obj) && PyObject_HasAttrString(obj, "__cuda_array_interface__");
}

bool scalar_type_of_typestr(const std::string& typestr, at::ScalarType* out) {
  if (typestr == "<f4")
    *out = at::kFloat;
  else if (typestr == "<f8")
    *out = at::kDouble;
  else if (typestr == "<i8")
    *out = at::kLong;
  else if (typestr == "|b1")
    *out = at::kBool;
  else if (typestr == "<f2")
    *out = at::kHalf;
  else if (typestr == "<i4")
    *out = at::kInt;
  else if (typestr == "<i2")
    *out = at::kShort;
  else if (typestr == "|i1")
    *out = at::kChar;
  else if (typestr == "|u1")
    *out = at::kByte;
  else
    return false;
  return true;
}

// A tensor over a CUDA array's memory (zero-copy), on cuda:`index`, or on
// the array's device (cupy's `.device.id`) when index is -1.
at::Tensor tensor_from_cuda_array(py::handle obj, c10::DeviceIndex index) {
  py::dict cai = obj.attr("__cuda_array_interface__");
  const std::string typestr = py::str(cai["typestr"]);
  at::ScalarType st;
  if (!scalar_type_of_typestr(typestr, &st)) {
    throw py::type_error(
        "can't convert a CUDA array of type " + typestr +
        ". The only supported types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool.");
  }
  const auto itemsize = static_cast<int64_t>(at::elementSize(st));
  const auto shape = cai["shape"].cast<py::tuple>();
  std::vector<int64_t> sizes;
  for (auto d : shape)
    sizes.push_back(d.cast<int64_t>());
  std::vector<int64_t> strides = at::contiguous_strides(sizes);
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    const auto byte_strides = cai["strides"].cast<py::tuple>();
    for (size_t d = 0; d < strides.size(); ++d) {
      const auto b = byte_strides[d].cast<int64_t>();
      if (b % itemsize != 0)
        throw py::value_error("CUDA array strides must be multiples of the element size");
      strides[d] = b / itemsize;
    }
  }
  int64_t extent = itemsize;
  bool empty = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0)
      empty = true;
    extent += (sizes[d] - 1) * std::abs(strides[d]) * itemsize;
  }
  if (index < 0) {
    index = py::hasattr(obj, "device") ? static_cast<c10::DeviceIndex>(obj.attr("device").attr("id").cast<int>()) : 0;
  }
  auto* data = reinterpret_cast<void*>(cai["data"].cast<py::tuple>()[0].cast<uintptr_t>());
  const size_t nbytes = empty ? 0 : static_cast<size_t>(extent);
  auto owner = make_pyobject_owner(py::reinterpret_borrow<py::object>(obj).release().ptr(), nbytes);
  return at::from_blob(data, sizes, strides, st, c10::Device(c10::DeviceType::CUDA, index), std::move(owner), nbytes);
}

// The cupy array over a cuda tensor's memory (Note [CUDA arrays]).
PyObject* cuda_array_from_tensor(const at::Tensor& t) {
  if (!cuda_array_factory) {
    throw std::runtime_error(
        "torchlite's CUDA tensors are cupy arrays, and cupy is not loaded: "
        "pip install torchlite[cuda]");
  }
  const auto itemsize = static_cast<int64_t>(at::elementSize(t.dtype()));
  py::tuple shape(t.dim()), strides(t.dim());
  for (int64_t d = 0; d < t.dim(); ++d) {
    shape[static_cast<size_t>(d)] = py::int_(t.sizes()[static_cast<size_t>(d)]);
    strides[static_cast<size_t>(d)] = py::int_(t.strides()[static_cast<size_t>(d)] * itemsize);
  }
  const auto& storage = t.unsafeGetTensorImpl()->storage();
  auto* holder = new std::shared_ptr<at::StorageImpl>(storage);
  py::capsule owner(holder, kStorageCapsule, [](void* p) { delete static_cast<std::shared_ptr<at::StorageImpl>*>(p); });
  const auto offset = static_cast<char*>(t.data_ptr()) - static_cast<char*>(storage->data());
  py::object arr = py::reinterpret_borrow<py::object>(cuda_array_factory)(
      reinterpret_cast<uintptr_t>(storage->data()),
      storage->nbytes(),
      offset,
      shape,
      strides,
      py::dtype(npy_typenum(t.dtype())),
      static_cast<int>(t.device().index()),
      owner);
  return arr.release().ptr();
}

// A numpy view of the tensor's memory that keeps its storage alive (a cupy
// one for a cuda tensor).
PyObject* array_from_tensor(const at::Tensor& t) {
  if (t.is_cuda())
    return cuda_array_from_tensor(t);
  const auto itemsize = static_cast<py::ssize_t>(at::elementSize(t.dtype()));
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end());
  std::vector<py::ssize_t> strides(t.strides().begin(), t.strides().end());
  for (auto& s : strides)
    s *= itemsize;
  auto* storage = new std::shared_ptr<at::StorageImpl>(t.unsafeGetTensorImpl()->storage());
  const bool read_only = (*storage)->read_only();
  py::capsule base(storage, kStorageCapsule, [](void* p) { delete static_cast<std::shared_ptr<at::StorageImpl>*>(p); });
  py::array arr(py::dtype(npy_typenum(t.dtype())), shape, strides, t.data_ptr(), base);
  if (read_only) // Note [Read-only numpy memory]: a view of it is read-only too, as numpy's own views
    py::detail::array_proxy(arr.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return arr.release().ptr();
}

PyObject* THPVariable_NewWithVar(PyTypeObject* type, at::Tensor var, PyObject* array) {
  PyObject* obj = type->tp_alloc(type, 0);
  if (!obj)
    throw py::error_already_set();
  auto* v = reinterpret_cast<THPVariable*>(obj);
  new (&v->cdata) at::Tensor(std::move(var));
  Py_XINCREF(array);
  v->array = array;
  v->hooks = nullptr;
  v->cdata.unsafeGetTensorImpl()->set_pyobj(obj);
  return obj;
}

PyObject* wrap_new(at::Tensor var, PyObject* array) {
  return THPVariable_NewWithVar(THPVariableClass ? THPVariableClass : &THPVariableType, std::move(var), array);
}

// Note [PyObject traversal]
// Python's cycle collector sees a reference only if the object holding it
// reports it from tp_traverse. A tensor's history holds Python objects from
// C++: a custom Function's ctx (owned by its PyNode, the grad_fn of the
// outputs), hook functions, objects packed by saved_tensors_hooks. A cycle
// through them (ctx.keep = output; a hook whose closure holds its tensor)
// was invisible, so it leaked. As upstream (THPVariable_subclass_traverse),
// a tensor reports what it reaches through C++ only where it owns that path
// alone: the TensorImpl only if this object holds its one reference, the
// grad_fn only if the TensorImpl holds its one reference, and each Python
// object only if the C++ holder in between has no other owner (a hook
// function not also held by its handle). Anything shared with the rest of a
// graph, a running backward or another tensor is reachable from outside the
// cycle, so it is not reported and the collector keeps it. Counts are read
// with the GIL held; an engine thread reaches these objects only through a
// reference it owns (a locked weak one included), which makes a count larger,
// and tp_clear only drops this object's own reference, so nothing another
// owner holds is freed under it, as upstream (THPVariable_subclass_traverse,
// torch/csrc/autograd/python_variable.cpp). The ctx
// reports what it owns itself (its attributes and packed saved tensors,
// THPFunction_traverse); it holds its node weakly, so never the node's.
// tp_clear breaks a collected cycle: the tensor drops its history and keeps a
// plain tensor over the same memory, so the object stays valid.
int THPVariable_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* v = reinterpret_cast<THPVariable*>(self);
  const at::Tensor& var = v->cdata;
  if (!var.defined() || var.use_count() != 1)
    return 0;
  auto* meta = impl::get_autograd_meta(var);
  if (!meta)
    return 0;
  if (v->hooks) {
    for (const auto& record : *v->hooks) {
      // Owned by hooks_ alone: not removed (a removed hook may still sit in
      // a node's hook list) and attached to no node.
      if (record.hook.use_count() != 1)
        continue;
      for (const auto& hook : meta->hooks_) {
        if (hook.get() == record.hook_ptr)
          Py_VISIT(record.fn);
      }
    }
  }
  const auto& fn = meta->grad_fn_;
  if (!fn || fn.use_count() != 1)
    return 0;
  if (auto* py_node = dynamic_cast<PyNode*>(fn.get())) {
    Py_VISIT(py_node->obj());
  } else if (auto* formula = dynamic_cast<PyFormulaNode*>(fn.get())) {
    for (PyObject* value : formula->values_)
      Py_VISIT(value);
    for (PyObject* packed : formula->packed_)
      Py_VISIT(packed);
  }
  const auto hooks = fn->hooks();
  if (!hooks)
    return 0;
  for (const auto& hook : hooks->pre_hooks) {
    auto* py_hook = dynamic_cast<PyFunctionPreHook*>(hook.get());
    if (py_hook && py_hook->slot().use_count() == 1)
      Py_VISIT(py_hook->slot()->fn.ptr());
  }
  for (const auto& hook : hooks->post_hooks) {
    auto* py_hook = dynamic_cast<PyFunctionPostHook*>(hook.get());
    if (py_hook && py_hook->slot().use_count() == 1)
      Py_VISIT(py_hook->slot()->fn.ptr());
  }
  return 0;
}

int THPVariable_clear(PyObject* self) {
  auto* v = reinterpret_cast<THPVariable*>(self);
  delete v->hooks;
  v->hooks = nullptr;
  at::Tensor& var = v->cdata;
  // Only what traverse reported is ours to break: a shared TensorImpl keeps
  // its history for its other owners.
  if (!var.defined() || var.use_count() != 1 || !impl::get_autograd_meta(var))
    return 0;
  at::Tensor plain = var.detach();
  var.unsafeGetTensorImpl()->set_pyobj(nullptr);
  var = std::move(plain); // frees the history; the collector holds a reference to self meanwhile
  var.unsafeGetTensorImpl()->set_pyobj(self);
  return 0;
}

void THPVariable_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  auto* v = reinterpret_cast<THPVariable*>(self);
  if (v->cdata.defined() && v->cdata.unsafeGetTensorImpl()->pyobj() == self) {
    v->cdata.unsafeGetTensorImpl()->set_pyobj(nullptr);
  }
  Py_CLEAR(v->array);
  delete v->hooks;
  // May free a whole graph; nodes holding Python objects take the GIL,
  // which this thread already holds.
  v->cdata.~Tensor();
  Py_TYPE(self)->tp_free(self);
  release_deferred_pyobjects();
}

PyObject* THPVariable_new(PyTypeObject*, PyObject*, PyObject*) {
  PyErr_SetString(
      PyExc_TypeError,
      "torchlite.Tensor cannot be constructed directly; use torchlite.tensor(), "
      "torchlite.from_numpy() or a factory function");
  return nullptr;
}

THPVariable* self_var(PyObject* self) {
  return reinterpret_cast<THPVariable*>(self);
}

// Getters and setters ----------------------------------------------------------

PyObject* get_array(PyObject* self, void*) {
  HANDLE_TH_ERRORS
  auto* v = self_var(self);
  if (!v->array)
    v->array = array_from_tensor(v->cdata);
  Py_INCREF(v->array);
  return v->array;
  END_HANDLE_TH_ERRORS
}

PyObject* get_requires_grad(PyObject* self, void*) {
  return PyBool_FromLong(self_var(self)->cdata.requires_grad());
}

int set_requires_grad(PyObject* self, PyObject* obj, void*) {
  HANDLE_TH_ERRORS
  if (!obj || !PyBool_Check(obj))
    throw py::type_error("requires_grad must be a bool");
  auto& var = self_var(self)->cdata;
  const bool requires_grad = obj == Py_True;
  if (!var.is_leaf()) {
    std::string msg = "you can only change requires_grad flags of leaf variables.";
    if (!requires_grad) {
      msg +=
          " If you want to use a computed variable in a subgraph that doesn't require "
          "differentiation use var_no_grad = var.detach().";
    }
    throw std::runtime_error(msg);
  }
  if (requires_grad && !at::isDifferentiableType(var.scalar_type())) {
    throw std::runtime_error("only Tensors of floating point and complex dtype can require gradients");
  }
  if (requires_grad && var.unsafeGetTensorImpl()->is_inference() && !c10::InferenceMode::is_enabled()) {
    throw std::runtime_error("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
  }
  var.set_requires_grad(requires_grad);
  return 0;
  END_HANDLE_TH_ERRORS_RET(-1)
}

PyObject* get_grad(PyObject* self, void*) {
  HANDLE_TH_ERRORS
  return THPVariable_Wrap(self_var(self)->cdata.grad());
  END_HANDLE_TH_ERRORS
}

int set_grad(PyObject* self, PyObject* obj, void*) {
  HANDLE_TH_ERRORS
  auto& var = self_var(self)->cdata;
  if (!obj || obj == Py_None) {
    if (var.grad().defined())
      var.mutable_grad().reset();
    return 0;
  }
  if (!THPVariable_Check(obj)) {
    throw py::type_error(
        std::string("assigned grad expected to be a Tensor or None but got grad of type ") + Py_TYPE(obj)->tp_name);
  }
  if (obj == self)
    throw std::runtime_error("can't assign Variable as its own grad");
  const auto& grad = THPVariable_Unpack(obj);
  if (grad.dtype() != var.dtype())
    throw std::runtime_error("assigned grad has data of a different type");
  if (grad.device() != var.device()) {
    throw std::runtime_error("assigned grad has data located on a different device");
  }
  if (grad.sizes() != var.sizes())
    throw std::runtime_error("assigned grad has data of a different size");
  var.mutable_grad() = grad;
  return 0;
  END_HANDLE_TH_ERRORS_RET(-1)
}

PyObject* get_grad_fn(PyObject* self, void*) {
  HANDLE_TH_ERRORS
  return functionToPyObject(self_var(self)->cdata.grad_fn());
  END_HANDLE_TH_ERRORS
}

PyObject* get_is_leaf(PyObject* self, void*) {
  HANDLE_TH_ERRORS
  return PyBool_FromLong(!self_var(self)->cdata.grad_fn());
  END_HANDLE_TH_ERRORS
}

PyObject* get_version(PyObject* self, void*) {
  HANDLE_TH_ERRORS
  const auto& var = self_var(self)->cdata;
  if (!impl::version_counter(var)->enabled()) {
    throw std::runtime_error("Inference tensors do not track version counter.");
  }
  return PyLong_FromLongLong(var._version());
  END_HANDLE_TH_ERRORS
}

PyObject* get_is_inference(PyObject* self, PyObject*) {
  return PyBool_FromLong(self_var(self)->cdata.unsafeGetTensorImpl()->is_inference());
}

PyObject* get_output_nr(PyObject* self, void*) {
  HANDLE_TH_ERRORS
  return PyLong_FromUnsignedLong(self_var(self)->cdata.output_nr());
  END_HANDLE_TH_ERRORS
}

PyObject* get_retains_grad(PyObject* self, void*) {
  HANDLE_TH_ERRORS
  return PyBool_FromLong(self_var(self)->cdata.retains_grad());
  END_HANDLE_TH_ERRORS
}

PyObject* get_device_str(PyObject* self, void*) {
  HANDLE_TH_ERRORS
  return py::str(self_var(self)->cdata.device().str()).release().ptr();
  END_HANDLE_TH_ERRORS
}

// Methods ----------------------------------------------------------------------

PyObject* THPVariable_retain_grad(PyObject* self, PyObject*) {
  HANDLE_TH_ERRORS
  self_var(self)->cdata.retain_grad();
  Py_RETURN_NONE;
  END_HANDLE_TH_ERRORS
}

// A tensor made in inference mode, or a view of an inference tensor: an
// inference tensor, whose version counter is disabled.
void make_inference(const at::Tensor& t) {
  t.unsafeGetTensorImpl()->set_inference(true);
  impl::set_version_counter(t, std::make_shared<at::VersionCounter>(false));
}

// An inference tensor's detach (or .data), as upstream's shallow_copy_and_detach
// makes it: still an inference tensor, with a fresh version counter made
// outside inference mode and none inside, so `t.detach().add_(1)` outside
// inference mode is allowed where `t.add_(1)` is not.
void detach_inference(const Variable& detached) {
  detached.unsafeGetTensorImpl()->set_inference(true);
  impl::set_version_counter(detached, std::make_shared<at::VersionCounter>(!c10::InferenceMode::is_enabled()));
}

PyObject* THPVariable_detach(PyObject* self, PyObject*) {
  HANDLE_TH_ERRORS
  auto* v = self_var(self);
  auto detached = v->cdata.detach();
  if (v->cdata.unsafeGetTensorImpl()->is_inference())
    detach_inference(detached);
  return wrap_new(std::move(detached), v->array);
  END_HANDLE_TH_ERRORS
}

PyObject* THPVariable_detach_(PyObject* self, PyObject*) {
  HANDLE_TH_ERRORS
  auto& var = self_var(self)->cdata;
  if (impl::get_autograd_meta(var)) {
    impl::set_gradient_edge(var, Edge());
    var.set_requires_grad(false);
  }
  Py_INCREF(self);
  return self;
  END_HANDLE_TH_ERRORS
}

// .data: same storage, no history, and its own version counter (changes
// through .data are invisible to autograd, as in PyTorch).
PyObject* THPVariable_get_data(PyObject* self, void*) {
  HANDLE_TH_ERRORS
  auto* v = self_var(self);
  auto data = make_variable(v->cdata, false);
  if (v->cdata.unsafeGetTensorImpl()->is_inference()) {
    detach_inference(data);
  } else {
    impl::set_version_counter(data, std::make_shared<at::VersionCounter>());
  }
  return wrap_new(std::move(data), v->array);
  END_HANDLE_TH_ERRORS
}

// `x.data = t` (VariableHooks::set_data): x takes t's storage and metadata and
// keeps its version counter and history; its gradient accumulator is dropped
// where the dtype or device changes. x's array becomes t's.
int THPVariable_set_data(PyObject* self, PyObject* data, void*) {
  HANDLE_TH_ERRORS
  if (!data)
    throw py::type_error("can't delete the data of a tensor");
  if (!THPVariable_Check(data)) {
    throw py::type_error(std::string("Variable data has to be a tensor, but got ") + Py_TYPE(data)->tp_name);
  }
  auto* v = self_var(self);
  const auto& var = v->cdata;
  const auto& new_data = THPVariable_Unpack(data);
  if (var.requires_grad() && !at::isDifferentiableType(new_data.dtype())) {
    throw std::runtime_error("data set to a tensor that requires gradients must be floating point or complex dtype");
  }
  if (auto* meta = impl::get_autograd_meta(var)) {
    std::lock_guard<std::mutex> lock(meta->mutex_);
    auto prior_accumulator = meta->grad_accumulator_.lock();
    if (prior_accumulator &&
        (new_data.dtype() != var.dtype() || prior_accumulator->input_metadata(0).device() != new_data.device())) {
      meta->grad_accumulator_.reset();
    }
  }
  var.unsafeGetTensorImpl()->shallow_copy_from(*new_data.unsafeGetTensorImpl());
  PyObject* array = get_array(data, nullptr);
  if (!array)
    return -1;
  Py_XSETREF(v->array, array);
  return 0;
  END_HANDLE_TH_ERRORS_RET(-1)
}

PyObject* THPVariable_storage_offset(PyObject* self, PyObject*) {
  return PyLong_FromLongLong(self_var(self)->cdata.unsafeGetTensorImpl()->storage_offset());
}

// The size in bytes of the storage under the tensor (torch's
// untyped_storage().nbytes()), which bounds as_strided.
PyObject* THPVariable_storage_nbytes(PyObject* self, PyObject*) {
  return PyLong_FromSize_t(self_var(self)->cdata.unsafeGetTensorImpl()->storage()->nbytes());
}

// The version bump of an in-place op, after its kernel wrote (as upstream's
// VariableVersion::bump): a disabled counter (an inference tensor's) counts
// nothing, and outside inference mode its tensor may not be modified in place.
PyObject* THPVariable_bump_version(PyObject* self, PyObject*) {
  HANDLE_TH_ERRORS
  const auto& var = self_var(self)->cdata;
  if (!impl::version_counter(var)->enabled()) {
    if (!c10::InferenceMode::is_enabled()) {
      throw std::runtime_error(
          "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
          "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.");
    }
    Py_RETURN_NONE;
  }
  impl::bump_version(var);
  Py_RETURN_NONE;
  END_HANDLE_TH_ERRORS
}

PyGetSetDef THPVariable_properties[] = {
    {"_array", get_array, nullptr, nullptr, nullptr},
    {"requires_grad", get_requires_grad, set_requires_grad, nullptr, nullptr},
    {"grad", get_grad, set_grad, nullptr, nullptr},
    {"grad_fn", get_grad_fn, nullptr, nullptr, nullptr},
    {"is_leaf", get_is_leaf, nullptr, nullptr, nullptr},
    {"_version", get_version, nullptr, nullptr, nullptr},
    {"output_nr", get_output_nr, nullptr, nullptr, nullptr},
    {"retains_grad", get_retains_grad, nullptr, nullptr, nullptr},
    {"_device_str", get_device_str, nullptr, nullptr, nullptr},
    {"_data", THPVariable_get_data, THPVariable_set_data, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMethodDef THPVariable_methods[] = {
    {"retain_grad", THPVariable_retain_grad, METH_NOARGS, nullptr},
    {"detach", THPVariable_detach, METH_NOARGS, nullptr},
    {"detach_", THPVariable_detach_, METH_NOARGS, nullptr},
    {"_bump_version", THPVariable_bump_version, METH_NOARGS, nullptr},
    {"storage_offset", THPVariable_storage_offset, METH_NOARGS, nullptr},
    {"_storage_nbytes", THPVariable_storage_nbytes, METH_NOARGS, nullptr},
    {"is_inference", get_is_inference, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

// _wrap(array, like=None, view=False): the hot path of every op. Makes a
// tensor over `array` (zero-copy) on like's device; a view shares like's
// version counter, so in-place changes through either are detected.
PyObject* THPVariable_wrap_array(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (nargs < 1 || nargs > 3)
    throw py::type_error("_wrap(array, like=None, view=False)");
  PyObject* like = nargs >= 2 && args[1] != Py_None ? args[1] : nullptr;
  const bool view = nargs == 3 && PyObject_IsTrue(args[2]);
  if (like && !THPVariable_Check(like))
    throw py::type_error("_wrap: like must be a Tensor");
  const c10::Device device = like ? THPVariable_Unpack(like).device() : c10::Device();
  py::object arr;
  at::Tensor t;
  if (is_cuda_array(args[0])) {
    // a cupy view gets its own storage (owned by the view array), sharing the memory
    arr = py::reinterpret_borrow<py::object>(args[0]);
    t = tensor_from_cuda_array(arr, device.is_cuda() ? device.index() : -1);
  } else {
    // Host memory is never labelled cuda, whatever `like` is.
    py::array host = ensure_supported_array(args[0]);
    const c10::Device host_device = device.is_cuda() ? c10::Device() : device;
    t = view && !device.is_cuda() ? view_from_array(host, THPVariable_Unpack(like))
                                  : tensor_from_array(host, host_device);
    arr = std::move(host);
  }
  if (view && !THPVariable_Unpack(like).unsafeGetTensorImpl()->is_inference()) {
    // a view of a normal tensor is normal, and shares its version counter
    impl::set_version_counter(t, impl::version_counter(THPVariable_Unpack(like)));
  } else if (view || c10::InferenceMode::is_enabled()) {
    // a view of an inference tensor is one, with no version counter even where
    // its base (a detach) has one
    make_inference(t);
  }
  return wrap_new(std::move(t), arr.ptr());
  END_HANDLE_TH_ERRORS
}

// _empty_array(shape, dtype, like=None): an uninitialised array over a new
// C++ storage on like's (host) device, for an op to compute into with out=.
// The tensor _wrap then makes shares the storage, so the engine frees it
// without the GIL (Note [Releasing arrays without the GIL]).
PyObject* THPVariable_empty_array(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (nargs < 2 || nargs > 3)
    throw py::type_error("_empty_array(shape, dtype, like=None)");
  std::vector<int64_t> sizes;
  for (auto d : py::reinterpret_borrow<py::tuple>(args[0]))
    sizes.push_back(d.cast<int64_t>());
  at::ScalarType st;
  if (!scalar_type_of(py::dtype::from_args(py::reinterpret_borrow<py::object>(args[1])).num(), &st)) {
    throw py::type_error("_empty_array: unsupported dtype");
  }
  PyObject* like = nargs == 3 && args[2] != Py_None ? args[2] : nullptr;
  const c10::Device device = like ? THPVariable_Unpack(like).device() : c10::Device();
  return array_from_tensor(at::empty(sizes, st, device));
  END_HANDLE_TH_ERRORS
}

// _fresh_version_counter(t): t counts its versions on its own from 0 (unsafe_split's pieces,
// ATen/native/TensorShape.cpp, which split makes as views of one storage).
PyObject* THPVariable_fresh_version_counter(PyObject*, PyObject* arg) {
  HANDLE_TH_ERRORS
  if (!THPVariable_Check(arg))
    throw py::type_error("_fresh_version_counter expects a Tensor");
  impl::set_version_counter(THPVariable_Unpack(arg), std::make_shared<at::VersionCounter>());
  Py_RETURN_NONE;
  END_HANDLE_TH_ERRORS
}

PyObject* THPVariable_set_tensor_class(PyObject*, PyObject* cls) {
  if (!PyType_Check(cls) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &THPVariableType)) {
    PyErr_SetString(PyExc_TypeError, "_set_tensor_class expects a subclass of TensorBase");
    return nullptr;
  }
  Py_INCREF(cls);
  Py_XDECREF(reinterpret_cast<PyObject*>(THPVariableClass));
  THPVariableClass = reinterpret_cast<PyTypeObject*>(cls);
  Py_RETURN_NONE;
}

PyMethodDef module_methods[] = {
    {"_wrap",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(THPVariable_wrap_array)),
     METH_FASTCALL,
     nullptr},
    {"_set_tensor_class", THPVariable_set_tensor_class, METH_O, nullptr},
    {"_fresh_version_counter", THPVariable_fresh_version_counter, METH_O, nullptr},
    {"_empty_array",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(THPVariable_empty_array)),
     METH_FASTCALL,
     nullptr},
    {nullptr, nullptr, 0, nullptr}};

} // namespace

PyObject* THPVariable_wrap_view(PyObject* array, PyObject* base) {
  PyObject* args[] = {array, base, Py_True};
  return THPVariable_wrap_array(nullptr, args, 3);
}

// Filled in by THPVariable_initModule; only the object header is set here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
PyTypeObject THPVariableType = {PyVarObject_HEAD_INIT(nullptr, 0)};
#pragma GCC diagnostic pop

PyObject* THPVariable_Wrap(at::Tensor var) {
  if (!var.defined())
    Py_RETURN_NONE;
  if (auto* obj = static_cast<PyObject*>(var.unsafeGetTensorImpl()->pyobj())) {
    Py_INCREF(obj);
    return obj;
  }
  return wrap_new(std::move(var), nullptr);
}

void THPVariable_record_hook(PyObject* self, const std::shared_ptr<FunctionPreHook>& hook, PyObject* fn) {
  auto* v = reinterpret_cast<THPVariable*>(self);
  if (!v->hooks)
    v->hooks = new std::vector<PyTensorHookRecord>();
  auto& records = *v->hooks;
  records.erase(
      std::remove_if(records.begin(), records.end(), [](const PyTensorHookRecord& r) { return r.hook.expired(); }),
      records.end());
  records.push_back(PyTensorHookRecord{hook, hook.get(), fn});
}

void THPVariable_initModule(py::module_& m) {
  py::module_::import("numpy");
  auto& t = THPVariableType;
  t.tp_name = "torchlite._C.TensorBase";
  t.tp_basicsize = sizeof(THPVariable);
  t.tp_dealloc = THPVariable_dealloc;
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC;
  t.tp_traverse = THPVariable_traverse;
  t.tp_clear = THPVariable_clear;
  t.tp_free = PyObject_GC_Del;
  t.tp_getset = THPVariable_properties;
  t.tp_methods = THPVariable_methods;
  t.tp_new = THPVariable_new;
  if (PyType_Ready(&t) < 0)
    throw py::error_already_set();
  Py_INCREF(&t);
  m.add_object("TensorBase", reinterpret_cast<PyObject*>(&t));
  if (PyModule_AddFunctions(m.ptr(), module_methods) < 0)
    throw py::error_already_set();

  m.def("_tensor_from_parts", [](py::object array, bool requires_grad) {
    // A leaf tensor over `array` (torchlite.tensor / from_numpy; a cupy array
    // for a cuda tensor).
    py::object arr = array;
    at::Tensor t;
    if (is_cuda_array(array.ptr())) {
      t = tensor_from_cuda_array(array, -1);
    } else {
      py::array host = ensure_supported_array(array.ptr());
      t = tensor_from_array(host, c10::Device());
      arr = std::move(host);
    }
    if (c10::InferenceMode::is_enabled())
      make_inference(t);
    if (requires_grad) {
      if (!at::isDifferentiableType(t.dtype())) {
        throw std::runtime_error("Only Tensors of floating point and complex dtype can require gradients");
      }
      t.set_requires_grad(true);
    }
    return py::reinterpret_steal<py::object>(wrap_new(std::move(t), arr.ptr()));
  });
  m.def("_set_inference_mode", [](bool enabled) { c10::InferenceMode::set_enabled(enabled); });
  m.def("_is_inference_mode_enabled", [] { return c10::InferenceMode::is_enabled(); });
  m.def("_set_cuda_array_factory", [](py::object fn) {
    // torchlite._backend's maker of cupy arrays over C++ memory (Note [CUDA arrays]).
    Py_XDECREF(cuda_array_factory);
    cuda_array_factory = fn.is_none() ? nullptr : fn.release().ptr();
  });
  m.def("_set_cuda_stream_hook", [](py::object fn) {
    Py_XDECREF(THPCudaStreamHook);
    THPCudaStreamHook = fn.is_none() ? nullptr : fn.release().ptr();
  });
  m.def("_to_device", [](const at::Tensor& self, const std::string& device) {
    // A copy on another host-memory device (cpu <-> sim:N), as torch's .to(device).
    c10::Device d(device);
    if (d.is_cuda())
      throw std::runtime_error("Torch not compiled with CUDA enabled");
    return at::to(self, d);
  });
}

bool THPDtype_numpy_scalar_type(PyObject* dtype, at::ScalarType* out) {
  if (!py::isinstance<py::dtype>(dtype))
    return false;
  return scalar_type_of(py::reinterpret_borrow<py::dtype>(dtype).num(), out);
}

} // namespace autograd
} // namespace torch
