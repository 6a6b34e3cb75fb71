#include "models/format.h"

#include "schema/value_format.h"

namespace stepscope::views {

// The engine formats; the views only convert to QString.
QString missing_text() { return QString::fromUtf8(schema::missing_text()); }
QString format_significant(double value) { return QString::fromStdString(schema::significant(value)); }
QString format_duration_ns(double ns) { return QString::fromStdString(schema::duration_ns_text(ns)); }
QString format_bytes(int64_t bytes) { return QString::fromStdString(schema::mib_text(bytes)); }
QString format_mean_std(double mean, double std) { return QString::fromStdString(schema::mean_std_text(mean, std)); }
QString format_percent(double percent) { return QString::fromStdString(schema::percent_text(percent)); }

}  // namespace stepscope::views
