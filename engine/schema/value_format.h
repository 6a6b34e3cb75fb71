// How every table writes a value: exactly for files, readably for people. The one place
// where numbers become text, for the CSV, the console and the GUI alike.
#pragma once

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

// What people read, by kind: "12.35" ms, "45.6 us", "24.0 MiB", "12.3%", "1.23e+04" never
// (but "1e+308", in files too, where fixed digits would not fit 63 characters).
std::string display_text(const Value& value, ColumnKind kind);
// A value of `column` as people read it (its kind; its CSV format where that trims decimals).
std::string display_value(const Value& value, const Column& column);
// A table cell as people read it, with its spread where the column names one ("12.35 ± 0.41").
std::string display_cell(const Table& table, size_t row, size_t column);

// Three significant digits, never an exponent: 0.00391, 1.23, 45.6, 789, 12345.
std::string significant(double value);
// Adaptive units, three significant digits: "789 ns", "45.6 us", "1.23 ms", "2.50 s".
std::string duration_ns_text(double ns);
// Binary units, three significant digits: "512 B", "1.50 KiB", "24.0 MiB", "3.20 GiB": sizes
// in messages and panels (a table column's are in MiB, mib_text, to compare down a column).
std::string bytes_text(double bytes);
// Mebibytes with three significant digits: "0.500 MiB", "24.0 MiB", "1536 MiB".
std::string mib_text(int64_t bytes);
// One decimal and a percent sign: 12.34 -> "12.3%".
std::string percent_text(double percent);
// Two decimals each: "12.35 ± 0.41".
std::string mean_std_text(double mean, double std);

}  // namespace stepscope::schema
