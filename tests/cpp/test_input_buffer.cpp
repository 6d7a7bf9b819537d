// InputBuffer: accumulation rules, device(), and the five producer/consumer
// stream cases of Note [Autograd Producer-Consumer Stream Syncs], observed
// through a logging FakeGuardImpl installed for the simulated device type.
#include "test_utils.h"

#include "autograd/grad_mode.h"
#include "autograd/input_buffer.h"
#include "c10/core/impl/FakeGuardImpl.h"

#include <gtest/gtest.h>

using namespace torchlite_test;
using Log = c10::impl::FakeGuardImpl::LogEntry;

TEST(InputBuffer, FirstGradientIsStoredWithoutCopy) {
  InputBuffer buf(2);
  auto g = value({1, 2});
  auto* impl = g.unsafeGetTensorImpl();
  buf.add(1, std::move(g), std::nullopt, std::nullopt);
  EXPECT_FALSE(buf.buffer[0].defined());
  EXPECT_EQ(buf.buffer[1].unsafeGetTensorImpl(), impl);
  EXPECT_TRUE(buf.device().is_cpu());
}

TEST(InputBuffer, UndefinedGradientIsIgnored) {
  InputBuffer buf(1);
  buf.add(0, Variable(), std::nullopt, std::nullopt);
  EXPECT_FALSE(buf.buffer[0].defined());
  EXPECT_THROW(buf.add(1, value({1}), std::nullopt, std::nullopt), std::out_of_range);
}

TEST(InputBuffer, AccumulatesInPlaceWhenBufferHoldsLastReference) {
  NoGradGuard no_grad;
  InputBuffer buf(1);
  buf.add(0, value({1, 2}), std::nullopt, std::nullopt);
  auto* first = buf.buffer[0].unsafeGetTensorImpl();
  buf.add(0, value({10, 20}), std::nullopt, std::nullopt);
  EXPECT_EQ(buf.buffer[0].unsafeGetTensorImpl(), first);
  EXPECT_EQ(vals(buf.buffer[0]), (std::vector<double>{11, 22}));
}

TEST(InputBuffer, NeverWritesIntoATensorSomeoneElseHolds) {
  NoGradGuard no_grad;
  InputBuffer buf(1);
  auto a = value({1, 2});
  auto b = value({10, 20});
  buf.add(0, Variable(a), std::nullopt, std::nullopt);
  buf.add(0, Variable(b), std::nullopt, std::nullopt);
  EXPECT_EQ(vals(buf.buffer[0]), (std::vector<double>{11, 22}));
  EXPECT_EQ(vals(a), (std::vector<double>{1, 2}));
  EXPECT_EQ(vals(b), (std::vector<double>{10, 20}));
}

TEST(InputBuffer, GradModeOnMakesADifferentiableSum) {
  AutoGradMode grad_mode(true);
  InputBuffer buf(1);
  auto x = leaf({1, 2});
  auto y = leaf({3, 4});
  buf.add(0, Variable(x), std::nullopt, std::nullopt);
  buf.add(0, Variable(y), std::nullopt, std::nullopt);
  const auto& sum = buf.buffer[0];
  ASSERT_TRUE(sum.grad_fn());
  EXPECT_EQ(sum.grad_fn()->name(), "AddBackward0");
  EXPECT_EQ(vals(sum), (std::vector<double>{4, 6}));
  EXPECT_EQ(vals(x), (std::vector<double>{1, 2}));
  // Differentiating the sum reaches both inputs.
  run_backward({sum}, {value({1, 1})});
  EXPECT_EQ(vals(x.grad()), (std::vector<double>{1, 1}));
  EXPECT_EQ(vals(y.grad()), (std::vector<double>{1, 1}));
}

TEST(InputBuffer, DeviceIsFirstNonCpuInput) {
  InputBuffer buf(3);
  buf.add(0, value({1}), std::nullopt, std::nullopt);
  EXPECT_TRUE(buf.device().is_cpu());
  buf.add(2, value({1}, {}, at::kFloat, c10::Device("sim:1")), std::nullopt, std::nullopt);
  EXPECT_EQ(buf.device(), c10::Device("sim:1"));
  auto vars = InputBuffer::variables(std::move(buf));
  ASSERT_EQ(vars.size(), 3u);
  EXPECT_FALSE(vars[1].defined());
}

// Streams ----------------------------------------------------------------------------

class InputBufferStreams : public ::testing::Test {
 protected:
  void SetUp() override {
    prev_ = c10::impl::setDeviceGuardImpl(c10::DeviceType::Sim, &fake_);
    A = fake_.getNewStream(d0);
    B = fake_.getNewStream(d0);
    C = fake_.getNewStream(d1);
    fake_.clear_log();
  }
  void TearDown() override {
    c10::impl::setDeviceGuardImpl(c10::DeviceType::Sim, prev_);
  }

  Variable on(c10::Device d, double v) {
    return value({v, v}, {}, at::kFloat, d);
  }

  // The consumer's wait, as Engine::evaluate_function performs it.
  void consume(InputBuffer& buf, const c10::Stream& consumer) {
    for (size_t pos = 0; pos < buf.buffer.size(); ++pos) {
      if (buf.ready_streams[pos] && *buf.ready_streams[pos] != consumer && buf.ready_events[pos]) {
        consumer.wait(*buf.ready_events[pos]);
      }
    }
  }

  // Asserts `waiter` blocks on an event that was recorded on `recorded_on`.
  bool waits_for(const c10::Stream& waiter, const c10::Stream& recorded_on) {
    for (const auto& e : fake_.log()) {
      if (e.kind == Log::Block && e.stream == waiter && e.event_stream == recorded_on) {
        return true;
      }
    }
    return false;
  }
  size_t count(Log::Kind kind) {
    size_t n = 0;
    for (const auto& e : fake_.log())
      n += e.kind == kind;
    return n;
  }

  c10::impl::FakeGuardImpl fake_{c10::DeviceType::Sim, 2, /*logging=*/true};
  const c10::impl::DeviceGuardImplInterface* prev_ = nullptr;
  c10::Device d0{"sim:0"};
  c10::Device d1{"sim:1"};
  c10::Stream A{c10::Stream::DEFAULT, d0};
  c10::Stream B{c10::Stream::DEFAULT, d0};
  c10::Stream C{c10::Stream::DEFAULT, d1};
};

TEST_F(InputBufferStreams, Case1CpuTensorsUseNoStreams) {
  InputBuffer buf(1);
  buf.add(0, value({1}), A, B);
  buf.add(0, value({2}), A, B);
  EXPECT_TRUE(fake_.log().empty());
  EXPECT_TRUE(buf.opt_accum_streams.empty()); // sized only once an accelerator gradient arrives
  EXPECT_EQ(vals(buf.buffer[0]), (std::vector<double>{3}));
}

TEST_F(InputBufferStreams, Case2SameDeviceSameStreamNeedsNoSync) {
  InputBuffer buf(1);
  buf.add(0, on(d0, 1), B, B);
  consume(buf, B);
  EXPECT_TRUE(fake_.log().empty());
  EXPECT_EQ(*buf.opt_accum_streams[0], B);
}

TEST_F(InputBufferStreams, Case2ConsumerWaitsForProducerStream) {
  InputBuffer buf(1);
  buf.add(0, on(d0, 1), A, B);
  EXPECT_EQ(*buf.opt_accum_streams[0], B); // (2a) the consumer's stream
  EXPECT_EQ(*buf.ready_streams[0], A);
  consume(buf, B);
  EXPECT_TRUE(waits_for(B, A)); // (2b)
}

TEST_F(InputBufferStreams, Case2AccumulationWaitsForBothOperands) {
  auto other = fake_.getNewStream(d0);
  InputBuffer buf(1);
  buf.add(0, on(d0, 1), A, B);
  buf.add(0, on(d0, 2), other, B);
  // The accumulation stream B waited for the second producer and the first.
  EXPECT_TRUE(waits_for(B, other));
  EXPECT_TRUE(waits_for(B, A));
  EXPECT_EQ(*buf.ready_streams[0], B);
  EXPECT_EQ(vals(buf.buffer[0]), (std::vector<double>{3, 3}));
  fake_.clear_log();
  consume(buf, B); // ready on the consumer's own stream: nothing more to wait for
  EXPECT_EQ(count(Log::Block), 0u);
}

TEST_F(InputBufferStreams, Case3ConsumerDeviceProducerElsewhere) {
  // var on d0, consumer B on d0, producer C on d1.
  InputBuffer buf(1);
  buf.add(0, on(d0, 1), C, B);
  EXPECT_EQ(*buf.opt_accum_streams[0], B); // (3a)
  consume(buf, B);
  EXPECT_TRUE(waits_for(B, C)); // (3b)
  fake_.clear_log();
  InputBuffer acc(1);
  acc.add(0, on(d0, 1), C, B);
  acc.add(0, on(d0, 2), C, B);
  EXPECT_TRUE(waits_for(B, C)); // accumulating on B after C
  EXPECT_EQ(vals(acc.buffer[0]), (std::vector<double>{3, 3}));
}

TEST_F(InputBufferStreams, Case4ProducerDeviceConsumerElsewhere) {
  // var on d1 with its producer C; the consumer B is on d0.
  InputBuffer buf(1);
  buf.add(0, on(d1, 1), C, B);
  EXPECT_EQ(*buf.opt_accum_streams[0], C); // (4a) the producer's stream
  buf.add(0, on(d1, 2), C, B);
  EXPECT_EQ(*buf.ready_streams[0], C);
  consume(buf, B);
  EXPECT_TRUE(waits_for(B, C)); // the consumer still waits for the sum
  EXPECT_EQ(vals(buf.buffer[0]), (std::vector<double>{3, 3}));
}

TEST_F(InputBufferStreams, Case5NeitherOnVarDevice) {
  // var on d1; producer A and consumer B both on d0.
  auto d1_current = fake_.getStream(d1);
  InputBuffer buf(1);
  buf.add(0, on(d1, 1), A, B);
  EXPECT_EQ(*buf.opt_accum_streams[0], d1_current); // var's device's current stream
  buf.add(0, on(d1, 2), A, B);
  EXPECT_TRUE(waits_for(d1_current, A));
  consume(buf, B);
  EXPECT_TRUE(waits_for(B, d1_current));
}

TEST(InputBuffer, NeverAccumulatesIntoForeignMemory) {
  NoGradGuard no_grad;
  auto data = std::make_shared<std::vector<float>>(std::vector<float>{1, 2});
  InputBuffer buf(1);
  buf.add(0, at::from_blob(data->data(), {2}, {1}, at::kFloat, c10::Device(), data, 8), std::nullopt, std::nullopt);
  buf.add(0, value({10, 20}), std::nullopt, std::nullopt);
  EXPECT_EQ(vals(buf.buffer[0]), (std::vector<double>{11, 22}));
  EXPECT_EQ((*data)[0], 1.0f);
}
