// What the Attention tab's two charts draw from a sweep's table: forward + backward time, or
// memory in use before the backward, against the sequence length, one line per implementation
// (plus head dim, precision, causal, batch and heads where they vary among the lines shown),
// both axes logarithmic so naive's s^2 and flash's s read as straight lines of different
// slopes. Configurations that ran out of memory or failed are marks on the x axis.
#pragma once

#include <QString>
#include <vector>

#include "charts/sweep_chart_data.h"
#include "schema/table.h"

namespace stepscope::views {

enum class AttentionMeasure { forward_backward_time, memory_before_backward };

// Which rows the charts show: 0 / empty for all head dims / precisions.
struct AttentionChartFilter {
  int64_t head_dim = 0;
  QString precision;
};

SweepChartData build_attention_chart_data(const schema::Table& table, AttentionMeasure measure,
                                          const AttentionChartFilter& filter = {});

// The head dims and precisions in a table, in order of first appearance (for the filters).
std::vector<int64_t> attention_head_dims(const schema::Table& table);
std::vector<QString> attention_precisions(const schema::Table& table);

}  // namespace stepscope::views
