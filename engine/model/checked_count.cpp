#include "model/checked_count.h"

#include "core/config_error.h"

#include <cmath>
#include <cstdio>

namespace stepscope {

namespace {

std::string text_of(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

}  // namespace

int64_t checked_count(double value, const std::string& what, const std::string& field) {
  constexpr double kTwoTo63 = 9223372036854775808.0;  // exact in a double; int64 holds [-2^63, 2^63)
  if (!std::isfinite(value) || value >= kTwoTo63 || value < -kTwoTo63) {
    throw ConfigError(what + " = " + text_of(value) + " cannot be counted: past 2^63, from inputs too far apart to plan",
                      field);
  }
  return static_cast<int64_t>(value);
}

double checked_finite(double value, const std::string& what, const std::string& field) {
  if (!std::isfinite(value)) {
    throw ConfigError(what + " = " + text_of(value) + ": the inputs overflow a double (too far apart to plan)", field);
  }
  return value;
}

int64_t checked_product(int64_t a, int64_t b, const std::string& what, const std::string& field) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    throw ConfigError(what + " = " + std::to_string(a) + " x " + std::to_string(b) + " cannot be counted: past 2^63",
                      field);
  }
  return product;
}

}  // namespace stepscope
