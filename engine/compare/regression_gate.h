// The regression gate of `stepscope-cli compare`: which paired figures of B are worse than A's
// beyond a threshold and beyond the noise of the two measurements. The rule, stated in the
// command's help and output (rule_text):
//
//   B regresses when  B - A > P * A  and  B - A > k * sqrt(sA²/nA + sB²/nB),  k = 2,
//
// sA, sB the standard deviations of the measurements behind the means (a bench row's steps),
// nA, nB their counts (1 where a table does not say; no noise term where no spread is kept:
// memory peaks are one number). P comes from --fail-if-slower for durations, from
// --fail-if-more-memory for sizes in bytes: one percentage for every such measure, and/or one
// per measure ("10%,step=5%"). A figure B could not measure because its row failed (OOM,
// error, cancelled) where A's ran regresses too. Kernel totals and other measures are
// compared, never gated.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compare/run_comparison.h"

namespace stepscope::compare {

inline constexpr double kNoiseSigmas = 2.0;  // k: two standard errors of the difference

// One family's thresholds, in percent.
struct Thresholds {
  std::optional<double> every_percent;                     // "10%": every measure of the family
  std::vector<std::pair<std::string, double>> by_measure;  // "step=5%": a column's label or key
  bool empty() const { return !every_percent && by_measure.empty(); }
};

struct GateRule {
  Thresholds slower;             // durations
  Thresholds more_memory;        // sizes in bytes
  bool fail_if_missing = false;  // a configuration of A that B lacks fails
  bool empty() const { return slower.empty() && more_memory.empty() && !fail_if_missing; }
};

// "5%", "step=5%,forward=10%", "10%,step=5%". Throws ConfigError with `field` for anything
// else: a number without "%", a negative or non-finite one, a measure named twice.
Thresholds parse_thresholds(const std::string& text, const std::string& field);

// Sets each row's threshold, noise and verdict. Throws ConfigError, with the option's field
// ("fail-if-slower", "fail-if-more-memory"), for a measure name that names no measure of its
// family in these runs; the message lists those there are.
void apply_gate(Comparison& comparison, const GateRule& rule);

size_t count_regressions(const Comparison& comparison);
// The rule as applied, in one sentence: the formula, k, and every threshold.
std::string rule_text(const GateRule& rule);
// "FAIL: 2 of 14 gated figures regressed", "PASS: 14 gated figures within the rule; B has every
// configuration of A", "not gated"; also what a gate given had nothing to apply to.
std::string verdict_text(const Comparison& comparison, const GateRule& rule);

}  // namespace stepscope::compare
