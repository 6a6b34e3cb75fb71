// A run at a glance, for the history's list: how many of how many configurations ran, on which
// device, and its headline figures (those its experiment declares: step time and peak memory,
// bus bandwidth, attention time ...), computed once from the record when it is kept.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "experiments/experiment_descriptor.h"
#include "io/run_record_json.h"
#include "schema/input_values.h"

namespace stepscope {

// One headline column over the rows that measured it: one value, or the range a sweep spans.
struct KeyFigure {
  std::string label;  // the column's: "Step"
  schema::ColumnKind kind = schema::ColumnKind::real;
  double low = 0, high = 0;
};

struct RunDigest {
  size_t ran = 0;      // configurations (rows of the main table) that ran, or were cut short
  size_t planned = 0;  // configurations asked for; 0 when not known
  std::string device;  // "cpu", "cuda:0"; empty when the run names none
  std::vector<KeyFigure> figures;
};

// The run's main table: the step benchmark's configurations, or its experiment's first table.
schema::Table main_table(const RunRecord& record);

// `experiment` declares the headline columns (null: none); `inputs`, what it ran with, give the
// device (null: none; then the main table's device column, if any).
RunDigest digest_run(const RunRecord& record, const ExperimentDescriptor* experiment,
                     const schema::InputValues* inputs, size_t planned);

// Key figures as compact JSON text, for a database column; reading malformed text gives none.
std::string write_key_figures(const std::vector<KeyFigure>& figures);
std::vector<KeyFigure> read_key_figures(const std::string& text);

}  // namespace stepscope
