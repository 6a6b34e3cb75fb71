#include "experiments/bench/bench_schema.h"

namespace stepscope {

using schema::Column;
using schema::ColumnKind;
using schema::ColumnRole;
using schema::Field;
using schema::Value;
using schema::value_if;

namespace {

using Row = BenchResult;

double real(const Value& v) { return schema::number_of(v).value_or(0.0); }
const std::string& text(const Value& v) { return schema::text_of(v); }

// A column read from and written to one member, reached by `at`. A missing value (an import's
// model settings) leaves the member as the record's config has it.
template <class At>
Field<Row> integer_field(Column column, At at) {
  return {std::move(column), [at](const Row& r) { return Value(static_cast<int64_t>(at(const_cast<Row&>(r)))); },
          [at](Row& r, const Value& v) {
            if (!schema::is_missing(v)) at(r) = static_cast<std::remove_reference_t<decltype(at(r))>>(schema::integer_of(v));
          }};
}
template <class At>
Field<Row> text_field(Column column, At at) {
  return {std::move(column), [at](const Row& r) { return Value(at(const_cast<Row&>(r))); },
          [at](Row& r, const Value& v) {
            if (!schema::is_missing(v)) at(r) = text(v);
          }};
}

// A column that says something of our own model and run only: missing for an imported profile,
// whose config holds defaults (runners/bench_types.h, imported_from).
Field<Row> ours_only(Field<Row> field) {
  field.get = [get = std::move(field.get)](const Row& r) { return is_import(r) ? Value{} : get(r); };
  return field;
}

const char* const kStats[] = {"mean", "std", "min", "median", "max"};
double PhaseStats::*const kStatMembers[] = {&PhaseStats::mean_ms, &PhaseStats::std_ms, &PhaseStats::min_ms,
                                             &PhaseStats::median_ms, &PhaseStats::max_ms};
const char* const kPhaseLabels[] = {"Step", "Forward", "Backward", "Optimizer"};

void add_phase_fields(std::vector<Field<Row>>& fields) {
  for (StepPhase phase : {StepPhase::total, StepPhase::forward, StepPhase::backward, StepPhase::optimizer}) {
    const std::string name = to_string(phase);
    for (size_t s = 0; s < 5; ++s) {
      const auto member = kStatMembers[s];
      Column column{name + "_" + kStats[s] + "_ms",
                    std::string(kPhaseLabels[static_cast<int>(phase)]) + (s == 0 ? "" : std::string(" ") + kStats[s]),
                    ColumnKind::milliseconds,
                    s == 0 ? ColumnRole::measure : ColumnRole::detail,
                    s == 0 ? "Mean over the measured steps; shown with the standard deviation" : ""};
      if (s == 0) column.spread_key = name + "_std_ms";
      fields.push_back({column,
                        [phase, member](const Row& r) {
                          const PhaseStats& p = stats_of(r, phase);
                          return value_if(p.count > 0, p.*member);
                        },
                        [phase, member](Row& r, const Value& v) {
                          if (schema::is_missing(v)) return;
                          PhaseStats& p = stats_of(r, phase);
                          p.*member = real(v);
                          // A phase has a value for every measured step it ran in.
                          p.count = static_cast<int>(r.steps.size());
                        }});
    }
  }
}

schema::Schema<Row> make_bench_schema() {
  schema::Schema<Row> s{"bench", {}};
  auto& f = s.fields;
  const auto identity = [](std::string key, std::string label, ColumnKind kind = ColumnKind::text) {
    return Column{std::move(key), std::move(label), kind, ColumnRole::identity};
  };
  const auto detail = [](std::string key, std::string label, ColumnKind kind, std::string description = {}) {
    return Column{std::move(key), std::move(label), kind, ColumnRole::detail, std::move(description)};
  };
  // An import is named by its file here: describe(BenchResult).
  f.push_back({identity("model", "Model"),
               [](const Row& r) { return Value(is_import(r) ? describe(r) : r.config.model.name); },
               [](Row& r, const Value& v) {
                 if (!schema::is_missing(v)) r.config.model.name = text(v);
               }});
  f.push_back(ours_only(integer_field(detail("d_model", "d_model", ColumnKind::integer), [](Row& r) -> int64_t& { return r.config.model.d_model; })));
  f.push_back(ours_only(integer_field(detail("d_ff", "d_ff", ColumnKind::integer), [](Row& r) -> int64_t& { return r.config.model.d_ff; })));
  f.push_back(ours_only(integer_field(detail("layers", "Layers", ColumnKind::integer), [](Row& r) -> int64_t& { return r.config.model.num_layers; })));
  f.push_back(ours_only(integer_field(detail("heads", "Heads", ColumnKind::integer), [](Row& r) -> int64_t& { return r.config.model.num_heads; })));
  f.push_back(ours_only(integer_field(detail("vocab", "Vocabulary", ColumnKind::integer), [](Row& r) -> int64_t& { return r.config.model.vocab_size; })));
  f.push_back(ours_only(integer_field(identity("context", "Context", ColumnKind::integer), [](Row& r) -> int64_t& { return r.config.context; })));
  f.push_back(ours_only(integer_field(identity("batch", "Batch", ColumnKind::integer), [](Row& r) -> int64_t& { return r.config.batch; })));
  f.push_back(ours_only({identity("precision", "Precision"), [](const Row& r) { return Value(to_string(r.config.precision)); },
                         [](Row& r, const Value& v) {
                           if (!schema::is_missing(v)) r.config.precision = parse_precision(text(v));
                         }}));
  f.push_back(ours_only({identity("mode", "Mode"), [](const Row& r) { return Value(to_string(r.config.mode)); },
                         [](Row& r, const Value& v) {
                           if (!schema::is_missing(v)) r.config.mode = parse_step_mode(text(v));
                         }}));
  // Attention, engine, CUDA graphs and the loss difference are not read back from tables: files
  // older than these columns have none, and the run record holds them.
  f.push_back(ours_only({identity("attention", "Attention"), [](const Row& r) { return Value(to_string(r.config.model.attention)); }}));
  f.push_back(ours_only({identity("engine", "Engine"), [](const Row& r) { return Value(to_string(r.config.engine)); }}));
  f.push_back({detail("device", "Device", ColumnKind::text), [](const Row& r) { return Value(to_string(r.config.device)); },
               [](Row& r, const Value& v) { r.config.device = parse_device(text(v)); }});
  f.push_back(text_field(detail("device_name", "Device name", ColumnKind::text), [](Row& r) -> std::string& { return r.device_name; }));
  f.push_back(text_field(detail("timer", "Timer", ColumnKind::text,
                                "cuda-events or steady-clock; for an imported trace, what its step times are"), [](Row& r) -> std::string& { return r.timer; }));
  f.push_back(ours_only(integer_field(detail("warmup", "Warm-up steps", ColumnKind::integer), [](Row& r) -> int& { return r.config.warmup_steps; })));
  // Derived: the steps themselves are kept beside the row.
  f.push_back({detail("steps", "Measured steps", ColumnKind::integer),
               [](const Row& r) { return Value(static_cast<int64_t>(r.steps.size())); }});
  f.push_back({Column{"status", "Status", ColumnKind::text, ColumnRole::measure, "ok, OOM, failed or cancelled"},
               [](const Row& r) { return Value(to_string(r.status)); },
               [](Row& r, const Value& v) { r.status = parse_run_status(text(v)); }});
  add_phase_fields(f);
  const auto measured = [](const Row& r) { return r.total.count > 0; };
  f.push_back(ours_only({Column{"tokens_per_s", "Tokens", ColumnKind::per_second, ColumnRole::measure},
                         [measured](const Row& r) { return value_if(measured(r), r.tokens_per_second); },
                         [](Row& r, const Value& v) { r.tokens_per_second = real(v); }}));
  f.push_back(ours_only(integer_field(detail("parameters", "Parameters", ColumnKind::integer), [](Row& r) -> int64_t& { return r.parameters; })));
  f.push_back(ours_only({detail("flops_per_step", "FLOPs/step", ColumnKind::real, "Matrix-multiply FLOPs of one step"),
                         [](const Row& r) { return Value(r.flops_per_step); },
                         [](Row& r, const Value& v) { r.flops_per_step = real(v); }}));
  f.push_back(ours_only({detail("achieved_tflops", "Throughput", ColumnKind::tflop_per_second),
                         [measured](const Row& r) { return value_if(measured(r), r.achieved_tflops); },
                         [](Row& r, const Value& v) { r.achieved_tflops = real(v); }}));
  f.push_back({detail("peak_tflops", "Peak throughput", ColumnKind::tflop_per_second, "The device's dense peak for the precision"),
               [](const Row& r) { return value_if(r.peak_tflops > 0, r.peak_tflops); },
               [](Row& r, const Value& v) { r.peak_tflops = real(v); }});
  f.push_back(ours_only({Column{"mfu", "MFU", ColumnKind::fraction, ColumnRole::measure,
                                "Model FLOPs utilisation; shown in %, exported as a fraction"},
                         [measured](const Row& r) { return value_if(measured(r) && !(r.mfu < 0), r.mfu); },
                         [](Row& r, const Value& v) { r.mfu = schema::is_missing(v) ? -1 : real(v); }}));
  f.push_back({Column{"peak_memory_bytes", "Peak memory", ColumnKind::bytes, ColumnRole::measure,
                      "Peak memory during the measured steps; shown in MiB, exported in bytes"},
               [](const Row& r) { return value_if(r.peak_memory_bytes >= 0, r.peak_memory_bytes); },
               [](Row& r, const Value& v) { r.peak_memory_bytes = schema::is_missing(v) ? -1 : schema::integer_of(v); }});
  // The profilers' own steps (profiles_in_own_steps): what the profile's steps took, and so
  // what tracing cost. Not read back from tables (older files have no such column): the run
  // record holds them (BenchResult::profiled).
  f.push_back(ours_only({detail("profiled_step_ms", "Profiled step", ColumnKind::milliseconds,
                                "Mean step while the kernel and operator profilers traced it, in steps of their own "
                                "after the measured ones (on a GPU)"),
                         [](const Row& r) { return value_if(r.profiled.count > 0, r.profiled.mean_ms); }}));
  f.push_back(ours_only({detail("profiler_slowdown", "Profiler slowdown", ColumnKind::real,
                                "Profiled step / measured step: what tracing every operator and launch cost the "
                                "profiled steps (the measured steps ran untraced)"),
                         [](const Row& r) {
                           return value_if(r.profiled.count > 0 && r.total.mean_ms > 0,
                                           r.profiled.mean_ms / r.total.mean_ms);
                         }}));
  f.push_back(ours_only({detail("cuda_graphs", "CUDA graphs", ColumnKind::text, "Whether the measured steps replayed CUDA graphs"),
                         [](const Row& r) { return Value(std::string(r.cuda_graphs_used ? "yes" : "no")); }}));
  f.push_back({detail("max_loss_diff", "Loss difference", ColumnKind::real,
                      "bench --check: the largest relative difference of the step losses from the eager "
                      "engine's, from the same weights and token stream"),
               [](const Row& r) { return value_if(!(r.max_loss_diff < 0), r.max_loss_diff); }});
  f.push_back(ours_only(integer_field(detail("skipped_steps", "Skipped steps", ColumnKind::integer, "fp16 steps the loss scaler skipped"),
                            [](Row& r) -> int64_t& { return r.skipped_steps; })));
  f.push_back(text_field(Column{"message", "Message", ColumnKind::text, ColumnRole::note},
                         [](Row& r) -> std::string& { return r.message; }));
  return s;
}

}  // namespace

std::string to_string(StepPhase phase) {
  switch (phase) {
    case StepPhase::total: return "total";
    case StepPhase::forward: return "forward";
    case StepPhase::backward: return "backward";
    case StepPhase::optimizer: return "optimizer";
  }
  return "?";
}

const PhaseStats& stats_of(const BenchResult& r, StepPhase phase) {
  switch (phase) {
    case StepPhase::forward: return r.forward;
    case StepPhase::backward: return r.backward;
    case StepPhase::optimizer: return r.optimizer;
    case StepPhase::total: break;
  }
  return r.total;
}

PhaseStats& stats_of(BenchResult& r, StepPhase phase) {
  return const_cast<PhaseStats&>(stats_of(static_cast<const BenchResult&>(r), phase));
}

const schema::Schema<BenchResult>& bench_schema() {
  static const schema::Schema<BenchResult> schema = make_bench_schema();
  return schema;
}

}  // namespace stepscope
