#include "compare/comparison_row.h"

#include <cmath>

namespace stepscope::compare {

MetricFamily family_of(schema::ColumnKind kind) {
  switch (kind) {
    case schema::ColumnKind::milliseconds:
    case schema::ColumnKind::microseconds:
    case schema::ColumnKind::nanoseconds: return MetricFamily::time;
    case schema::ColumnKind::bytes:
    case schema::ColumnKind::mebibytes: return MetricFamily::memory;
    default: return MetricFamily::other;
  }
}

MetricFamily family_of(const ComparisonRow& row) { return family_of(row.kind); }

namespace {
bool finite(const std::optional<double>& v) { return v && std::isfinite(*v); }
}  // namespace

std::optional<double> difference(const ComparisonRow& row) {
  if (!finite(row.a) || !finite(row.b)) return std::nullopt;
  return *row.b - *row.a;
}

std::optional<double> ratio(const ComparisonRow& row) {
  if (!finite(row.a) || !finite(row.b) || *row.a == 0) return std::nullopt;
  return *row.b / *row.a;
}

std::string to_string(Pairing pairing) {
  switch (pairing) {
    case Pairing::same: return "same";
    case Pairing::changed: return "changed";
    case Pairing::only_a: return "only in A";
    case Pairing::only_b: return "only in B";
  }
  return "?";
}

std::string to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::none: return "";
    case Verdict::ok: return "ok";
    case Verdict::within_noise: return "within noise";
    case Verdict::regressed: return "regressed";
  }
  return "?";
}

}  // namespace stepscope::compare
