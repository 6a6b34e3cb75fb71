// The one place that knows LibTorch 1.13 from 2.x and CPU from CUDA builds.
#pragma once

#include <exception>
#include <string>
#include <vector>

#include <c10/core/Allocator.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <ATen/core/Tensor.h>

namespace stepscope::compat {

// "1.13.1", "2.11.0", ...
std::string libtorch_version();
// True when this binary was built against a CUDA LibTorch.
bool built_with_cuda();
// CUDA devices usable now (0 on CPU builds or machines without a GPU).
int cuda_device_count();
// Makes GPU `index` the current one (each rank of a job on its LOCAL_RANK's GPU); throws where
// this LibTorch has no CUDA.
void set_cuda_device(int index);

// Enables autocast for one device type for the guard's lifetime and, like Python's
// `torch.autocast` on exit, drops the cast-weight cache when the outermost guard ends.
class AutocastGuard {
 public:
  AutocastGuard(c10::DeviceType device, c10::ScalarType dtype);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  c10::DeviceType device_;
  bool previous_enabled_;
  c10::ScalarType previous_dtype_;
};

// Whether `device` supports autocast to `dtype` in this LibTorch.
bool autocast_supported(c10::DeviceType device, c10::ScalarType dtype);

// Matmuls that leave `sms` streaming multiprocessors to kernels running beside them (NCCL's
// during DDP's backward): a GEMM sized for every SM otherwise spills a second wave onto the SMs
// a collective holds and takes up to twice as long. ATen's SM carve-out (LibTorch 2.x) has
// cuBLASLt plan each matmul for the others; the guard also prefers cuBLASLt for ATen's matmuls,
// the path that honours it. Process-wide for the guard's lifetime, restored after; 0 changes
// nothing. Throws std::invalid_argument for a negative count or one that leaves the current GPU
// no SM, std::runtime_error where this LibTorch has no carve-out.
class MatmulSmCarveout {
 public:
  explicit MatmulSmCarveout(int sms);
  ~MatmulSmCarveout();
  MatmulSmCarveout(const MatmulSmCarveout&) = delete;
  MatmulSmCarveout& operator=(const MatmulSmCarveout&) = delete;

 private:
  bool set_ = false;
  int previous_sms_ = -1;       // none
  int previous_backend_ = -1;   // at::BlasBackend, as an integer (no ATen header here)
};
bool matmul_sm_carveout_available();

// LibTorch's fused scaled_dot_product_attention (2.x; 1.13 has none).
bool has_scaled_dot_product_attention();
// Throws std::runtime_error saying so on a LibTorch without it. Causal is top-left aligned.
at::Tensor scaled_dot_product_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal);

// LibTorch's fused AdamW kernel, at::_fused_adamw_ (2.x; 1.13 has none), for benchmarks beside
// ours: one update of the lists (all of one dtype and device, as torch.optim.AdamW(fused=True)
// groups them), no amsgrad, no grad scaling. state_steps are fp32 scalar tensors on the device
// that the kernel reads and does not increment. PyTorch's rule decays the weights before the
// Adam step (ours after it): the same bytes moved, slightly different values.
bool fused_adamw_available();
// Throws std::runtime_error saying so on a LibTorch without it.
void torch_fused_adamw(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads,
                       const std::vector<at::Tensor>& exp_avgs, const std::vector<at::Tensor>& exp_avg_sqs,
                       const std::vector<at::Tensor>& state_steps, double lr, double beta1, double beta2,
                       double weight_decay, double eps);

// True for allocation failures of any device: c10's OOM errors (whose class name
// differs between versions), CPU allocator failures and std::bad_alloc.
bool is_out_of_memory(const std::exception& error);

// c10's memory-reporting hook changed the type of its byte totals between versions.
template <typename T>
struct ReportMemoryUsageSignature;
template <typename C, typename R, typename Ptr, typename Size, typename Total, typename Reserved, typename Dev>
struct ReportMemoryUsageSignature<R (C::*)(Ptr, Size, Total, Reserved, Dev)> {
  using total_type = Total;
};
using ReportedBytes =
    ReportMemoryUsageSignature<decltype(&c10::MemoryReportingInfoBase::reportMemoryUsage)>::total_type;

}  // namespace stepscope::compat

namespace stepscope::compat {
// The message of an exception without c10's C++ backtrace, for people to read.
std::string error_message(const std::exception& error);
}  // namespace stepscope::compat
