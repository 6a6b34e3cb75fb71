// Counts computed in doubles (devices, tokens, buckets) become int64 here and only here:
// static_cast<int64_t> of a NaN, an infinity or a value past 2^63 is undefined behaviour that in
// practice prints -9223372036854775808 as a result. The planner and the models it calls use it.
#pragma once

#include <cstdint>
#include <string>


namespace stepscope {

// `value` as an int64 (truncated toward zero, so round it first). Throws ConfigError naming
// `field` when it is not finite or lies outside int64: "WHAT = VALUE cannot be counted ...".
int64_t checked_count(double value, const std::string& what, const std::string& field);

// `value` itself when it is finite; else ConfigError naming `field`: a derived number that
// overflowed (1e308 x 10) or divided by an underflowed one is not a result to print.
double checked_finite(double value, const std::string& what, const std::string& field);

// a x b, exact; ConfigError naming `field` when the product leaves int64.
int64_t checked_product(int64_t a, int64_t b, const std::string& what, const std::string& field);

}  // namespace stepscope
