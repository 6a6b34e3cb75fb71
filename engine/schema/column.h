// A result column, declared once: what it is called in files (key), what people read (label,
// unit, description), what kind of value it holds and how files write it. CSV, the JSON run
// record, the console table, the GUI table and the compare window all read these.
#pragma once

#include <optional>
#include <string>

namespace stepscope::schema {

// What a column's values are; decides how people see them (files write the exact value).
enum class ColumnKind {
  text,
  integer,       // a count or a size in elements
  real,          // a plain number, three significant digits on screen
  milliseconds,  // durations in ms
  nanoseconds,   // durations in ns, shown in adaptive units
  bytes,         // shown in MiB
  fraction,      // 0..1, shown as a percentage
  percent,       // 0..100
  per_second,    // a rate
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
};

std::string unit_of(ColumnKind kind);  // "ms", "ns", "bytes", "/s", "" ...
bool is_numeric(ColumnKind kind);
// "Step (ms)": the label with the unit a screen shows for it.
std::string header_text(const Column& column);

}  // namespace stepscope::schema

namespace stepscope::schema {
std::string to_string(ColumnKind kind);
std::string to_string(ColumnRole role);
// Nothing for a name this build does not know.
std::optional<ColumnKind> parse_column_kind(const std::string& text);
std::optional<ColumnRole> parse_column_role(const std::string& text);
}  // namespace stepscope::schema
