// A result column, declared once: what it is called in files (key), what people read (label,
// unit, description), what kind of value it holds and how files write it. CSV, the JSON run
// record, the console table, the GUI table and the compare window all read these.
#pragma once

#include <optional>
#include <string>

namespace stepscope::schema {

// What a column's values are, in which unit files hold them; decides how people see them
// (files write the exact value).
//
// The rule for units on screen: a header carries no unit, every cell carries its own, picked
// for the value ("812 µs", "9.45 s", "24.0 MiB", "1.50 GiB", "12.3 GB/s"). A column then never
// says "(ms)" above "9.45 s", and a size reads right however large or small. Counts have no
// unit and get thousands separators. Labels hold no unit either: the kind gives it.
enum class ColumnKind {
  text,
  integer,       // a count or a size in elements: "100,000,000"
  real,          // a plain number, three significant digits on screen
  milliseconds,  // durations in ms, shown in adaptive units
  nanoseconds,   // durations in ns, shown in adaptive units
  bytes,         // sizes in bytes, shown in B, KiB, MiB or GiB
  fraction,      // 0..1, shown as a percentage
  percent,       // 0..100
  per_second,    // a rate of things per second: "45,678/s"
  microseconds,  // durations in µs (nccl-tests' tables), shown in adaptive units
  mebibytes,     // sizes in MiB (DDP bucket sizes as typed), shown in adaptive units
  gb_per_second, // bandwidths in 10^9 bytes per second: "12.3 GB/s"
  tflop_per_second,  // throughput in 10^12 FLOP per second: "123 TFLOP/s"
};

// What a column does in a table: identity columns name a row (compare matches rows by them),
// measures are what one compares, details are kept in files but not shown by default, notes
// are free text about the row (a terminal prints them under it).
enum class ColumnRole { identity, measure, detail, note };

// How a CSV cell writes a number: exactly (shortest text that reads back the same), with a
// fixed number of decimals (nsys-style tables, optionally trimmed), or to so many significant
// digits (as PyTorch prints a float32).
struct CsvNumberFormat {
  int decimals = -1;  // -1: exact
  bool trim_zeros = false;
  int significant_digits = 0;  // > 0: that many significant digits ("%.9g"), on screen too
};

struct Column {
  std::string key;    // CSV header and JSON member: "total_mean_ms"
  std::string label;  // what a table header shows: "Step"
  ColumnKind kind = ColumnKind::text;
  ColumnRole role = ColumnRole::detail;
  std::string description = {};  // a header's tooltip
  std::string spread_key = {};   // shown as "value ± spread" with this column's value (a std column)
  CsvNumberFormat csv = {};
  // The column holding how many measurements this mean is over (its row's n): compare weighs the
  // spread by it. Empty when the table does not say.
  std::string samples_key = {};
};

std::string unit_of(ColumnKind kind);  // the unit files hold: "ms", "ns", "bytes", "/s", "" ...
bool is_numeric(ColumnKind kind);
// What a table header shows: the label (the unit is in the cells; see ColumnKind).
std::string header_text(const Column& column);

}  // namespace stepscope::schema

namespace stepscope::schema {
std::string to_string(ColumnKind kind);
std::string to_string(ColumnRole role);
// Nothing for a name this build does not know.
std::optional<ColumnKind> parse_column_kind(const std::string& text);
std::optional<ColumnRole> parse_column_role(const std::string& text);
}  // namespace stepscope::schema
