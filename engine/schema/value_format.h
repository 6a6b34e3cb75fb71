// How every table writes a value: exactly for files, readably for people. The one place
// where numbers become text, for the CSV, the console and the GUI alike.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "schema/column.h"
#include "schema/table.h"
#include "schema/value.h"

namespace stepscope::schema {

// What a screen shows for a missing value.
inline const char* missing_text() { return "-"; }

// The CSV cell: "" for missing, integers as integers, reals in the column's CSV format.
std::string csv_text(const Value& value, const CsvNumberFormat& format = {});
// Shortest text that reads back as the same double; "" for NaN.
std::string exact_number(double value);

// What people read, by kind, each cell with its unit (column.h says why): "12.3 ms",
// "45.6 µs", "24.0 MiB", "12.3%", "1,024", "12.3 GB/s".
std::string display_text(const Value& value, ColumnKind kind);
// A value of `column` as people read it (its kind; its CSV format where that trims decimals).
std::string display_value(const Value& value, const Column& column);
// A table cell as people read it, with its spread where the column names one ("12.35 ± 0.41 ms").
std::string display_cell(const Table& table, size_t row, size_t column);

// Three significant digits: 0.00391, 1.23, 45.6, 789, 12345; an exponent only below 1e-4,
// where zeros would hide the digits: 3.81e-6.
std::string significant(double value);
// Adaptive units, three significant digits: "789 ns", "45.6 µs", "1.23 ms", "2.50 s".
std::string duration_ns_text(double ns);
// A duration in ms in adaptive units ("12.3 ms"); with a spread (a standard deviation), both
// in the mean's unit to two decimals: "12.35 ± 0.41 ms", "9.45 ± 0.02 s".
std::string duration_ms_text(double ms, double spread_ms = NAN);
// Binary units, three significant digits: "512 B", "1.50 KiB", "24.0 MiB", "3.20 GiB".
std::string bytes_text(double bytes);
// A count with thousands separators: "100,000,000"; a fraction in three significant digits.
std::string count_text(double count);
// Three significant digits and the unit: "12.3 GB/s".
std::string rate_text(double value, const char* unit);
// Mebibytes with three significant digits: "0.500 MiB", "24.0 MiB", "1536 MiB".
std::string mib_text(int64_t bytes);
// One decimal and a percent sign: 12.34 -> "12.3%".
std::string percent_text(double percent);
// Two decimals each: "12.35 ± 0.41".
std::string mean_std_text(double mean, double std);

}  // namespace stepscope::schema
