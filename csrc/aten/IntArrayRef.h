#pragma once
// at::IntArrayRef is c10's: a view of sizes or dimensions, taken from a braced
// list `{2, 3}`, a std::vector, one integer `3`, or another tensor's sizes().
#include "c10/util/ArrayRef.h"

namespace at {
using c10::ArrayRef;
using c10::IntArrayRef;
} // namespace at
