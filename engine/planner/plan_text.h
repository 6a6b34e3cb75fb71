// How the planner writes numbers inside its formulas: sizes in GB (10^9 bytes) with GiB
// (2^30) beside them, because the seeds' answers mix the two.
#pragma once

#include <string>

namespace stepscope::planner {

inline constexpr double kGB = 1e9;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Three significant digits, an exponent past 10^6: "2.20e11", "126", "0.5".
std::string number_text(double value);
// "3.52 TB" / "165 GB" / "17.5 MB" / "512 B": decimal units, three significant digits.
std::string size_text(double bytes);
// "3276 GiB"
std::string gib_text(double bytes);
// "3518 GB = 3276 GiB": both units.
std::string gb_gib_text(double bytes);

}  // namespace stepscope::planner
