#include "models/format.h"

#include "schema/value_format.h"

namespace stepscope::views {

// The engine formats; the views only convert to QString.
QString missing_text() { return QString::fromUtf8(schema::missing_text()); }
QString format_significant(double value) { return QString::fromStdString(schema::significant(value)); }
QString format_duration_ns(double ns) { return QString::fromStdString(schema::duration_ns_text(ns)); }
QString format_bytes(int64_t bytes) { return QString::fromStdString(schema::bytes_text(static_cast<double>(bytes))); }
QString format_count(int64_t count) { return QString::fromStdString(schema::count_text(static_cast<double>(count))); }
QString format_duration_ms(double ms) { return QString::fromStdString(schema::duration_ms_text(ms)); }
QString format_mean_std_ms(double mean, double std) { return QString::fromStdString(schema::duration_ms_text(mean, std)); }
QString format_percent(double percent) { return QString::fromStdString(schema::percent_text(percent)); }

}  // namespace stepscope::views
