#include "schema/column.h"

namespace stepscope::schema {

std::string unit_of(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::milliseconds: return "ms";
    case ColumnKind::nanoseconds: return "ns";
    case ColumnKind::bytes: return "bytes";
    case ColumnKind::fraction:
    case ColumnKind::percent: return "%";
    case ColumnKind::per_second: return "/s";
    case ColumnKind::microseconds: return "\u00b5s";
    case ColumnKind::mebibytes: return "MiB";
    case ColumnKind::gb_per_second: return "GB/s";
    case ColumnKind::tflop_per_second: return "TFLOP/s";
    case ColumnKind::text:
    case ColumnKind::integer:
    case ColumnKind::real: return "";
  }
  return "";
}

bool is_numeric(ColumnKind kind) { return kind != ColumnKind::text; }

std::string header_text(const Column& column) { return column.label; }

}  // namespace stepscope::schema

namespace stepscope::schema {

namespace {
constexpr ColumnKind kKinds[] = {ColumnKind::text,         ColumnKind::integer,     ColumnKind::real,
                                 ColumnKind::milliseconds, ColumnKind::nanoseconds, ColumnKind::bytes,
                                 ColumnKind::fraction,     ColumnKind::percent,     ColumnKind::per_second,
                                 ColumnKind::microseconds, ColumnKind::mebibytes,   ColumnKind::gb_per_second,
                                 ColumnKind::tflop_per_second};
constexpr ColumnRole kRoles[] = {ColumnRole::identity, ColumnRole::measure, ColumnRole::detail, ColumnRole::note};
}  // namespace

std::string to_string(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::text: return "text";
    case ColumnKind::integer: return "integer";
    case ColumnKind::real: return "real";
    case ColumnKind::milliseconds: return "milliseconds";
    case ColumnKind::nanoseconds: return "nanoseconds";
    case ColumnKind::bytes: return "bytes";
    case ColumnKind::fraction: return "fraction";
    case ColumnKind::percent: return "percent";
    case ColumnKind::per_second: return "per_second";
    case ColumnKind::microseconds: return "microseconds";
    case ColumnKind::mebibytes: return "mebibytes";
    case ColumnKind::gb_per_second: return "gb_per_second";
    case ColumnKind::tflop_per_second: return "tflop_per_second";
  }
  return "?";
}

std::string to_string(ColumnRole role) {
  switch (role) {
    case ColumnRole::identity: return "identity";
    case ColumnRole::measure: return "measure";
    case ColumnRole::detail: return "detail";
    case ColumnRole::note: return "note";
  }
  return "?";
}

std::optional<ColumnKind> parse_column_kind(const std::string& text) {
  for (auto kind : kKinds) {
    if (to_string(kind) == text) return kind;
  }
  return std::nullopt;
}

std::optional<ColumnRole> parse_column_role(const std::string& text) {
  for (auto role : kRoles) {
    if (to_string(role) == text) return role;
  }
  return std::nullopt;
}

}  // namespace stepscope::schema
