// What the benchmark charts draw, as plain data from benchmark results: per configuration,
// the mean time of each step phase stacked, with one standard deviation as error bars; and
// per configuration, the total time of every measured step.
#pragma once

#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <array>
#include <vector>

#include "runners/bench_types.h"

namespace stepscope::views {

// "small ctx256 fp32 train"; the batch ("b4") too when `with_batch`.
QString configuration_label(const BenchConfig& config, bool with_batch);
// One label per result, in order: with the batch only where the results' batches differ,
// and "(2)", "(3)" after repeats, so that every label names one bar.
QStringList configuration_labels(const std::vector<BenchResult>& results);
// The same, each saying only what tells it from the others ("ctx64 train", "ctx128 train"):
// legends, which a small chart would otherwise cut to "tiny ctx...". One configuration keeps all.
QStringList distinguishing_labels(const std::vector<BenchResult>& results);

// The phases a step is split into, bottom of the stack first.
inline constexpr size_t kBenchPhaseCount = 3;
// "forward", "backward", "optimizer step" (the names phase_color() knows).
const std::array<QString, kBenchPhaseCount>& bench_phase_names();

struct ErrorBar {
  int bar = 0;         // index into BenchBarData::labels
  size_t phase = 0;    // the segment whose top it marks
  double value = 0;    // the segment's top: the means stacked up to and including it
  double low = 0, high = 0;  // value -/+ the phase's standard deviation (low not below 0)
};

struct BenchBarData {
  QStringList labels;                                   // one bar per result
  std::array<bool, kBenchPhaseCount> phase_used{};      // some result ran it
  std::array<std::vector<double>, kBenchPhaseCount> mean_ms;  // per bar; 0 where not run or failed
  std::vector<ErrorBar> error_bars;                     // for each phase run by a bar that ran
  QStringList failures;  // per bar: "" when drawn, else "out of memory", "failed", "cancelled" or
                         // why the chart cannot draw it ("left out (the table lists it): ...")
  double max_ms = 0;     // the highest bar or whisker
};

BenchBarData build_bench_bar_data(const std::vector<BenchResult>& results);

struct StepLine {
  QString label;
  QList<QPointF> points;  // (measured step index from 0, total ms)
};

// One line per result that ran, in result order (failed ones have no steps).
std::vector<StepLine> build_step_lines(const std::vector<BenchResult>& results);

}  // namespace stepscope::views
