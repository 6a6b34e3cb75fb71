#include "experiments/collectives/collective_inputs.h"

#include "experiments/common_inputs.h"

namespace stepscope {

namespace {

using schema::InputField;
using schema::InputKind;

schema::InputSchema make_inputs() {
  std::vector<InputField> f;
  f.push_back(backend_input());
  f.push_back(nproc_input());
  f.push_back({"op", "Collectives", InputKind::choice, "allreduce, reducescatter, allgather, broadcast", "allreduce",
               true, "run", "O"});
  f.back().choices = {"allreduce", "reducescatter", "allgather", "broadcast"};
  f.back().check = [](const std::string& t) { parse_collective_op(t); };
  f.push_back({"sizes", "Sizes", InputKind::size, "bytes, or with KB, MB, GB (10^3) or KiB, MiB, GiB (2^10)",
               "1MB,10MB,100MB,1GB", true, "run", "S"});
  f.push_back(precision_input("dtype", "Element types", "fp32, bf16 or fp16", "fp32", true));
  f.push_back(warmup_input("warmup", "Warm-up iterations", "warm-up iterations", "5"));
  f.push_back(measured_input("iters", "Measured iterations",
                             "measured collectives, timed together, the mean reported", "20"));
  f.push_back(rank_device_input());
  f.push_back(timeout_input());
  return {f};
}

}  // namespace

const schema::InputSchema& collective_inputs() {
  static const schema::InputSchema inputs = make_inputs();
  return inputs;
}

CollectiveSweepSpec collective_spec(const schema::InputValues& v) {
  CollectiveSweepSpec spec;
  CollectiveConfig& base = spec.base;
  base.device = parse_device(v.text("device"));
  base.backend = backend_of(v.given("backend") ? v.text("backend") : "", base.device);
  spec.ops.clear();
  for (const auto& item : v.items("op")) spec.ops.push_back(parse_collective_op(item));
  spec.sizes_bytes = v.sizes("sizes");
  spec.dtypes.clear();
  for (const auto& item : v.items("dtype")) spec.dtypes.push_back(parse_precision(item));
  base.warmup_iters = static_cast<int>(v.integer("warmup"));
  base.iters = static_cast<int>(v.integer("iters"));
  return spec;
}

schema::InputValues collective_values(const CollectiveSweepSpec& spec) {
  schema::InputValues v(collective_inputs());
  v.set("backend", to_string(spec.base.backend));
  v.set("op", schema::join_items(spec.ops, [](CollectiveOp op) { return to_string(op); }));
  v.set("sizes", schema::join_items(spec.sizes_bytes, [](int64_t b) { return std::to_string(b); }));
  v.set("dtype", schema::join_items(spec.dtypes, [](Precision p) { return to_string(p); }));
  v.set("warmup", std::to_string(spec.base.warmup_iters));
  v.set("iters", std::to_string(spec.base.iters));
  v.set("device", to_string(spec.base.device));
  return v;
}

}  // namespace stepscope
