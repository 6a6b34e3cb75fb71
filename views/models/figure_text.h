// A measured number as people read it with its unit ("12.35 ms", "24.0 MiB", "1234/s"), and a
// run's key figures as one line of the history: what the compare window and the history
// dock both show.
#pragma once

#include <QString>

#include <vector>

#include "io/run_record_digest.h"
#include "schema/column.h"

namespace stepscope::views {

QString value_with_unit(double value, schema::ColumnKind kind);
// "Step 12.35 ms · Peak memory 24.0 MiB"; a sweep's range as "0.12 ms – 35.10 ms".
QString key_figures_text(const std::vector<KeyFigure>& figures);

}  // namespace stepscope::views
