// The engine's value formatting (schema/value_format.h) as QString, for views that format
// values outside a schema table.
#pragma once

#include <cstdint>

#include <QString>

namespace stepscope::views {

// What a cell shows when a value is unknown or does not apply.
QString missing_text();

// Three significant digits, never an exponent: 0.00391, 1.23, 45.6, 789, 12345.
QString format_significant(double value);
// Adaptive units, three significant digits: "789 ns", "45.6 us", "1.23 ms", "2.50 s";
// "-" when not finite.
QString format_duration_ns(double ns);
// Mebibytes with three significant digits, so a column of sizes compares at a glance:
// "0.500 MiB", "24.0 MiB", "1536 MiB".
QString format_bytes(int64_t bytes);
// A phase's mean and standard deviation in ms, two decimals each: "12.35 ± 0.41".
QString format_mean_std(double mean, double std);
// One decimal and a percent sign: 12.34 -> "12.3%"; "-" when not finite.
QString format_percent(double percent);

}  // namespace stepscope::views
