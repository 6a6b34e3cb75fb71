#include "experiments/attention/attention_schema.h"

namespace stepscope {

using schema::Column;
using schema::ColumnKind;
using schema::ColumnRole;
using schema::Value;
using schema::value_if;
using Row = AttentionResult;

namespace {

bool measured(const Row& r) { return r.status == RunStatus::ok || (r.status == RunStatus::cancelled && r.forward.count > 0); }

// A mean over the measured passes, whose n is the "passes" column.
Column passes_counted(Column column) {
  column.samples_key = "passes";
  return column;
}

// <phase>_<stat>_ms detail columns for the forward, the backward and their sum.
void add_pass_stat_fields(std::vector<schema::Field<Row>>& f, const std::string& stat, double PhaseStats::*member,
                          const std::string& help) {
  const struct {
    const char* key;
    const char* label;
    const PhaseStats Row::*phase;
  } phases[] = {{"fwd", "Forward", &Row::forward},
                {"bwd", "Backward", &Row::backward},
                {"fwd_bwd", "Fwd+bwd", &Row::forward_backward}};
  for (const auto& p : phases) {
    const auto phase = p.phase;
    f.push_back({Column{std::string(p.key) + "_" + stat + "_ms", std::string(p.label) + " " + stat,
                        ColumnKind::milliseconds, ColumnRole::detail, help},
                 [phase, member](const Row& r) { return value_if(measured(r), (r.*phase).*member); }});
  }
}

// Row identity first (what compare matches rows by), then the measures, then details.
schema::Schema<Row> make_attention_schema() {
  schema::Schema<Row> s{"attention", {}};
  auto& f = s.fields;
  // Identity and status read back too (schema::read_row), so a stored table gives its configurations.
  const auto identity = [&](const char* key, const char* label, ColumnKind kind, std::function<Value(const Row&)> get,
                            std::function<void(Row&, const Value&)> set) {
    f.push_back({Column{key, label, kind, ColumnRole::identity}, std::move(get), std::move(set)});
  };
  identity("impl", "Impl", ColumnKind::text, [](const Row& r) { return Value(to_string(r.config.impl)); },
           [](Row& r, const Value& v) { r.config.impl = parse_attention_impl(schema::text_of(v)); });
  identity("batch", "Batch", ColumnKind::integer, [](const Row& r) { return Value(r.config.batch); },
           [](Row& r, const Value& v) { r.config.batch = schema::integer_of(v); });
  identity("heads", "Heads", ColumnKind::integer, [](const Row& r) { return Value(r.config.heads); },
           [](Row& r, const Value& v) { r.config.heads = schema::integer_of(v); });
  identity("d", "d", ColumnKind::integer, [](const Row& r) { return Value(r.config.head_dim); },
           [](Row& r, const Value& v) { r.config.head_dim = schema::integer_of(v); });
  identity("seq", "Seq", ColumnKind::integer, [](const Row& r) { return Value(r.config.seq); },
           [](Row& r, const Value& v) { r.config.seq = schema::integer_of(v); });
  identity("precision", "Precision", ColumnKind::text, [](const Row& r) { return Value(to_string(r.config.precision)); },
           [](Row& r, const Value& v) { r.config.precision = parse_precision(schema::text_of(v)); });
  identity("causal", "Causal", ColumnKind::text, [](const Row& r) { return Value(std::string(r.config.causal ? "yes" : "no")); },
           [](Row& r, const Value& v) { r.config.causal = schema::text_of(v) == "yes"; });
  f.push_back({Column{"status", "Status", ColumnKind::text, ColumnRole::measure, "ok, OOM, failed or cancelled"},
               [](const Row& r) { return Value(to_string(r.status)); },
               [](Row& r, const Value& v) { r.status = parse_run_status(schema::text_of(v)); }});
  f.push_back({passes_counted(Column{"fwd_ms", "Forward", ColumnKind::milliseconds, ColumnRole::measure,
                      "Mean of the measured forward passes", "fwd_std_ms"}),
               [](const Row& r) { return value_if(measured(r), r.forward.mean_ms); }});
  f.push_back({passes_counted(Column{"bwd_ms", "Backward", ColumnKind::milliseconds, ColumnRole::measure,
                      "Mean of the measured backward passes", "bwd_std_ms"}),
               [](const Row& r) { return value_if(measured(r), r.backward.mean_ms); }});
  f.push_back({passes_counted(Column{"fwd_bwd_ms", "Fwd+bwd", ColumnKind::milliseconds, ColumnRole::measure,
                      "Mean of forward + backward, pass by pass", "fwd_bwd_std_ms"}),
               [](const Row& r) { return value_if(measured(r), r.forward_backward.mean_ms); }});
  f.push_back({Column{"fwd_tflops", "Fwd throughput", ColumnKind::tflop_per_second, ColumnRole::measure,
                      "4*b*h*s^2*d / forward time, halved when causal (FlashAttention's convention)"},
               [](const Row& r) { return value_if(measured(r) && r.forward.mean_ms > 0, r.forward_tflops); }});
  f.push_back({Column{"bwd_tflops", "Bwd throughput", ColumnKind::tflop_per_second, ColumnRole::measure,
                      "2.5x the forward's FLOPs / backward time"},
               [](const Row& r) { return value_if(measured(r) && r.backward.mean_ms > 0, r.backward_tflops); }});
  f.push_back({Column{"mem_before_bwd_bytes", "Memory before bwd", ColumnKind::bytes, ColumnRole::measure,
                      "Allocated after a forward pass, before its backward: what the backward keeps"},
               [](const Row& r) { return value_if(r.memory_before_backward_bytes >= 0, r.memory_before_backward_bytes); }});
  f.push_back({Column{"peak_bytes", "Peak memory", ColumnKind::bytes, ColumnRole::measure,
                      "Peak allocated during the measured passes"},
               [](const Row& r) { return value_if(r.peak_memory_bytes >= 0, r.peak_memory_bytes); }});
  f.push_back({Column{"max_abs_err", "Max |error|", ColumnKind::real, ColumnRole::measure,
                      "Largest |error| of O, dQ, dK, dV against naive attention in fp32 on the same inputs"},
               [](const Row& r) { return value_if(r.max_abs_error >= 0, r.max_abs_error); }});
  // Spread, then the median and minimum: a pass of a host-bound cell (0.1 ms) that the host delays
  // moves the mean by its whole delay / passes, the median not at all.
  add_pass_stat_fields(f, "std", &PhaseStats::std_ms, "");
  add_pass_stat_fields(f, "median", &PhaseStats::median_ms, "Median of the passes: robust to the pass the host delays");
  add_pass_stat_fields(f, "min", &PhaseStats::min_ms, "Fastest pass");
  f.push_back({Column{"passes", "Passes", ColumnKind::integer, ColumnRole::detail, "Measured forward (and backward) passes"},
               [](const Row& r) { return value_if(measured(r), r.forward.count); }});
  f.push_back({Column{"checked_seq", "Checked at seq", ColumnKind::integer, ColumnRole::detail,
                      "Sequence length of the error check (shorter where naive fp32 would not fit)"},
               [](const Row& r) { return value_if(r.max_abs_error >= 0, r.checked_seq); }});
  f.push_back({Column{"device", "Device", ColumnKind::text, ColumnRole::detail},
               [](const Row& r) { return Value(r.device_name); }});
  f.push_back({Column{"timer", "Timer", ColumnKind::text, ColumnRole::detail},
               [](const Row& r) { return Value(r.timer); }});
  f.push_back({Column{"message", "Message", ColumnKind::text, ColumnRole::note},
               [](const Row& r) { return Value(r.message); }});
  return s;
}

}  // namespace

const schema::Schema<AttentionResult>& attention_schema() {
  static const auto schema = make_attention_schema();
  return schema;
}

}  // namespace stepscope
