// SavedVariable: version checks with PyTorch's message, outputs saved without
// a reference cycle, release.
#include "test_utils.h"

#include "autograd/anomaly_mode.h"
#include "autograd/saved_variable.h"

#include <gtest/gtest.h>

using namespace torchlite_test;

TEST(SavedVariable, UnpackReturnsTheSavedLeaf) {
  auto x = leaf({1, 2});
  SavedVariable saved(x, /*is_output=*/false);
  auto u = saved.unpack();
  EXPECT_TRUE(u.is_same(x));
}

TEST(SavedVariable, InPlaceModificationIsDetected) {
  auto x = leaf({1, 2});
  auto y = scaled({x}, 2.0, "MulBackward0");
  SavedVariable saved(y, /*is_output=*/false);
  y.detach().add_(value({1, 1}));
  try {
    saved.unpack();
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(
        e.what(),
        "one of the variables needed for gradient computation has been modified by an "
        "inplace operation: [torch.FloatTensor [2]], which is output 0 of Mul, is "
        "at version 1; expected version 0 instead. Hint: enable anomaly detection to find "
        "the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False).");
  }
}

TEST(SavedVariable, AnomalyModeChangesTheHint) {
  DetectAnomalyGuard anomaly;
  auto x = leaf({1, 2});
  SavedVariable saved(x, false);
  x.detach().add_(value({1, 1}));
  try {
    saved.unpack();
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Good luck!"), std::string::npos);
  }
}

TEST(SavedVariable, SavedOutputDoesNotKeepItsNodeAlive) {
  std::weak_ptr<Node> weak_fn;
  SavedVariable saved;
  {
    auto x = leaf({1.0});
    auto y = scaled({x}, 2.0);
    weak_fn = y.grad_fn();
    saved = SavedVariable(y, /*is_output=*/true);
    // Unpacking rebuilds the variable with the saving node as grad_fn.
    auto u = saved.unpack(y.grad_fn());
    EXPECT_EQ(u.grad_fn().get(), y.grad_fn().get());
    EXPECT_EQ(u.data_ptr(), y.data_ptr());
  }
  EXPECT_TRUE(weak_fn.expired());
}

TEST(SavedVariable, ReleasedVariableCannotBeUnpacked) {
  auto x = leaf({1.0});
  SavedVariable saved(x, false);
  saved.reset_data();
  EXPECT_TRUE(saved.has_been_released());
  try {
    saved.unpack();
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), ERR_BACKWARD_TWICE);
  }
}

TEST(SavedVariable, DefaultConstructedUnpacksUndefined) {
  SavedVariable saved;
  EXPECT_FALSE(saved.unpack().defined());
  SavedVariable of_undefined(Variable(), false);
  EXPECT_FALSE(of_undefined.unpack().defined());
}
