#pragma once
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

#include "c10/util/Half.h"

namespace at {

// torch's dtypes as torchlite carries them (c10/core/ScalarType.h; the values
// here are torchlite's own, the first four kept from before the others).
enum class ScalarType : int8_t {
  Float = 0,
  Double = 1,
  Long = 2,
  Bool = 3,
  Half = 4,
  Int = 5,
  Short = 6,
  Char = 7,
  Byte = 8
};

constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kByte = ScalarType::Byte;

inline size_t elementSize(ScalarType t) {
  switch (t) {
    case ScalarType::Float:
      return 4;
    case ScalarType::Double:
      return 8;
    case ScalarType::Long:
      return 8;
    case ScalarType::Bool:
      return 1;
    case ScalarType::Half:
      return 2;
    case ScalarType::Int:
      return 4;
    case ScalarType::Short:
      return 2;
    case ScalarType::Char:
      return 1;
    case ScalarType::Byte:
      return 1;
  }
  return 0;
}

inline bool isFloatingType(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half;
}

// Only floating types carry gradients (isDifferentiableType in PyTorch).
inline bool isDifferentiableType(ScalarType t) {
  return isFloatingType(t);
}

// c10's spelling ("Float"), used in C++ error messages as PyTorch does.
inline const char* toString(ScalarType t) {
  switch (t) {
    case ScalarType::Float:
      return "Float";
    case ScalarType::Double:
      return "Double";
    case ScalarType::Long:
      return "Long";
    case ScalarType::Bool:
      return "Bool";
    case ScalarType::Half:
      return "Half";
    case ScalarType::Int:
      return "Int";
    case ScalarType::Short:
      return "Short";
    case ScalarType::Char:
      return "Char";
    case ScalarType::Byte:
      return "Byte";
  }
  return "Undefined";
}

inline std::ostream& operator<<(std::ostream& os, ScalarType t) {
  return os << toString(t);
}

} // namespace at
