#include "compat/torch_compat.h"

#include <c10/core/impl/VirtualGuardImpl.h>
#include <new>
#include <stdexcept>
#include <string>

#include <ATen/ATen.h>
#include <ATen/autocast_mode.h>
#include <c10/util/Exception.h>
#include <torch/cuda.h>
#include <torch/version.h>

#define STEPSCOPE_TORCH_2 (TORCH_VERSION_MAJOR >= 2)

#if STEPSCOPE_TORCH_2 && defined(STEPSCOPE_WITH_CUDA)
#include <ATen/cuda/CUDAContext.h>
#include <optional>
#endif

namespace stepscope::compat {

std::string libtorch_version() { return TORCH_VERSION; }

void set_cuda_device(int index) {
  c10::impl::VirtualGuardImpl guard(c10::DeviceType::CUDA);
  guard.setDevice(c10::Device(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(index)));
}

bool has_scaled_dot_product_attention() { return STEPSCOPE_TORCH_2; }

at::Tensor scaled_dot_product_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal) {
#if STEPSCOPE_TORCH_2
  return at::scaled_dot_product_attention(q, k, v, {}, 0.0, causal);
#else
  (void)q, (void)k, (void)v, (void)causal;
  throw std::runtime_error("scaled_dot_product_attention needs LibTorch 2.0 or newer; this build has LibTorch " +
                           libtorch_version());
#endif
}

bool matmul_sm_carveout_available() {
#if STEPSCOPE_TORCH_2 && defined(STEPSCOPE_WITH_CUDA)
  return true;
#else
  return false;
#endif
}

MatmulSmCarveout::MatmulSmCarveout(int sms) {
  if (sms < 0) throw std::invalid_argument("an SM carve-out is a count of SMs, not " + std::to_string(sms));
  if (sms == 0) return;
#if STEPSCOPE_TORCH_2 && defined(STEPSCOPE_WITH_CUDA)
  const int available = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
  if (sms >= available) {
    throw std::invalid_argument("an SM carve-out of " + std::to_string(sms) + " leaves no SM of this GPU's " +
                                std::to_string(available) + " to the matmuls");
  }
  auto& context = at::globalContext();
  const auto previous = context._SMCarveout_EXPERIMENTAL();
  previous_sms_ = previous.has_value() ? *previous : -1;
  previous_backend_ = static_cast<int>(context.blasPreferredBackend());
  context._setSMCarveout_EXPERIMENTAL(sms);
  context.setBlasPreferredBackend(at::BlasBackend::Cublaslt);
  set_ = true;
#else
  throw std::runtime_error("an SM carve-out for matmuls needs a CUDA build with LibTorch 2.x; this build has LibTorch " +
                           libtorch_version() + (built_with_cuda() ? "" : " without CUDA"));
#endif
}

MatmulSmCarveout::~MatmulSmCarveout() {
#if STEPSCOPE_TORCH_2 && defined(STEPSCOPE_WITH_CUDA)
  if (!set_) return;
  auto& context = at::globalContext();
  context._setSMCarveout_EXPERIMENTAL(previous_sms_ < 0 ? std::nullopt : std::optional<int32_t>(previous_sms_));
  context.setBlasPreferredBackend(static_cast<at::BlasBackend>(previous_backend_));
#endif
}

bool fused_adamw_available() { return STEPSCOPE_TORCH_2; }

void torch_fused_adamw(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads,
                       const std::vector<at::Tensor>& exp_avgs, const std::vector<at::Tensor>& exp_avg_sqs,
                       const std::vector<at::Tensor>& state_steps, double lr, double beta1, double beta2,
                       double weight_decay, double eps) {
#if STEPSCOPE_TORCH_2
  at::_fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, /*max_exp_avg_sqs=*/{}, state_steps, lr, beta1, beta2,
                    weight_decay, eps, /*amsgrad=*/false, /*maximize=*/false);  // no grad_scale, found_inf
#else
  (void)params, (void)grads, (void)exp_avgs, (void)exp_avg_sqs, (void)state_steps;
  (void)lr, (void)beta1, (void)beta2, (void)weight_decay, (void)eps;
  throw std::runtime_error("_fused_adamw_ needs LibTorch 2.0 or newer; this build has LibTorch " + libtorch_version());
#endif
}

bool built_with_cuda() {
#ifdef STEPSCOPE_WITH_CUDA
  return true;
#else
  return false;
#endif
}

int cuda_device_count() {
  if (!built_with_cuda()) return 0;
  return static_cast<int>(torch::cuda::device_count());
}

namespace {

bool autocast_enabled(c10::DeviceType device) {
#if STEPSCOPE_TORCH_2
  return at::autocast::is_autocast_enabled(device);
#else
  return device == c10::DeviceType::CUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#endif
}

c10::ScalarType autocast_dtype(c10::DeviceType device) {
#if STEPSCOPE_TORCH_2
  return at::autocast::get_autocast_dtype(device);
#else
  return device == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                         : at::autocast::get_autocast_cpu_dtype();
#endif
}

void set_autocast(c10::DeviceType device, bool enabled, c10::ScalarType dtype) {
#if STEPSCOPE_TORCH_2
  at::autocast::set_autocast_enabled(device, enabled);
  at::autocast::set_autocast_dtype(device, dtype);
#else
  if (device == c10::DeviceType::CUDA) {
    at::autocast::set_enabled(enabled);
    at::autocast::set_autocast_gpu_dtype(dtype);
  } else {
    at::autocast::set_cpu_enabled(enabled);
    at::autocast::set_autocast_cpu_dtype(dtype);
  }
#endif
}

}  // namespace

bool autocast_supported(c10::DeviceType device, c10::ScalarType dtype) {
  if (device == c10::DeviceType::CUDA) return dtype == c10::kBFloat16 || dtype == c10::kHalf;
  if (device == c10::DeviceType::CPU) {
#if STEPSCOPE_TORCH_2
    return dtype == c10::kBFloat16 || dtype == c10::kHalf;
#else
    return dtype == c10::kBFloat16;
#endif
  }
  return false;
}

AutocastGuard::AutocastGuard(c10::DeviceType device, c10::ScalarType dtype)
    : device_(device), previous_enabled_(autocast_enabled(device)), previous_dtype_(autocast_dtype(device)) {
  set_autocast(device, true, dtype);
  at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  // Python's autocast clears the cache of cast weights when the outermost context
  // exits; without this the casts would pile up across steps.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  set_autocast(device_, previous_enabled_, previous_dtype_);
}

bool is_out_of_memory(const std::exception& error) {
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr) return true;
  if (dynamic_cast<const c10::Error*>(&error) == nullptr) return false;
  const std::string message = error.what();
  return message.find("out of memory") != std::string::npos ||
         message.find("can't allocate memory") != std::string::npos ||
         message.find("Out of memory") != std::string::npos;
}

}  // namespace stepscope::compat

namespace stepscope::compat {
std::string error_message(const std::exception& error) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&error)) return c10_error->what_without_backtrace();
  return error.what();
}
}  // namespace stepscope::compat
