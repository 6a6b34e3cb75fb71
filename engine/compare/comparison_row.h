// One figure of two runs side by side: a measure of a paired row (the step time of one
// configuration), a kernel's total, or a configuration only one run has. What the compare
// command prints, writes and gates on (comparison_schema.h declares its columns).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schema/column.h"

namespace stepscope::compare {

// Which gate a measure answers to: --fail-if-slower (durations) or --fail-if-more-memory
// (sizes in bytes); others (throughput, MFU, errors) are compared, never gated.
enum class MetricFamily { time, memory, other };
MetricFamily family_of(schema::ColumnKind kind);

// How a row of A found its row of B.
enum class Pairing {
  same,     // the same configuration
  changed,  // identity settings differ ("Context 128 → 256"): schema/row_pairing.h's rules
  only_a,   // B has no such configuration
  only_b,   // A has no such configuration
};

enum class Verdict {
  none,          // no gate applies (not gated, or a value is missing)
  ok,            // B - A within the threshold (faster or smaller included)
  within_noise,  // beyond the threshold, but not beyond the noise of the two means
  regressed,     // beyond both: fails the gate
};

struct ComparisonRow {
  std::string table;          // the compared table's schema ("bench", "attention") or "kernel totals"
  std::string configuration;  // the row's identity: "tiny, Context 128 → 256, Batch 2, fp32, train, ..."
  Pairing pairing = Pairing::same;
  std::string changes;     // the settings that differ: "Context 128 → 256"; "" otherwise
  std::string metric;      // what is compared: a column's label ("Step"), a kernel's short name
  std::string metric_key;  // the column's key ("total_mean_ms"), the kernel's full name
  schema::ColumnKind kind = schema::ColumnKind::real;  // the unit of a, b, their spreads and the noise
  std::optional<double> a, b;
  std::optional<double> a_std, b_std;           // standard deviations of the measurements behind a, b
  std::optional<int64_t> a_samples, b_samples;  // how many: measured steps; none where not known
  std::string a_status, b_status;               // the row's status ("ok", "OOM", "failed"), where its table has one
  std::optional<double> threshold_percent;      // the gate's P, where one applies
  std::optional<double> noise;                  // k * sqrt(sA²/nA + sB²/nB), where a spread is known
  Verdict verdict = Verdict::none;
  std::string note = {};  // why a value is missing, why the row fails
};

MetricFamily family_of(const ComparisonRow& row);
// B - A; none unless both are finite.
std::optional<double> difference(const ComparisonRow& row);
// B / A; none unless both are finite and A is not 0.
std::optional<double> ratio(const ComparisonRow& row);

std::string to_string(Pairing pairing);  // "same", "changed", "only in A", "only in B"
std::string to_string(Verdict verdict);  // "", "ok", "within noise", "regressed"

}  // namespace stepscope::compare
