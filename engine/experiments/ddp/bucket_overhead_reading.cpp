#include "experiments/ddp/bucket_overhead_reading.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "core/config_error.h"
#include "experiments/collectives/collective_schema.h"
#include "experiments/ddp/ddp_schema.h"
#include "model/model_config.h"
#include "schema/schema.h"
#include "schema/value_format.h"

namespace stepscope {

namespace {

double number_at(const schema::Table& table, size_t row, const char* key) {
  const int c = table.column_index(key);
  if (c < 0 || static_cast<size_t>(c) >= table.rows[row].size()) return -1;
  return schema::number_of(table.rows[row][static_cast<size_t>(c)]).value_or(-1);
}

std::string text_at(const schema::Table& table, size_t row, const char* key) {
  const int c = table.column_index(key);
  if (c < 0 || static_cast<size_t>(c) >= table.rows[row].size()) return {};
  return schema::text_of(table.rows[row][static_cast<size_t>(c)]);
}

struct DdpRow {
  DdpResult result;
  std::string model;
};

std::vector<DdpRow> bucketed_rows(const schema::Table& table) {
  std::vector<DdpRow> rows;
  if (table.schema != ddp_schema().id) return rows;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    try {
      DdpRow row{schema::read_row(ddp_schema(), table, i), text_at(table, i, "model")};
      if (row.result.config.variant != distributed::DdpVariant::bucketed) continue;
      row.result.exposed_comm_ms = number_at(table, i, "exposed_comm_ms");
      rows.push_back(row);
    } catch (const std::exception&) {
      // A row of a newer build (a variant this one does not know).
    }
  }
  return rows;
}

// fp32 gradients: what every rank all-reduces per step. 0 for a model that is not a preset.
double gradient_bytes(const std::string& model) {
  try {
    return static_cast<double>(parameter_count(model_preset(model))) * static_cast<double>(element_bytes_of(Precision::fp32));
  } catch (const ConfigError&) {
    return 0;
  }
}

std::string ms_text(double ms) { return schema::duration_ns_text(ms * 1e6); }

}  // namespace

std::vector<CollectiveResult> collective_rows(const schema::Table& table) {
  std::vector<CollectiveResult> rows;
  if (table.schema != collective_schema().id) return rows;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    try {
      CollectiveResult r = schema::read_row(collective_schema(), table, i);
      r.time_us = number_at(table, i, "time_us");
      rows.push_back(r);
    } catch (const std::exception&) {
      // A collective or element type this build does not know.
    }
  }
  return rows;
}

std::optional<BucketOverheadReading> bucket_overhead_reading(const schema::Table& ddp, const schema::Table& collectives) {
  const auto measured = collective_rows(collectives);
  const auto keys = all_reduce_keys(measured);
  if (keys.empty()) return std::nullopt;
  const auto rows = bucketed_rows(ddp);
  BucketOverheadReading reading;
  reading.key = keys.front();
  if (!rows.empty()) {
    const AllReduceKey wanted{rows.front().result.config.backend, rows.front().result.config.ranks, Precision::fp32};
    if (std::find(keys.begin(), keys.end(), wanted) != keys.end()) {
      reading.key = wanted;
    } else {
      reading.problem = "no all-reduce rows for " + describe(wanted) + " (the DDP rows'): showing " + describe(reading.key);
    }
    reading.model = rows.front().model;
    reading.param_bytes = gradient_bytes(reading.model);
  }
  // One fit per backend and world size the rows need; a refusal is the row's formula.
  std::map<std::string, std::optional<AllReduceFit>> fits;
  std::map<std::string, std::string> refusals;
  const auto fit_of = [&](const AllReduceKey& key) -> std::optional<AllReduceFit> {
    const std::string name = describe(key);
    if (!fits.count(name)) {
      const auto samples = all_reduce_samples(measured, key);
      try {
        if (samples.empty()) throw ConfigError("no all-reduce rows for " + name, "op");
        fits[name] = fit_all_reduce(samples);
      } catch (const ConfigError& e) {
        fits[name] = std::nullopt;
        refusals[name] = e.what();
      }
    }
    return fits[name];
  };
  reading.fit = fit_of(reading.key);
  if (!reading.fit) {
    reading.problem = refusals[describe(reading.key)];
  } else if (reading.param_bytes > 0) {
    try {
      reading.optimum = bucket_optimum(*reading.fit, reading.param_bytes);
    } catch (const ConfigError& e) {
      reading.problem = e.what();
    }
  } else if (!rows.empty()) {
    reading.problem = "model '" + reading.model + "' is not a preset: its parameter bytes are unknown";
  }
  for (const auto& row : rows) {
    const DdpConfig& c = row.result.config;
    BucketRowReading r;
    r.bucket_mb = c.bucket_mb;
    r.ranks = c.ranks;
    r.measured_ms = row.result.status == RunStatus::ok ? row.result.exposed_comm_ms : -1;
    const double s = gradient_bytes(row.model);
    r.buckets = bucket_count(s, static_cast<double>(bucket_bytes(c)));
    const AllReduceKey key{c.backend, c.ranks, Precision::fp32};
    const auto fit = fit_of(key);
    if (!fit) {
      r.formula = refusals[describe(key)];
    } else if (s <= 0) {
      r.formula = "model '" + row.model + "' is not a preset";
    } else {
      r.predicted_ms = predicted_overhead_s(*fit, s, r.buckets) * 1e3;
      r.formula = overhead_text(*fit, s, r.buckets);
    }
    reading.rows.push_back(r);
  }
  return reading;
}

std::string reading_text(const BucketOverheadReading& reading) {
  std::ostringstream s;
  s << "All-reduce " << describe(reading.key) << ": ";
  if (reading.fit) {
    s << fit_text(*reading.fit) << "\n";
  } else {
    s << "no fit\n";
  }
  if (!reading.problem.empty()) s << "Note: " << reading.problem << "\n";
  if (reading.param_bytes > 0) {
    s << "s = parameters of " << reading.model << " x 4 bytes (fp32 gradients) = "
      << schema::mib_text(static_cast<int64_t>(reading.param_bytes)) << "\n";
  }
  if (reading.optimum && reading.fit) s << optimum_text(*reading.fit, reading.param_bytes) << "\n";
  if (reading.rows.empty()) s << "No bucketed DDP rows: run the bucketed variant to set s and compare\n";
  for (const auto& r : reading.rows) {
    s << "bucketed " << schema::exact_number(r.bucket_mb) << " MiB x" << r.ranks << ": n_b = " << r.buckets << "; predicted "
      << (r.predicted_ms >= 0 ? ms_text(r.predicted_ms) : std::string("-")) << ", measured (exposed comm) "
      << (r.measured_ms >= 0 ? ms_text(r.measured_ms) : std::string("-")) << "\n  " << r.formula << "\n";
  }
  return s.str();
}

}  // namespace stepscope
