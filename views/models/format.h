// The engine's value formatting (schema/value_format.h) as QString, for views that format
// values outside a schema table. Every text carries its unit (schema/column.h says why).
#pragma once

#include <cstdint>

#include <QString>

namespace stepscope::views {

// What a cell shows when a value is unknown or does not apply.
QString missing_text();

// Three significant digits: 0.00391, 1.23, 45.6, 789, 12345; 3.81e-6 below 1e-4.
QString format_significant(double value);
// Adaptive units, three significant digits: "789 ns", "45.6 µs", "1.23 ms", "2.50 s";
// "-" when not finite.
QString format_duration_ns(double ns);
QString format_duration_ms(double ms);
// Binary units, three significant digits: "512 B", "0.500 MiB", "24.0 MiB", "1.50 GiB".
QString format_bytes(int64_t bytes);
// Thousands separated: "100,000,000".
QString format_count(int64_t count);
// A mean and standard deviation in ms, in the mean's unit: "12.3 ± 0.4 ms".
QString format_mean_std_ms(double mean, double std);
// One decimal and a percent sign: 12.34 -> "12.3%"; "-" when not finite.
QString format_percent(double percent);

}  // namespace stepscope::views
