// Ranges in a sweep axis's list, so a sweep over powers of two need not be typed out:
// "256..4096 x2" is 256,512,1024,2048,4096; "1..4" is 1,2,3,4; "8..32 +8" is 8,16,24,32;
// "1MiB..1GiB x4" for sizes. The end is included when a step lands on it and never passed.
#pragma once

#include <string>
#include <vector>

#include "schema/input_field.h"

namespace stepscope::schema {

// How ranges are written, for the usage and the form's tooltips.
constexpr const char* kRangeHelp =
    "Lists of numbers take ranges: 256..4096 x2 (doubling), 8..32 +8 (steps of 8), 1..4 (steps of 1).";

// The most values one range may give: a typo ("1..100000") is refused, not run for days.
constexpr size_t kMaxRangeValues = 1000;

// The values `item` stands for: itself when it is no range, else the range's values written
// as the field reads them (sizes as bytes). Items of fields other than integers and sizes are
// never ranges. Throws ConfigError(field.key) for a range of a field that takes one value, or
// one that is malformed, empty or too long.
std::vector<std::string> expand_input_range(const InputField& field, const std::string& item);

}  // namespace stepscope::schema
