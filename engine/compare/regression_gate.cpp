#include "compare/regression_gate.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "compare/kernel_comparison.h"
#include "core/config_error.h"
#include "core/run_status.h"
#include "schema/value_format.h"

namespace stepscope::compare {

namespace {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::string lowered(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

double parse_percent(const std::string& text, const std::string& field) {
  const std::string example = " (e.g. 5% or step=5%,forward=10%)";
  if (text.empty() || text.back() != '%') {
    throw ConfigError("'" + text + "' is not a percentage: end it with %" + example, field);
  }
  const std::string number = trimmed(text.substr(0, text.size() - 1));
  char* end = nullptr;
  errno = 0;
  const double value = number.empty() ? NAN : std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || errno == ERANGE || !std::isfinite(value)) {
    throw ConfigError("'" + text + "' is not a percentage" + example, field);
  }
  if (value < 0) throw ConfigError("'" + text + "': a threshold cannot be negative", field);
  return value;
}

bool gated_family(const ComparisonRow& r, MetricFamily family) {
  return r.table != kKernelTotals && (r.pairing == Pairing::same || r.pairing == Pairing::changed) &&
         family_of(r) == family;
}

bool names(const ComparisonRow& r, const std::string& measure) {
  const std::string m = lowered(measure);
  return lowered(r.metric) == m || lowered(r.metric_key) == m;
}

std::string family_noun(MetricFamily family) { return family == MetricFamily::time ? "duration" : "size"; }
std::string option_of(MetricFamily family) {
  return family == MetricFamily::time ? "fail-if-slower" : "fail-if-more-memory";
}

// Every measure named in `thresholds` is a measure of `family` somewhere in the comparison.
void check_names(const Comparison& c, const Thresholds& thresholds, MetricFamily family) {
  for (const auto& [measure, percent] : thresholds.by_measure) {
    const auto named = [&](MetricFamily f) {
      return std::any_of(c.rows.begin(), c.rows.end(),
                         [&](const ComparisonRow& r) { return gated_family(r, f) && names(r, measure); });
    };
    if (named(family)) continue;
    const MetricFamily other = family == MetricFamily::time ? MetricFamily::memory : MetricFamily::time;
    if (named(other)) {
      throw ConfigError("'" + measure + "' is a " + family_noun(other) + ", not a " + family_noun(family) +
                            ": gate it with --" + option_of(other),
                        option_of(family));
    }
    std::vector<std::string> there;
    for (const auto& r : c.rows) {
      if (!gated_family(r, family)) continue;
      const std::string item = r.metric + " (" + r.metric_key + ")";
      if (std::find(there.begin(), there.end(), item) == there.end()) there.push_back(item);
    }
    std::string list;
    for (const auto& item : there) list += (list.empty() ? "" : ", ") + item;
    throw ConfigError("no " + family_noun(family) + " measure '" + measure + "' in these runs" +
                          (list.empty() ? std::string(": they hold none") : "; there are " + list),
                      option_of(family));
  }
}

std::optional<double> threshold_for(const ComparisonRow& r, const Thresholds& t) {
  for (const auto& [measure, percent] : t.by_measure) {
    if (names(r, measure)) return percent;
  }
  return t.every_percent;
}

bool failed_status(const std::string& status) { return !status.empty() && status != to_string(RunStatus::ok); }

void append(std::string& note, const std::string& more) { note += (note.empty() ? "" : "; ") + more; }

void judge(ComparisonRow& r, double percent) {
  r.threshold_percent = percent;
  const auto d = difference(r);
  if (!d) {
    // B's row failed where A's ran: B lost the figure, which no threshold forgives.
    if (r.a && std::isfinite(*r.a) && failed_status(r.b_status) && !failed_status(r.a_status)) {
      r.verdict = Verdict::regressed;
    }
    return;
  }
  if (r.a_std || r.b_std) {
    const auto variance = [](const std::optional<double>& s, const std::optional<int64_t>& n) {
      const double sd = s && std::isfinite(*s) ? *s : 0.0;
      return sd * sd / static_cast<double>(n && *n > 0 ? *n : 1);
    };
    r.noise = kNoiseSigmas * std::sqrt(variance(r.a_std, r.a_samples) + variance(r.b_std, r.b_samples));
  }
  // In percent on both sides: 105 against 100 at 5% is exactly on the threshold, not over it.
  const bool beyond_threshold = *d * 100.0 > percent * *r.a;
  if (!beyond_threshold) {
    r.verdict = Verdict::ok;
  } else if (r.noise && !(*d > *r.noise)) {
    r.verdict = Verdict::within_noise;
    append(r.note, "B - A is within the noise, 2 x sqrt(sA\u00b2/nA + sB\u00b2/nB) = " +
                       schema::display_text(*r.noise, r.kind));
  } else {
    r.verdict = Verdict::regressed;
  }
}

// "1 gated figure", "2 gated figures".
std::string counted(size_t n, const std::string& noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

std::string percent_text(double percent) { return schema::exact_number(percent) + "%"; }

std::string thresholds_text(const Thresholds& t, const std::string& noun) {
  if (t.empty()) return {};
  std::string text = noun + " ";
  if (t.every_percent) text += percent_text(*t.every_percent);
  for (const auto& [measure, percent] : t.by_measure) {
    text += (text.back() == ' ' ? "" : ", ") + measure + " " + percent_text(percent);
  }
  return text;
}

}  // namespace

Thresholds parse_thresholds(const std::string& text, const std::string& field) {
  Thresholds t;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item =
        trimmed(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item.empty()) throw ConfigError("empty item in '" + text + "'", field);
    const size_t equals = item.find('=');
    if (equals == std::string::npos) {
      if (t.every_percent) throw ConfigError("two thresholds for every measure in '" + text + "'", field);
      t.every_percent = parse_percent(item, field);
    } else {
      const std::string measure = trimmed(item.substr(0, equals));
      if (measure.empty()) throw ConfigError("'" + item + "' names no measure before '='", field);
      for (const auto& [known, percent] : t.by_measure) {
        if (lowered(known) == lowered(measure)) throw ConfigError("'" + measure + "' is given twice", field);
      }
      t.by_measure.emplace_back(measure, parse_percent(trimmed(item.substr(equals + 1)), field));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return t;
}

void apply_gate(Comparison& comparison, const GateRule& rule) {
  check_names(comparison, rule.slower, MetricFamily::time);
  check_names(comparison, rule.more_memory, MetricFamily::memory);
  for (auto& r : comparison.rows) {
    r.threshold_percent.reset();
    r.noise.reset();
    r.verdict = Verdict::none;
    if (r.pairing == Pairing::only_a && rule.fail_if_missing) {
      r.verdict = Verdict::regressed;
      append(r.note, "fails --fail-if-missing");
      continue;
    }
    for (const auto family : {MetricFamily::time, MetricFamily::memory}) {
      if (!gated_family(r, family)) continue;
      const auto percent = threshold_for(r, family == MetricFamily::time ? rule.slower : rule.more_memory);
      if (percent) judge(r, *percent);
    }
  }
}

size_t count_regressions(const Comparison& comparison) {
  return static_cast<size_t>(std::count_if(comparison.rows.begin(), comparison.rows.end(),
                                           [](const ComparisonRow& r) { return r.verdict == Verdict::regressed; }));
}

std::string rule_text(const GateRule& rule) {
  if (rule.empty()) return "no gate (--fail-if-slower, --fail-if-more-memory or --fail-if-missing sets one)";
  std::string text;
  const std::string thresholds = [&] {
    std::string parts = thresholds_text(rule.slower, "durations");
    const std::string memory = thresholds_text(rule.more_memory, "sizes");
    if (!memory.empty()) parts += (parts.empty() ? "" : "; ") + memory;
    return parts;
  }();
  if (!thresholds.empty()) {
    text =
        "B regresses when B - A > P x A and B - A > 2 x sqrt(sA\u00b2/nA + sB\u00b2/nB) (s: standard deviation, "
        "n: measured steps; the threshold alone where no spread is kept), or B's row failed where A's ran; P: " +
        thresholds;
  }
  if (rule.fail_if_missing) text += std::string(text.empty() ? "" : "; ") + "a configuration of A that B lacks fails";
  return text;
}

std::string verdict_text(const Comparison& comparison, const GateRule& rule) {
  if (rule.empty()) return "not gated";
  size_t gated = 0, regressed = 0, lost = 0;
  for (const auto& r : comparison.rows) {
    const bool fails = r.verdict == Verdict::regressed;
    if (r.pairing == Pairing::only_a) {
      lost += fails ? 1 : 0;
    } else if (r.verdict != Verdict::none) {
      ++gated;
      regressed += fails ? 1 : 0;
    }
  }
  std::string parts;
  const auto add = [&](const std::string& part) { parts += (parts.empty() ? "" : "; ") + part; };
  if (!rule.slower.empty() || !rule.more_memory.empty()) {
    add(regressed > 0 ? std::to_string(regressed) + " of " + counted(gated, "gated figure") + " regressed"
                      : counted(gated, "gated figure") + " within the rule");
  }
  if (rule.fail_if_missing) {
    add(lost > 0 ? "B lacks " + counted(lost, "configuration") + " of A" : "B has every configuration of A");
  }
  // A gate with nothing to apply to passes, and says so.
  for (const auto family : {MetricFamily::time, MetricFamily::memory}) {
    const Thresholds& t = family == MetricFamily::time ? rule.slower : rule.more_memory;
    if (t.empty()) continue;
    const bool applied = std::any_of(comparison.rows.begin(), comparison.rows.end(), [&](const ComparisonRow& r) {
      return gated_family(r, family) && r.verdict != Verdict::none;
    });
    if (!applied) add("--" + option_of(family) + " found no " + family_noun(family) + " measured by both runs");
  }
  return (regressed + lost > 0 ? "FAIL: " : "PASS: ") + parts;
}

}  // namespace stepscope::compare
