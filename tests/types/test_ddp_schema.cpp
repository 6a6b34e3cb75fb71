// The DDP experiments' plain side: the configuration's refusals name their field, the sweep's
// expansion (bucket sizes for bucketed only) and the table's columns.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/config_error.h"
#include "experiments/ddp/ddp_schema.h"
#include "experiments/ddp/ddp_types.h"

using namespace stepscope;

namespace {

DdpConfig tiny() {
  DdpConfig c;
  c.model = model_preset("tiny");
  c.context = 16;
  c.batch = 2;
  return c;
}

std::string refused_field(const DdpConfig& c) {
  try {
    validate(c);
  } catch (const ConfigError& e) {
    return e.field();
  }
  return "";
}

}  // namespace

TEST(DdpTypes, ValidConfigurationPasses) { EXPECT_NO_THROW(validate(tiny())); }

TEST(DdpTypes, RefusalsNameTheirField) {
  auto c = tiny();
  c.precision = Precision::fp16;
  EXPECT_EQ(refused_field(c), "precision");
  c = tiny();
  c.variant = distributed::DdpVariant::bucketed;
  c.bucket_mb = 0;
  EXPECT_EQ(refused_field(c), "bucket-mb");
  c = tiny();
  c.ranks = 0;
  EXPECT_EQ(refused_field(c), "nproc");
  c = tiny();
  c.batch = 0;
  EXPECT_EQ(refused_field(c), "batch");
  c = tiny();
  c.context = 0;
  EXPECT_EQ(refused_field(c), "context");
  c = tiny();
  c.warmup_steps = -1;
  EXPECT_EQ(refused_field(c), "warmup");
  c = tiny();
  c.measured_steps = 0;
  EXPECT_EQ(refused_field(c), "steps");
  // A malformed device is refused where its text is read, naming the same field; a DdpConfig
  // holds a parsed Device.
  try {
    parse_device("tpu");
    ADD_FAILURE() << "tpu accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "device");
  }
  c = tiny();
  c.backend = CommBackend::nccl;  // on the CPU
  EXPECT_EQ(refused_field(c), "backend");
  c = tiny();
  c.device = Device{DeviceKind::cuda, -1};  // with gloo
  EXPECT_EQ(refused_field(c), "backend");
  c.backend = CommBackend::nccl;
  EXPECT_NO_THROW(validate(c));
  c = tiny();
  c.precision = Precision::bf16;
  EXPECT_NO_THROW(validate(c));
  c = tiny();
  c.reduce_dtype = Precision::fp16;
  EXPECT_EQ(refused_field(c), "reduce-dtype");
  c.reduce_dtype = Precision::bf16;
  c.engine = EngineKind::fused;
  EXPECT_NO_THROW(validate(c));
}

TEST(DdpTypes, EnginesSitSideBySidePerConfiguration) {
  DdpSweepSpec spec;
  spec.base = tiny();
  spec.variants = {distributed::DdpVariant::flat, distributed::DdpVariant::bucketed};
  spec.bucket_mbs = {1, 10};
  spec.engines = {EngineKind::eager, EngineKind::fused};
  const auto configs = expand(spec, 2);
  ASSERT_EQ(configs.size(), 6u);  // (flat, bucketed x2) x engines
  for (size_t i = 0; i < configs.size(); ++i) {
    EXPECT_EQ(configs[i].engine, i % 2 == 0 ? EngineKind::eager : EngineKind::fused);
  }
  EXPECT_EQ(configs[2].bucket_mb, configs[3].bucket_mb);
  EXPECT_EQ(describe(configs[3]), "bucketed 1 MiB gloo x2 tiny ctx 16 b 2 fp32 fused");
  DdpConfig bf16 = configs[3];
  bf16.reduce_dtype = Precision::bf16;
  EXPECT_EQ(describe(bf16), "bucketed 1 MiB gloo x2 tiny ctx 16 b 2 fp32 fused bf16 reduce");
}

// --check's 1e-5 holds where the sums are exact to fp32 on the CPU: not with bf16 reduction.
TEST(DdpTypes, CheckToleranceOnlyWithFp32Sums) {
  DdpConfig c = tiny();
  EXPECT_EQ(check_tolerance(c), 1e-5);
  c.engine = EngineKind::fused;
  EXPECT_EQ(check_tolerance(c), 1e-5);
  c.reduce_dtype = Precision::bf16;
  EXPECT_FALSE(check_tolerance(c));
}

// Under CUDA graphs no collective call runs on the host: comm_ms is unmeasured (empty, not -1),
// and the row says the steps replayed graphs.
TEST(DdpSchema, GraphRowsLeaveCommTimeEmptyAndSayGraphs) {
  DdpResult r;
  r.config = tiny();
  r.status = RunStatus::ok;
  r.step_ms = 10;
  r.comm_ms = -1;
  r.exposed_comm_ms = 0.5;
  r.cuda_graphs_used = true;
  const auto table = ddp_schema().table({r});
  const auto cell = [&](const char* key) { return table.rows[0][static_cast<size_t>(table.column_index(key))]; };
  EXPECT_TRUE(schema::is_missing(cell("comm_ms")));
  EXPECT_EQ(schema::number_of(cell("exposed_comm_ms")), 0.5);
  EXPECT_EQ(schema::text_of(cell("cuda_graphs")), "yes");
  EXPECT_TRUE(schema::read_row(ddp_schema(), table, 0).cuda_graphs_used);
  r.cuda_graphs_used = false;
  EXPECT_EQ(schema::text_of(ddp_schema().table({r}).rows[0][static_cast<size_t>(table.column_index("cuda_graphs"))]), "no");
}

TEST(DdpSchema, EngineReduceTypeAndBytesReadBackAndDefaultForOlderTables) {
  DdpResult r;
  r.config = tiny();
  r.config.engine = EngineKind::fused;
  r.config.reduce_dtype = Precision::bf16;
  r.status = RunStatus::ok;
  r.step_ms = 1;
  r.comm_bytes = 123456;
  auto table = ddp_schema().table({r});
  const DdpResult back = schema::read_row(ddp_schema(), table, 0);
  EXPECT_EQ(back.config.engine, EngineKind::fused);
  EXPECT_EQ(back.config.reduce_dtype, Precision::bf16);
  EXPECT_EQ(back.comm_bytes, 123456);
  EXPECT_EQ(schema::text_of(table.rows[0][static_cast<size_t>(table.column_index("engine"))]), "fused");
  EXPECT_EQ(schema::text_of(table.rows[0][static_cast<size_t>(table.column_index("reduce_dtype"))]), "bf16");
  // A table written before these columns: eager, fp32, bytes unknown.
  for (const char* key : {"engine", "reduce_dtype", "comm_bytes"}) {
    const auto c = static_cast<size_t>(table.column_index(key));
    table.columns.erase(table.columns.begin() + static_cast<std::ptrdiff_t>(c));
    table.rows[0].erase(table.rows[0].begin() + static_cast<std::ptrdiff_t>(c));
  }
  const DdpResult old = schema::read_row(ddp_schema(), table, 0);
  EXPECT_EQ(old.config.engine, EngineKind::eager);
  EXPECT_EQ(old.config.reduce_dtype, Precision::fp32);
  EXPECT_EQ(old.comm_bytes, -1);
}

TEST(DdpTypes, UnknownVariantNamesItsField) {
  try {
    distributed::parse_ddp_variant("fancy");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "variant");
  }
}

TEST(DdpTypes, BucketSizesExpandForBucketedOnly) {
  DdpSweepSpec spec;
  spec.base = tiny();
  spec.bucket_mbs = {1, 10};
  const auto configs = expand(spec, 3);
  ASSERT_EQ(configs.size(), 5u);  // naive, flat, overlap, bucketed x2
  EXPECT_EQ(configs[3].variant, distributed::DdpVariant::bucketed);
  EXPECT_EQ(configs[4].bucket_mb, 10);
  for (const auto& c : configs) EXPECT_EQ(c.ranks, 3);
  EXPECT_EQ(bucket_bytes(configs[3]), int64_t{1} << 20);
  EXPECT_EQ(describe(configs[3]), "bucketed 1 MiB gloo x3 tiny ctx 16 b 2 fp32");
}

TEST(DdpTypes, OptimizersMultiplyTheRows) {
  DdpSweepSpec spec;
  spec.base = tiny();
  spec.variants = {distributed::DdpVariant::flat, distributed::DdpVariant::bucketed};
  spec.bucket_mbs = {1, 10};
  spec.optimizers = {distributed::OptimizerSharding::none, distributed::OptimizerSharding::zero1};
  const auto configs = expand(spec, 2);
  ASSERT_EQ(configs.size(), 6u);  // (flat, bucketed x2) per optimizer
  EXPECT_EQ(configs[2].optimizer, distributed::OptimizerSharding::none);
  EXPECT_EQ(configs[3].optimizer, distributed::OptimizerSharding::zero1);
  EXPECT_EQ(describe(configs[3]), "flat zero1 gloo x2 tiny ctx 16 b 2 fp32");
  EXPECT_EQ(distributed::parse_optimizer_sharding("sharded"), distributed::OptimizerSharding::sharded);
  try {
    distributed::parse_optimizer_sharding("zero3");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "optimizer");
  }
}

TEST(DdpTypes, Zero1RowsMultiplyByGatherTiming) {
  DdpSweepSpec spec;
  spec.base = tiny();
  spec.variants = {distributed::DdpVariant::flat};
  spec.optimizers = {distributed::OptimizerSharding::sharded, distributed::OptimizerSharding::zero1};
  spec.zero1_gathers = {distributed::Zero1Gathers::step_end, distributed::Zero1Gathers::next_forward};
  const auto configs = expand(spec, 2);
  ASSERT_EQ(configs.size(), 3u);  // sharded once, zero1 per timing
  EXPECT_EQ(configs[1].zero1_gathers, distributed::Zero1Gathers::step_end);
  EXPECT_EQ(configs[2].zero1_gathers, distributed::Zero1Gathers::next_forward);
  EXPECT_EQ(describe(configs[1]), "flat zero1 gloo x2 tiny ctx 16 b 2 fp32");
  EXPECT_EQ(describe(configs[2]), "flat zero1 (gathers in the next forward) gloo x2 tiny ctx 16 b 2 fp32");
  EXPECT_EQ(distributed::parse_zero1_gathers("next-forward"), distributed::Zero1Gathers::next_forward);
  try {
    distributed::parse_zero1_gathers("later");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "zero1-gather");
  }
}

TEST(DdpSchema, TheGatherTimingIsFilledForZero1RowsOnlyAndReadsBack) {
  DdpResult adamw, zero1;
  adamw.config = zero1.config = tiny();
  zero1.config.optimizer = distributed::OptimizerSharding::zero1;
  zero1.config.zero1_gathers = distributed::Zero1Gathers::next_forward;
  const auto table = ddp_schema().table({adamw, zero1});
  const auto column = static_cast<size_t>(table.column_index("zero1_gather"));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(table.rows[0][column]));
  EXPECT_EQ(schema::text_of(table.rows[1][column]), "next-forward");
  EXPECT_EQ(schema::read_row(ddp_schema(), table, 1).config.zero1_gathers, distributed::Zero1Gathers::next_forward);
  EXPECT_EQ(schema::read_row(ddp_schema(), table, 0).config.zero1_gathers, distributed::Zero1Gathers::step_end);
}

TEST(DdpSchema, HasTheIssueColumns) {
  const auto columns = ddp_schema().columns();
  std::vector<std::string> keys;
  for (const auto& c : columns) keys.push_back(c.key);
  for (const char* key : {"variant", "bucket_mb", "optimizer", "optimizer_state_bytes", "nproc", "backend", "step_ms", "backward_ms", "comm_ms",
                          "exposed_comm_ms", "optimizer_ms", "max_param_diff", "forward_ms", "model", "context",
                          "batch", "status", "message", "engine", "reduce_dtype", "comm_bytes"}) {
    EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end()) << key;
  }
  EXPECT_EQ(keys[0], "variant");
}

TEST(DdpSchema, UnmeasuredAndUncheckedValuesAreEmpty) {
  DdpResult r;
  r.config = tiny();
  r.status = RunStatus::failed;
  const auto table = ddp_schema().table({r});
  const auto& row = table.rows.at(0);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(row[static_cast<size_t>(table.column_index("step_ms"))]));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(row[static_cast<size_t>(table.column_index("max_param_diff"))]));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(row[static_cast<size_t>(table.column_index("bucket_mb"))]));
  r.status = RunStatus::ok;
  r.step_ms = 2.5;
  r.max_param_diff = 0;
  r.config.variant = distributed::DdpVariant::bucketed;
  r.config.bucket_mb = 10;
  const auto ok = ddp_schema().table({r});
  EXPECT_EQ(schema::number_of(ok.rows[0][static_cast<size_t>(ok.column_index("step_ms"))]), 2.5);
  EXPECT_EQ(schema::number_of(ok.rows[0][static_cast<size_t>(ok.column_index("max_param_diff"))]), 0.0);
  EXPECT_EQ(schema::number_of(ok.rows[0][static_cast<size_t>(ok.column_index("bucket_mb"))]), 10.0);
}
