// The columns that name a DDP row in each of its tables (the rows, each rank's, the overlap
// picture, memory per rank): variant, bucket_mb (bucketed only), optimizer, zero1_gather (zero1
// only), engine, reduce_dtype, nproc. Declared once for every row type with a DdpConfig
// `config`. Tables written before engine and reduce_dtype existed read back as eager and fp32.
#pragma once

#include "experiments/ddp/ddp_types.h"
#include "schema/schema.h"

namespace stepscope {

template <class Row>
void add_ddp_row_fields(schema::Schema<Row>& s) {
  using schema::Column;
  using schema::ColumnKind;
  using schema::ColumnRole;
  using schema::Value;
  auto& f = s.fields;
  f.push_back({Column{"variant", "Variant", ColumnKind::text, ColumnRole::identity,
                      "naive, flat, overlap or bucketed gradient synchronisation"},
               [](const Row& r) { return Value(distributed::to_string(r.config.variant)); },
               [](Row& r, const Value& v) { r.config.variant = distributed::parse_ddp_variant(schema::text_of(v)); }});
  f.push_back({Column{"bucket_mb", "Bucket", ColumnKind::mebibytes, ColumnRole::identity, "Bucketed only"},
               [](const Row& r) {
                 return schema::value_if(r.config.variant == distributed::DdpVariant::bucketed, r.config.bucket_mb);
               },
               [](Row& r, const Value& v) { r.config.bucket_mb = schema::number_of(v).value_or(0); }});
  f.push_back({Column{"optimizer", "Optimizer", ColumnKind::text, ColumnRole::identity,
                      "adamw (state on every rank), sharded (whole parameters per rank) or zero1"},
               [](const Row& r) { return Value(distributed::to_string(r.config.optimizer)); },
               [](Row& r, const Value& v) { r.config.optimizer = distributed::parse_optimizer_sharding(schema::text_of(v)); }});
  f.push_back({Column{"zero1_gather", "ZeRO-1 gathers", ColumnKind::text, ColumnRole::identity,
                      "zero1 only: step-end (after each batch of updates) or next-forward (before each layer)"},
               [](const Row& r) {
                 return r.config.optimizer == distributed::OptimizerSharding::zero1 ? Value(distributed::to_string(r.config.zero1_gathers))
                                                                              : Value();
               },
               [](Row& r, const Value& v) {
                 if (const auto* text = std::get_if<std::string>(&v); text && !text->empty()) {
                   r.config.zero1_gathers = distributed::parse_zero1_gathers(*text);
                 }
               }});
  f.push_back({Column{"engine", "Engine", ColumnKind::text, ColumnRole::identity,
                      "eager (the reference model op by op) or fused (fused kernels, one flat parameter buffer)"},
               [](const Row& r) { return Value(to_string(r.config.engine)); },
               [](Row& r, const Value& v) { r.config.engine = parse_engine_kind(schema::text_of(v)); }});
  f.push_back({Column{"reduce_dtype", "Reduce type", ColumnKind::text, ColumnRole::identity,
                      "The type gradients are communicated and summed in: fp32, or bf16 (half the bytes)"},
               [](const Row& r) { return Value(to_string(r.config.reduce_dtype)); },
               [](Row& r, const Value& v) { r.config.reduce_dtype = parse_precision(schema::text_of(v)); }});
  f.push_back({Column{"nproc", "Ranks", ColumnKind::integer, ColumnRole::identity},
               [](const Row& r) { return Value(int64_t{r.config.ranks}); },
               [](Row& r, const Value& v) { r.config.ranks = static_cast<int>(schema::integer_of(v)); }});
}

}  // namespace stepscope
