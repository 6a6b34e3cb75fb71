#include "experiments/collectives/collective_schema.h"

namespace stepscope {

using schema::Column;
using schema::ColumnKind;
using schema::ColumnRole;
using schema::Value;
using schema::value_if;
using Row = CollectiveResult;

namespace {

bool measured(const Row& r) { return r.status == RunStatus::ok && r.time_us > 0; }

schema::Schema<Row> make_collective_schema() {
  schema::Schema<Row> s{"collective", {}};
  auto& f = s.fields;
  // Identity columns read back too (schema::read_row), so a stored table gives its configurations.
  f.push_back({Column{"op", "Op", ColumnKind::text, ColumnRole::identity}, [](const Row& r) { return Value(to_string(r.config.op)); },
               [](Row& r, const Value& v) { r.config.op = parse_collective_op(schema::text_of(v)); }});
  f.push_back({Column{"backend", "Backend", ColumnKind::text, ColumnRole::identity},
               [](const Row& r) { return Value(to_string(r.config.backend)); },
               [](Row& r, const Value& v) { r.config.backend = parse_comm_backend(schema::text_of(v)); }});
  f.push_back({Column{"nproc", "Ranks", ColumnKind::integer, ColumnRole::identity},
               [](const Row& r) { return Value(int64_t{r.config.ranks}); },
               [](Row& r, const Value& v) { r.config.ranks = static_cast<int>(schema::integer_of(v)); }});
  f.push_back({Column{"size_bytes", "Size", ColumnKind::bytes, ColumnRole::identity, "nccl-tests' size in bytes: the full buffer"},
               [](const Row& r) { return Value(r.config.size_bytes); },
               [](Row& r, const Value& v) { r.config.size_bytes = schema::integer_of(v); }});
  f.push_back({Column{"count", "Count", ColumnKind::integer, ColumnRole::measure, "Elements of the full buffer"},
               [](const Row& r) { return Value(r.count); }});
  f.push_back({Column{"type", "Type", ColumnKind::text, ColumnRole::identity},
               [](const Row& r) { return Value(to_string(r.config.dtype)); },
               [](Row& r, const Value& v) { r.config.dtype = parse_precision(schema::text_of(v)); }});
  f.push_back({Column{"time_us", "Time", ColumnKind::microseconds, ColumnRole::measure,
                      "Mean over the measured iterations, of the slowest rank"},
               [](const Row& r) { return value_if(measured(r), r.time_us); }});
  f.push_back({Column{"algbw_gbps", "algbw", ColumnKind::gb_per_second, ColumnRole::measure, "size / time"},
               [](const Row& r) { return value_if(measured(r), r.algbw_gbps); }});
  f.push_back({Column{"busbw_gbps", "busbw", ColumnKind::gb_per_second, ColumnRole::measure,
                      "algbw x nccl-tests' factor: all-reduce 2(n-1)/n, reduce-scatter and all-gather (n-1)/n, "
                      "broadcast 1"},
               [](const Row& r) { return value_if(measured(r), r.busbw_gbps); }});
  f.push_back({Column{"wrong", "#wrong", ColumnKind::integer, ColumnRole::measure,
                      "Elements that differ from the expected result, over all ranks"},
               [](const Row& r) { return value_if(r.wrong >= 0, r.wrong); }});
  f.push_back({Column{"status", "Status", ColumnKind::text, ColumnRole::measure, "ok, OOM, failed or cancelled"},
               [](const Row& r) { return Value(to_string(r.status)); },
               [](Row& r, const Value& v) { r.status = parse_run_status(schema::text_of(v)); }});
  f.push_back({Column{"native", "Native", ColumnKind::text, ColumnRole::detail,
                      "no: the backend lacks the collective (Gloo's reduce-scatter runs as an all-reduce and a slice)"},
               [](const Row& r) { return Value(std::string(r.native ? "yes" : "no")); }});
  f.push_back({Column{"iters", "Iterations", ColumnKind::integer, ColumnRole::detail},
               [](const Row& r) { return Value(int64_t{r.config.iters}); }});
  f.push_back({Column{"device", "Device", ColumnKind::text, ColumnRole::detail},
               [](const Row& r) { return Value(r.device_name); }});
  f.push_back({Column{"message", "Message", ColumnKind::text, ColumnRole::note},
               [](const Row& r) { return Value(r.message); }});
  return s;
}

}  // namespace

const schema::Schema<CollectiveResult>& collective_schema() {
  static const auto schema = make_collective_schema();
  return schema;
}

}  // namespace stepscope
