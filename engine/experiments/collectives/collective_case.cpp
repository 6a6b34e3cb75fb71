#include "experiments/collectives/collective_case.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>

#include "compat/c10d_compat.h"
#include "compat/torch_compat.h"
#include "core/device.h"
#include "experiments/memory_precheck.h"
#include "core/config_error.h"
#include "runners/device_backend.h"
#include "runners/precision_dtype.h"

namespace stepscope {

namespace {

// Every element a small integer, exact in bf16 and fp16 after sums over up to 128 ranks: rank q
// holds (q + i) mod 3 at index i of its full-size buffer. Made on `options`' device: on the CPU,
// a GPU buffer's patterns cost seconds a gigabyte, and minutes with the ranks' threads contending.
at::Tensor pattern(int rank, int64_t offset, int64_t count, const at::TensorOptions& options) {
  const auto index = at::TensorOptions().dtype(at::kLong).device(options.device());
  return at::remainder(at::arange(offset, offset + count, index) + rank, 3).to(options.dtype());
}

// Patterns are made and checked a chunk at a time: whole, their int64 temporaries took about
// eight bytes per byte of the buffer on top of it.
constexpr int64_t kChunk = int64_t{1} << 20;

// `buffer` (a contiguous 1-D tensor) gets rank `rank`'s pattern from element `offset` on.
void fill_pattern(at::Tensor& buffer, int rank, int64_t offset) {
  const int64_t count = buffer.numel();
  for (int64_t at = 0; at < count; at += kChunk) {
    const int64_t n = std::min(kChunk, count - at);
    buffer.narrow(0, at, n).copy_(pattern(rank, offset + at, n, buffer.options()));
  }
}

// Elements of `got` that differ from `want(offset, count)` (made on got's device), chunk by
// chunk, counted there and read once.
int64_t count_differences(const at::Tensor& got, const std::function<at::Tensor(int64_t, int64_t)>& want) {
  const at::Tensor flat = got.reshape({-1});
  at::Tensor wrong = at::zeros({}, at::TensorOptions().dtype(at::kLong).device(flat.device()));
  for (int64_t at = 0; at < flat.numel(); at += kChunk) {
    const int64_t n = std::min(kChunk, flat.numel() - at);
    wrong += at::ne(flat.narrow(0, at, n).to(at::kFloat), want(at, n)).sum();
  }
  return wrong.item<int64_t>();
}

}  // namespace

CollectiveCase::CollectiveCase(CollectiveConfig config, distributed::Communicator& comm) : comm_(comm) {
  result_.config = std::move(config);
  result_.count = element_count(result_.config);
  result_.native = result_.config.op != CollectiveOp::reduce_scatter || comm.native_reduce_scatter();
}

CollectiveCase::~CollectiveCase() = default;

Device CollectiveCase::device() const { return result_.config.device; }

void check_runnable(const CollectiveConfig& c) {
  validate(c);
  if (c.backend == CommBackend::gloo && c.dtype == Precision::bf16 && !compat::gloo_has_bfloat16()) {
    throw ConfigError("Gloo in LibTorch " + compat::libtorch_version() + " has no bf16 collectives (use fp32 or fp16)",
                      "dtype");
  }
  if (c.backend == CommBackend::nccl && !compat::has_nccl()) {
    throw ConfigError("nccl needs a CUDA build of Stepscope; this one has Gloo only", "backend");
  }
}

void CollectiveCase::check(DeviceBackend& /*backend*/) { check_runnable(result_.config); }

void CollectiveCase::prepare(DeviceBackend& backend, profiling::AllocationRecorder* /*memory*/) {
  result_.device_name = backend.name();
  const auto options = at::TensorOptions().dtype(scalar_type_of(result_.config.dtype)).device(backend.device());
  const int64_t n = comm_.size(), count = result_.count;
  // Out of memory here is a result; every rank learns of any rank's before the first collective.
  bool out_of_memory = false;
  std::string refused;  // this rank's estimate says it cannot fit: nothing is allocated
  try {
    const CollectiveConfig& c = result_.config;
    const int64_t sharing = c.device.is_cpu() ? c.ranks_on_host : 1;
    refuse_if_clearly_too_large(bytes_for_ranks(collective_memory_bytes(c), sharing), backend.available_memory_bytes(),
                                c.device,
                                sharing > 1 ? std::to_string(sharing) + " ranks on this machine, each its buffers and Gloo's"
                                            : "the buffers and the backend's");
  } catch (const EstimatedOutOfMemory& e) {
    refused = e.what();
    out_of_memory = true;
  }
  if (refused.empty()) try {
    switch (result_.config.op) {
      case CollectiveOp::all_reduce:
      case CollectiveOp::broadcast: input_ = at::empty({count}, options); break;
      case CollectiveOp::reduce_scatter:
        input_ = at::empty({count}, options);
        output_ = at::empty({count / n}, options);
        break;
      case CollectiveOp::all_gather:
        input_ = at::empty({count / n}, options);
        output_ = at::empty({count}, options);
        break;
    }
    fill_inputs();
  } catch (const std::exception& e) {
    if (!compat::is_out_of_memory(e)) throw;
    out_of_memory = true;
    input_ = output_ = at::Tensor();
  }
  at::Tensor flag = at::full({1}, out_of_memory ? 1.0f : 0.0f, at::TensorOptions().device(backend.device()));
  comm_.all_reduce(flag, distributed::ReduceOp::max)->wait();
  if (flag.item<float>() > 0) {
    if (!refused.empty()) throw EstimatedOutOfMemory(refused);
    if (out_of_memory) throw std::bad_alloc();
    throw PeerOutOfMemory();
  }
  clock_ = backend.make_clock();
}

void CollectiveCase::fill_inputs() { fill_pattern(input_, comm_.rank(), 0); }

std::unique_ptr<distributed::PendingCollective> CollectiveCase::launch() {
  switch (result_.config.op) {
    case CollectiveOp::all_reduce: return comm_.all_reduce(input_);
    case CollectiveOp::reduce_scatter: return comm_.reduce_scatter(output_, input_);
    case CollectiveOp::all_gather: return comm_.all_gather(output_, input_);
    case CollectiveOp::broadcast: return comm_.broadcast(input_, 0);
  }
  return nullptr;
}

void CollectiveCase::run_step(const StepContext& step) {
  const int count = step.warmup ? result_.config.warmup_iters : result_.config.iters;
  const bool back_to_back = comm_.backend() == CommBackend::nccl;
  std::vector<std::unique_ptr<distributed::PendingCollective>> pending;
  clock_->start();
  for (int i = 0; i < count; ++i) {
    pending.push_back(launch());
    if (!back_to_back) pending.back()->wait();
  }
  if (back_to_back) {
    for (auto& work : pending) work->wait();
  }
  clock_->end_forward();
  const StepTiming timing = clock_->finish(StepMode::forward);
  if (!step.warmup) step_ns_.push_back(timing.total_ns / std::max(1, count));
}

int64_t CollectiveCase::count_wrong() const {
  const int rank = comm_.rank();
  const int64_t n = comm_.size(), count = result_.count, slice = count / n;
  const auto exact = at::TensorOptions().dtype(at::kFloat).device(input_.device());
  const auto sum_over_ranks = [&](int64_t from, int64_t k) {
    at::Tensor want = at::zeros({k}, exact);
    for (int q = 0; q < n; ++q) want += pattern(q, from, k, exact);
    return want;
  };
  switch (result_.config.op) {
    case CollectiveOp::all_reduce: return count_differences(input_, sum_over_ranks);
    case CollectiveOp::reduce_scatter:
      return count_differences(output_, [&](int64_t at, int64_t k) { return sum_over_ranks(rank * slice + at, k); });
    case CollectiveOp::all_gather:
      // Element i of the output is rank i / slice's element i % slice; chunks may span ranks.
      return count_differences(output_, [&](int64_t at, int64_t k) {
        std::vector<at::Tensor> parts;
        for (int64_t i = at; i < at + k;) {
          const int64_t q = i / slice, within = i % slice, m = std::min(slice - within, at + k - i);
          parts.push_back(pattern(static_cast<int>(q), within, m, exact));
          i += m;
        }
        return at::cat(parts);
      });
    case CollectiveOp::broadcast:
      return count_differences(input_, [&](int64_t at, int64_t k) { return pattern(0, at, k, exact); });
  }
  return -1;
}

void CollectiveCase::after_measuring(DeviceBackend& backend) {
  // The timed steps changed the buffers (all-reduce sums in place): check a fresh run.
  fill_inputs();
  launch()->wait();
  backend.synchronize();
  result_.wrong = count_wrong();
}

void CollectiveCase::release() {
  input_ = output_ = at::Tensor();
  clock_.reset();
}

void CollectiveCase::finish(CaseEnd end) {
  result_.status = end.status;
  result_.message = end.message;
  if (!step_ns_.empty() && end.status == RunStatus::ok) {
    const double total = std::accumulate(step_ns_.begin(), step_ns_.end(), 0.0);
    result_.time_us = total / static_cast<double>(step_ns_.size()) * 1e-3;
  }
}

CollectiveResult combine_ranks(const CollectiveResult& local, distributed::Communicator& comm, const Device& device) {
  CollectiveResult row = local;
  const auto on = at::TensorOptions().dtype(at::kDouble).device(torch_device(device));
  // [failed?, time], max over ranks; [wrong], summed.
  at::Tensor worst = at::tensor({local.status == RunStatus::ok ? 0.0 : 1.0, local.time_us}, on.device(at::kCPU)).to(on);
  comm.all_reduce(worst, distributed::ReduceOp::max)->wait();
  at::Tensor wrong = at::tensor({static_cast<double>(std::max<int64_t>(local.wrong, 0))}, on.device(at::kCPU)).to(on);
  comm.all_reduce(wrong, distributed::ReduceOp::sum)->wait();
  const at::Tensor w = worst.to(at::kCPU);
  if (w[0].item<double>() > 0 && row.status == RunStatus::ok) {
    row.status = RunStatus::failed;
    row.message = "another rank failed this row";
  }
  row.time_us = w[1].item<double>();
  row.wrong = local.wrong < 0 ? -1 : static_cast<int64_t>(wrong.to(at::kCPU).item<double>());
  if (row.status == RunStatus::ok && row.time_us > 0) {
    row.algbw_gbps = static_cast<double>(row.config.size_bytes) / (row.time_us * 1e-6) * 1e-9;
    row.busbw_gbps = row.algbw_gbps * bus_bandwidth_factor(row.config.op, comm.size());
  }
  return row;
}

}  // namespace stepscope
