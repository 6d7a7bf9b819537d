// The tensor handle, its native kernels and the c10 device layer.
#include "test_utils.h"

#include "c10/core/DeviceGuard.h"
#include "c10/core/Event.h"
#include "c10/core/impl/FakeGuardImpl.h"
#include "c10/core/impl/SizesAndStrides.h"
#include "c10/util/SmallVector.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>

using namespace torchlite_test;

TEST(Device, ParsesAndPrints) {
  EXPECT_EQ(c10::Device("cpu").type(), c10::DeviceType::CPU);
  EXPECT_EQ(c10::Device("cuda:1").index(), 1);
  EXPECT_EQ(c10::Device("sim:0").str(), "sim:0");
  EXPECT_EQ(c10::Device("cuda").str(), "cuda");
  EXPECT_THROW(c10::Device("tpu:0"), std::runtime_error);
  EXPECT_THROW(c10::Device("cuda:x"), std::runtime_error);
}

TEST(ArrayRef, ViewsVectorsListsAndOneElement) {
  const std::vector<int64_t> v{4, 5, 6};
  c10::IntArrayRef r(v);
  EXPECT_EQ(r.size(), 3u);
  EXPECT_EQ(r.data(), v.data());
  EXPECT_EQ(r, v);
  EXPECT_EQ(r.vec(), v);
  EXPECT_EQ(r.back(), 6);
  EXPECT_THROW(r.at(3), std::out_of_range);
  const auto sum = [](c10::IntArrayRef a) {
    int64_t s = 0;
    for (auto x : a)
      s += x;
    return s;
  };
  EXPECT_EQ(sum({1, 2, 3}), 6);
  EXPECT_EQ(sum(7), 7);
  EXPECT_EQ(sum({}), 0);
  EXPECT_NE(r, c10::IntArrayRef({4, 5}));
}

TEST(SizesAndStrides, InlineUpToFiveDimensionsThenOneBlock) {
  for (size_t dims : {0u, 1u, 5u, 6u, 9u}) {
    std::vector<int64_t> sizes(dims), strides(dims);
    for (size_t i = 0; i < dims; ++i) {
      sizes[i] = static_cast<int64_t>(i + 2);
      strides[i] = static_cast<int64_t>(100 - i);
    }
    c10::impl::SizesAndStrides ss(sizes, strides);
    EXPECT_EQ(ss.size(), dims);
    EXPECT_EQ(ss.sizes_arrayref(), sizes);
    EXPECT_EQ(ss.strides_arrayref(), strides);
    c10::impl::SizesAndStrides copy(ss);
    EXPECT_EQ(copy.sizes_arrayref(), sizes);
    EXPECT_EQ(copy.strides_arrayref(), strides);
    // assigning across the inline/out-of-line boundary both ways
    c10::impl::SizesAndStrides other(std::vector<int64_t>(7, 3), std::vector<int64_t>(7, 1));
    other = ss;
    EXPECT_EQ(other.sizes_arrayref(), sizes);
    EXPECT_EQ(other.strides_arrayref(), strides);
    c10::impl::SizesAndStrides small(std::vector<int64_t>{8}, std::vector<int64_t>{1});
    small = copy;
    EXPECT_EQ(small.strides_arrayref(), strides);
  }
  // a tensor's metadata, through the TensorImpl
  auto t = at::empty({2, 3, 4, 5, 6, 7}, at::kFloat);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{2520, 840, 210, 42, 7, 1}));
  EXPECT_TRUE(t.unsafeGetTensorImpl()->is_contiguous());
}

TEST(SmallVector, GrowsPastItsInlineElementsAndMoves) {
  c10::SmallVector<std::string, 1> v;
  v.emplace_back("first");
  v.push_back(v[0]); // an element of itself, while growing
  v.emplace_back(3, 'x');
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[1], "first");
  EXPECT_EQ(v.at(2), "xxx");
  c10::SmallVector<std::string, 1> moved(std::move(v));
  EXPECT_EQ(moved.size(), 3u);
  EXPECT_TRUE(v.empty()); // NOLINT(bugprone-use-after-move): moved-from is empty, as documented
  c10::SmallVector<std::string, 1> one;
  one.emplace_back("only");
  c10::SmallVector<std::string, 1> inline_moved(std::move(one));
  EXPECT_EQ(inline_moved.at(0), "only");
  moved = inline_moved;
  EXPECT_EQ(moved.size(), 1u);
  EXPECT_THROW(moved.at(1), std::out_of_range);
  auto shared = std::make_shared<int>(1);
  {
    c10::SmallVector<std::shared_ptr<int>, 2> owners;
    for (int i = 0; i < 5; ++i)
      owners.push_back(shared);
    EXPECT_EQ(shared.use_count(), 6);
  }
  EXPECT_EQ(shared.use_count(), 1); // every element destroyed, inline or not
  c10::SmallVector<std::shared_ptr<int>, 1> slots;
  slots.resize(3); // value-initialized, past the inline element
  EXPECT_EQ(slots.size(), 3u);
  EXPECT_EQ(slots[2], nullptr);
  slots[1] = shared;
  slots.resize(1); // destroys the dropped elements
  EXPECT_EQ(shared.use_count(), 1);
  c10::SmallVector<int64_t, 5> dims(c10::IntArrayRef({1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(c10::IntArrayRef(dims), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(Tensor, FactoriesAndItem) {
  auto t = at::full({2, 3}, 2.5, at::kDouble);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(vals(t), std::vector<double>(6, 2.5));
  EXPECT_DOUBLE_EQ(at::ones({}, at::kFloat).item(), 1.0);
  EXPECT_THROW(t.item(), std::runtime_error);
  EXPECT_EQ(t.toString(), "torch.DoubleTensor");
}

TEST(Tensor, AddChecksShapesAndDevices) {
  auto a = value({1, 2, 3});
  auto b = value({10, 20, 30});
  EXPECT_EQ(vals(at::add(a, b)), (std::vector<double>{11, 22, 33}));
  EXPECT_THROW(at::add(a, value({1, 2})), std::runtime_error);
  EXPECT_THROW(at::add(a, value({1, 2, 3}, {}, at::kFloat, c10::Device("sim:0"))), std::runtime_error);
}

TEST(Tensor, InPlaceAddBumpsVersion) {
  auto a = value({1, 2});
  const auto v0 = a._version();
  a.add_(value({1, 1}));
  EXPECT_EQ(a._version(), v0 + 1);
  EXPECT_EQ(vals(a), (std::vector<double>{2, 3}));
  a.zero_();
  EXPECT_EQ(a._version(), v0 + 2);
  EXPECT_EQ(vals(a), (std::vector<double>{0, 0}));
}

TEST(Tensor, SumToReducesBroadcastDimensions) {
  // [2, 3] summed to [3] (leading dim) and to [2, 1] (kept size-1 dim).
  auto g = value({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(vals(at::sum_to(g, {3})), (std::vector<double>{5, 7, 9}));
  EXPECT_EQ(vals(at::sum_to(g, {2, 1})), (std::vector<double>{6, 15}));
  EXPECT_EQ(vals(at::sum_to(g, {})), (std::vector<double>{21}));
  EXPECT_EQ(vals(at::sum_to(g, {1, 3})), (std::vector<double>{5, 7, 9}));
  // Leading and middle size-1 dimensions, both kinds of reduction.
  auto h = value({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2});
  EXPECT_EQ(vals(at::sum_to(h, {1, 1, 2})), (std::vector<double>{16, 20}));
  EXPECT_EQ(vals(at::sum_to(h, {2, 1, 1})), (std::vector<double>{10, 26}));
  EXPECT_EQ(vals(at::sum_to(h, {1, 2, 1})), (std::vector<double>{14, 22}));
  EXPECT_TRUE(at::is_expandable_to({1, 3}, {4, 2, 3}));
  EXPECT_FALSE(at::is_expandable_to({2}, {2, 3}));
  EXPECT_THROW(at::sum_to(g, {2}), std::runtime_error);
}

TEST(Tensor, CloneOfStridedViewIsContiguous) {
  // A transposed view of [[1,2,3],[4,5,6]] over the same storage.
  auto base = value({1, 2, 3, 4, 5, 6}, {2, 3});
  std::shared_ptr<void> keep_base(base.getIntrusivePtr(), base.data_ptr());
  auto t = at::from_blob(base.data_ptr(), {3, 2}, {1, 3}, at::kFloat, c10::Device(), keep_base, 6 * sizeof(float));
  EXPECT_FALSE(t.is_contiguous());
  auto c = at::clone(t);
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(vals(c), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(Tensor, FromBlobKeepsOwnerAliveUntilLastReference) {
  auto released = std::make_shared<bool>(false);
  {
    float* data = new float[2]{1.f, 2.f};
    std::shared_ptr<void> owner(data, [released](void* p) {
      delete[] static_cast<float*>(p);
      *released = true;
    });
    auto t = at::from_blob(data, {2}, {1}, at::kFloat, c10::Device(), std::move(owner), 8);
    auto copy = t;
    t.reset();
    EXPECT_FALSE(*released);
    EXPECT_EQ(vals(copy), (std::vector<double>{1, 2}));
  }
  EXPECT_TRUE(*released);
}

TEST(Tensor, DtypeConversionAndNanCheck) {
  auto d = at::to(value({1.5, -2.0}), at::kDouble);
  EXPECT_EQ(d.dtype(), at::kDouble);
  EXPECT_EQ(vals(d), (std::vector<double>{1.5, -2.0}));
  EXPECT_FALSE(at::any_nan(d));
  EXPECT_TRUE(at::any_nan(value({1.0, std::numeric_limits<double>::quiet_NaN()})));
  EXPECT_FALSE(at::any_nan(at::to(value({1, 2}), at::kLong)));
}

TEST(Half, RoundsToNearestEven) {
  // exact values, ties to even, subnormals, overflow to inf, nan (binary16 as c10::Half)
  EXPECT_EQ(static_cast<float>(c10::Half(1.5f)), 1.5f);
  EXPECT_EQ(static_cast<float>(c10::Half(2049.0f)), 2048.0f); // a tie: to the even 2048
  EXPECT_EQ(static_cast<float>(c10::Half(2051.0f)), 2052.0f); // a tie: to the even 2052
  EXPECT_EQ(static_cast<float>(c10::Half(65504.0f)), 65504.0f);
  EXPECT_TRUE(std::isinf(static_cast<float>(c10::Half(65520.0f))));
  EXPECT_EQ(static_cast<float>(c10::Half(65519.0f)), 65504.0f);
  EXPECT_EQ(static_cast<float>(c10::Half(5.9604645e-8f)), 5.9604645e-8f); // the smallest subnormal
  EXPECT_EQ(static_cast<float>(c10::Half(2.9802322e-8f)), 0.0f); // half of it: a tie, to 0
  EXPECT_EQ(static_cast<float>(c10::Half(-0.1f)), -0.0999755859375f);
  EXPECT_TRUE(std::isnan(static_cast<float>(c10::Half(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(c10::Half(-0.0f).x, 0x8000);
  // every half converts to float and back unchanged
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const c10::Half h(static_cast<uint16_t>(bits), c10::Half::from_bits());
    const float f = h;
    if (!std::isnan(f)) {
      EXPECT_EQ(c10::Half(f).x, h.x) << bits;
    }
  }
}

TEST(Tensor, NewDtypesThroughTheKernels) {
  for (auto t : {at::kHalf, at::kInt, at::kShort, at::kChar, at::kByte}) {
    auto x = at::to(value({1, 2, 3, 4, 5, 6}, {2, 3}), t);
    EXPECT_EQ(x.dtype(), t);
    EXPECT_EQ(vals(at::add(x, x)), (std::vector<double>{2, 4, 6, 8, 10, 12}));
    EXPECT_EQ(vals(at::sum_to(x, {3})), (std::vector<double>{5, 7, 9}));
    EXPECT_EQ(vals(at::mul(x, 2.0)), (std::vector<double>{2, 4, 6, 8, 10, 12}));
    EXPECT_EQ(vals(at::clone(x)), (std::vector<double>{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(at::ones({}, t).item(), 1.0);
  }
  EXPECT_EQ(at::to(value({1}), at::kHalf).toString(), "torch.HalfTensor");
  EXPECT_EQ(at::to(value({1}), at::kByte).toString(), "torch.ByteTensor");
  EXPECT_EQ(std::string(at::toString(at::kChar)), "Char");
  EXPECT_EQ(at::elementSize(at::kHalf), 2u);
  // int8 wraps; float16 sums in float (a float16 running sum of 0.1s would stall)
  EXPECT_EQ(
      vals(at::add(at::to(value({100}), at::kChar), at::to(value({100}), at::kChar))), (std::vector<double>{-56}));
  std::vector<double> tenths(4096, 0.1);
  auto h = at::to(value(tenths, {4096, 1}), at::kHalf);
  EXPECT_NEAR(vals(at::sum_to(h, {1}))[0], 409.5, 0.5);
  EXPECT_TRUE(at::any_nan(at::to(value({1.0, std::numeric_limits<double>::quiet_NaN()}), at::kHalf)));
  // only float types carry gradients
  auto i = at::to(value({1, 2}), at::kInt);
  EXPECT_THROW(i.set_requires_grad(true), std::runtime_error);
  auto f = at::to(value({1, 2}), at::kHalf);
  f.set_requires_grad(true);
  EXPECT_TRUE(f.requires_grad());
}

TEST(Tensor, SimDeviceTensorsLiveInHostMemory) {
  auto t = value({1, 2}, {}, at::kFloat, c10::Device("sim:1"));
  EXPECT_EQ(t.device(), c10::Device("sim:1"));
  EXPECT_EQ(t.toString(), "torch.sim.FloatTensor");
  auto back = at::to(t, c10::Device());
  EXPECT_TRUE(back.device().is_cpu());
  EXPECT_EQ(vals(at::add(t, t)), (std::vector<double>{2, 4}));
}

TEST(Variable, RequiresGradOnlyForFloatingTypes) {
  auto l = at::to(value({1, 2}), at::kLong);
  EXPECT_THROW(l.set_requires_grad(true), std::runtime_error);
  auto f = value({1, 2});
  f.set_requires_grad(true);
  EXPECT_TRUE(f.requires_grad());
  EXPECT_TRUE(f.is_leaf());
}

TEST(Variable, DetachSharesStorageAndVersion) {
  auto x = leaf({1, 2});
  auto d = x.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_EQ(d.data_ptr(), x.data_ptr());
  d.add_(value({1, 1}));
  EXPECT_EQ(x._version(), d._version());
  EXPECT_EQ(vals(x), (std::vector<double>{2, 3}));
}

TEST(FakeGuardImpl, StreamsAreThreadLocalAndEventsLogged) {
  c10::impl::FakeGuardImpl fake(c10::DeviceType::Sim, 2, /*logging=*/true);
  c10::Device d0("sim:0");
  auto s1 = fake.getNewStream(d0);
  auto s2 = fake.getNewStream(d0);
  EXPECT_NE(s1, s2);
  EXPECT_EQ(fake.getStream(d0).id(), 0);
  auto old = fake.exchangeStream(s1);
  EXPECT_EQ(old.id(), 0);
  EXPECT_EQ(fake.getStream(d0), s1);
  std::thread([&] { EXPECT_EQ(fake.getStream(d0).id(), 0); }).join();
  fake.exchangeStream(old);
  EXPECT_EQ(fake.deviceCount(), 2);
}

TEST(Event, RecordAndBlockGoThroughTheRegistry) {
  auto* prev = c10::impl::getDeviceGuardImpl(c10::DeviceType::Sim);
  c10::impl::FakeGuardImpl fake(c10::DeviceType::Sim, 2, /*logging=*/true);
  c10::impl::setDeviceGuardImpl(c10::DeviceType::Sim, &fake);
  {
    c10::Device d0("sim:0");
    auto s1 = fake.getNewStream(d0);
    auto s2 = fake.getNewStream(d0);
    c10::Event e(c10::DeviceType::Sim);
    EXPECT_TRUE(e.query());
    e.block(s2); // never recorded: nothing to wait for
    e.record(s1);
    s2.wait(e);
    auto log = fake.log();
    ASSERT_EQ(log.size(), 2u);
    EXPECT_EQ(log[0].kind, c10::impl::FakeGuardImpl::LogEntry::Record);
    EXPECT_EQ(log[0].stream, s1);
    EXPECT_EQ(log[1].kind, c10::impl::FakeGuardImpl::LogEntry::Block);
    EXPECT_EQ(log[1].stream, s2);
    EXPECT_EQ(log[1].event_id, log[0].event_id);
    EXPECT_THROW(e.record(c10::Stream(c10::Stream::DEFAULT, c10::Device())), std::runtime_error);
  }
  c10::impl::setDeviceGuardImpl(c10::DeviceType::Sim, prev);
}

TEST(DeviceGuard, OptionalStreamGuardRestoresStream) {
  auto* impl = c10::impl::getDeviceGuardImpl(c10::DeviceType::Sim);
  c10::Device d1("sim:1");
  auto s = impl->getNewStream(d1);
  {
    c10::OptionalStreamGuard g(s);
    EXPECT_EQ(impl->getStream(d1), s);
    EXPECT_EQ(impl->getDevice(), d1);
  }
  EXPECT_EQ(impl->getStream(d1).id(), 0);
}

#ifdef TORCHLITE_WITH_CUDA
TEST(CUDA, DeviceCountIsZeroWithoutAGpuAndNotAnError) {
  auto* impl = c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA);
  const auto n = impl->deviceCount();
  EXPECT_GE(n, 0);
  if (n == 0) {
    EXPECT_THROW(at::empty({2}, at::kFloat, c10::Device("cuda:0")), std::runtime_error);
  }
}

TEST(CUDA, KernelsMatchTheCpu) {
  if (c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)->deviceCount() == 0) {
    GTEST_SKIP() << "needs a GPU (runs on the lent device machine)";
  }
  c10::Device cuda("cuda:0");
  auto a = value({1, 2, 3, 4, 5, 6}, {2, 3}, at::kFloat, cuda);
  auto b = value({1, 1, 1, 1, 1, 1}, {2, 3}, at::kFloat, cuda);
  EXPECT_EQ(vals(at::add(a, b)), (std::vector<double>{2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(vals(at::sum_to(a, {3})), (std::vector<double>{5, 7, 9}));
  EXPECT_EQ(vals(at::mul(a, 2.0)), (std::vector<double>{2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(vals(at::to(a, at::kDouble)), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_FALSE(at::any_nan(a));
  EXPECT_TRUE(at::any_nan(value({1.0, std::nan("")}, {}, at::kFloat, cuda)));
}
#endif
