// What the DDP tab's step chart draws from a DDP table: per row, the step split into
// forward, backward, exposed communication (what was left after backward ended), optimizer and
// the rest (the step's time outside those: zeroing gradients, the loop), so a bar's length is
// the measured step time. Also the short label every DDP chart names a row by.
#pragma once

#include <QColor>
#include <QString>
#include <QStringList>
#include <array>
#include <vector>

#include "experiments/ddp/ddp_types.h"
#include "schema/table.h"

namespace stepscope::views {

// "naive x2", "bucketed 10 MiB x2".
QString ddp_row_label(const DdpConfig& config);

enum class DdpPhase { forward, backward, exposed_comm, optimizer, other };
inline constexpr size_t kDdpPhaseCount = 5;
// "forward", "backward", "exposed comm", "optimizer", "other"; bottom of the stack first.
const std::array<QString, kDdpPhaseCount>& ddp_phase_names();
QColor ddp_phase_color(DdpPhase phase);

struct DdpStepData {
  QStringList labels;                                  // one bar per row, in table order
  std::array<std::vector<double>, kDdpPhaseCount> ms;  // per phase, per bar; 0 where unmeasured
  QStringList failures;  // per bar: "" when drawn, else its status ("failed", "cancelled") or why
                         // the chart cannot draw it ("left out (the table lists it): ...")
  double max_ms = 0;     // the longest bar
};

// Rows of another schema, or that cannot be read, are left out.
DdpStepData build_ddp_step_data(const schema::Table& ddp);

}  // namespace stepscope::views
