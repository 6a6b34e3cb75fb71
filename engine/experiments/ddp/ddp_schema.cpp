#include "experiments/ddp/ddp_schema.h"

#include "experiments/ddp/ddp_row_fields.h"

namespace stepscope {

using schema::Column;
using schema::ColumnKind;
using schema::ColumnRole;
using schema::Value;
using schema::value_if;
using Row = DdpResult;

namespace {

bool measured(const Row& r) { return r.status == RunStatus::ok && r.step_ms >= 0; }

using Time = double Row::*;

void add_time(schema::Schema<Row>& s, const char* key, const char* label, Time member, const char* description) {
  s.fields.push_back({Column{key, label, ColumnKind::milliseconds, ColumnRole::measure, description},
                      [member](const Row& r) { return value_if(measured(r) && r.*member >= 0, r.*member); }});
}

schema::Schema<Row> make_ddp_schema() {
  schema::Schema<Row> s{"ddp", {}};
  auto& f = s.fields;
  add_ddp_row_fields(s);
  f.push_back({Column{"rank", "Rank", ColumnKind::integer, ColumnRole::identity,
                      "A rank's own times; empty: the slowest rank's, per time"},
               [](const Row& r) { return value_if(r.rank >= 0, int64_t{r.rank}); },
               [](Row& r, const Value& v) { r.rank = std::holds_alternative<int64_t>(v) ? static_cast<int>(schema::integer_of(v)) : -1; }});
  f.push_back({Column{"backend", "Backend", ColumnKind::text, ColumnRole::identity},
               [](const Row& r) { return Value(to_string(r.config.backend)); },
               [](Row& r, const Value& v) { r.config.backend = parse_comm_backend(schema::text_of(v)); }});
  f.push_back({Column{"model", "Model", ColumnKind::text, ColumnRole::identity},
               [](const Row& r) { return Value(r.config.model.name); }});
  f.push_back({Column{"context", "Context", ColumnKind::integer, ColumnRole::identity},
               [](const Row& r) { return Value(r.config.context); },
               [](Row& r, const Value& v) { r.config.context = schema::integer_of(v); }});
  f.push_back({Column{"batch", "Batch/rank", ColumnKind::integer, ColumnRole::identity, "Sequences per rank"},
               [](const Row& r) { return Value(r.config.batch); },
               [](Row& r, const Value& v) { r.config.batch = schema::integer_of(v); }});
  f.push_back({Column{"precision", "Precision", ColumnKind::text, ColumnRole::identity},
               [](const Row& r) { return Value(to_string(r.config.precision)); },
               [](Row& r, const Value& v) { r.config.precision = parse_precision(schema::text_of(v)); }});
  add_time(s, "step_ms", "Step", &Row::step_ms, "Whole step: mean over the measured steps, max over ranks");
  add_time(s, "forward_ms", "Forward", &Row::forward_ms,
           "Forward and loss (zero1: with the waits for the parameters gathered under it)");
  add_time(s, "backward_ms", "Backward", &Row::backward_ms, "Backward, with what the hooks communicate");
  add_time(s, "comm_ms", "Comm", &Row::comm_ms,
           "Inside all-reduce calls and their waits (empty under CUDA graphs, where no call runs on the host)");
  add_time(s, "exposed_comm_ms", "Exposed comm", &Row::exposed_comm_ms,
           "Communication left after backward ended (under CUDA graphs: timed by events in the backward graph)");
  add_time(s, "optimizer_ms", "Optimizer", &Row::optimizer_ms,
           "AdamW step (sharded: with its broadcasts; zero1: this rank's share only, its all-gathers run in the "
           "next forward)");
  f.push_back({Column{"optimizer_state_bytes", "Optimizer state", ColumnKind::bytes, ColumnRole::measure,
                      "AdamW's moments held by the rank (all ranks: the largest)"},
               [](const Row& r) { return value_if(r.optimizer_state_bytes >= 0, r.optimizer_state_bytes); },
               [](Row& r, const Value& v) { r.optimizer_state_bytes = schema::number_of(v) ? schema::integer_of(v) : -1; }});
  f.push_back({Column{"comm_bytes", "Comm bytes", ColumnKind::bytes, ColumnRole::measure,
                      "Bytes the gradient collectives carried per step (their buffers' size; all ranks: the "
                      "largest)"},
               [](const Row& r) { return value_if(r.comm_bytes >= 0, r.comm_bytes); },
               [](Row& r, const Value& v) { r.comm_bytes = schema::number_of(v) ? schema::integer_of(v) : -1; }});
  f.push_back({Column{"max_param_diff", "Max |param diff|", ColumnKind::real, ColumnRole::measure,
                      "--check: largest parameter difference from one process on the whole global batch"},
               [](const Row& r) { return value_if(r.max_param_diff >= 0, r.max_param_diff); }});
  f.push_back({Column{"sm_carveout", "SMs left to NCCL", ColumnKind::integer, ColumnRole::detail,
                      "SMs the matmuls left to the collectives beside them (--sm-carveout)"},
               [](const Row& r) { return Value(int64_t{r.config.sm_carveout}); },
               [](Row& r, const Value& v) {
                 r.config.sm_carveout = schema::number_of(v) ? static_cast<int>(schema::integer_of(v)) : 0;
               }});
  f.push_back({Column{"cuda_graphs", "CUDA graphs", ColumnKind::text, ColumnRole::detail,
                      "Whether the measured steps replayed CUDA graphs (collectives captured in the backward graph)"},
               [](const Row& r) { return Value(std::string(r.cuda_graphs_used ? "yes" : "no")); },
               [](Row& r, const Value& v) { r.cuda_graphs_used = schema::text_of(v) == "yes"; }});
  f.push_back({Column{"status", "Status", ColumnKind::text, ColumnRole::measure, "ok, OOM, failed or cancelled"},
               [](const Row& r) { return Value(to_string(r.status)); },
               [](Row& r, const Value& v) { r.status = parse_run_status(schema::text_of(v)); }});
  f.push_back({Column{"message", "Message", ColumnKind::text, ColumnRole::note},
               [](const Row& r) { return Value(r.message); }});
  return s;
}

}  // namespace

const schema::Schema<DdpResult>& ddp_schema() {
  static const auto schema = make_ddp_schema();
  return schema;
}

}  // namespace stepscope
