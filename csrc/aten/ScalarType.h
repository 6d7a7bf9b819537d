#pragma once
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

namespace at {

enum class ScalarType : int8_t { Float = 0, Double = 1, Long = 2, Bool = 3 };

constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kBool = ScalarType::Bool;

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
  }
  return 0;
}

inline bool isFloatingType(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double;
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
  }
  return "Undefined";
}

inline std::ostream& operator<<(std::ostream& os, ScalarType t) {
  return os << toString(t);
}

} // namespace at
