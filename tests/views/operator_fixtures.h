// Hand-built operator profiles for the Operators tab's tests. The figures are chosen so that
// the sums the tests expect are worked out by hand in their comments.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "profiling/operator_profile.h"

namespace fixtures {

using stepscope::profiling::KernelCategory;
using stepscope::profiling::OperatorKernel;
using stepscope::profiling::OperatorProfile;
using stepscope::profiling::OperatorStats;

inline OperatorKernel op_kernel(std::string name, std::string short_name, KernelCategory category, int64_t launches,
                                int64_t total_ns) {
  OperatorKernel k;
  k.name = std::move(name);
  k.short_name = std::move(short_name);
  k.category = category;
  k.launches = launches;
  k.total_ns = total_ns;
  return k;
}

inline OperatorStats op(std::vector<std::string> range_path, std::string name, std::string shapes, int64_t calls,
                        int64_t total_cpu_ns, int64_t self_cpu_ns, int64_t self_gpu_ns, int64_t total_gpu_ns,
                        std::vector<OperatorKernel> kernels = {}) {
  OperatorStats s;
  s.range_path = std::move(range_path);
  s.name = std::move(name);
  s.input_shapes = std::move(shapes);
  s.calls = calls;
  s.total_cpu_ns = total_cpu_ns;
  s.self_cpu_ns = self_cpu_ns;
  s.self_gpu_ns = self_gpu_ns;
  s.total_gpu_ns = total_gpu_ns;
  s.kernels = std::move(kernels);
  return s;
}

inline const char* const kGemm = "void gemm_kernel<float, 128>(float const*, float*)";
inline const char* const kAddKernel = "void vectorized_elementwise_kernel<4, AddFunctor>(int)";
inline const char* const kSoftmaxKernel = "void softmax_warp_forward<float>(float*)";
inline const char* const kFused = "void stepscope_fused_bias_gelu(float*)";

// A GPU profile of 2 measured steps and 10 ms of CPU time:
//   forward/attention          aten::linear  [[4, 64], [192, 64]]         calls 4  total 1.0 ms  self 0.1 ms  GPU self 0      total 0.6 ms
//   forward/attention          aten::addmm   [[192], [4, 64], [64, 192]]  calls 4  total 0.9 ms  self 0.9 ms  GPU 0.6 ms (gemm 4 x)
//   forward/attention/softmax  aten::softmax [[4, 8, 8]]                  calls 2  total 0.3 ms  self 0.3 ms  GPU 0.2 ms (softmax 2 x)
//   forward                    aten::mm      [[4, 64], [64, 256]]         calls 2  total 0.5 ms  self 0.5 ms  GPU 0.4 ms (gemm 0.3, add 0.1)
//   forward                    aten::mm      [[4, 256], [256, 64]]        calls 2  total 0.4 ms  self 0.4 ms  GPU 0.25 ms (gemm)
//   backward                   aten::mm      [[4, 64], [64, 256]]         calls 2  total 0.7 ms  self 0.7 ms  GPU 0.5 ms (gemm)
//   (no range)                 aten::copy_   [[4, 64], [4, 64]]           calls 1  total 50 µs   self 50 µs   GPU 30 µs (memcpy)
//   forward                    (outside operators)                                                           GPU 70 µs (fused, 1 launch)
inline OperatorProfile gpu_profile() {
  OperatorProfile p;
  p.measured_steps = 2;
  p.measured_cpu_ns = 10'000'000;
  p.operator_calls = 17;
  p.gpu_activity_recorded = true;
  p.operators = {
      op({"forward", "attention"}, "aten::linear", "[[4, 64], [192, 64]]", 4, 1'000'000, 100'000, 0, 600'000),
      op({"forward", "attention"}, "aten::addmm", "[[192], [4, 64], [64, 192]]", 4, 900'000, 900'000, 600'000, 600'000,
         {op_kernel(kGemm, "gemm_kernel", KernelCategory::matrix_multiply, 4, 600'000)}),
      op({"forward", "attention", "softmax"}, "aten::softmax", "[[4, 8, 8]]", 2, 300'000, 300'000, 200'000, 200'000,
         {op_kernel(kSoftmaxKernel, "softmax_warp_forward", KernelCategory::softmax, 2, 200'000)}),
      op({"forward"}, "aten::mm", "[[4, 64], [64, 256]]", 2, 500'000, 500'000, 400'000, 400'000,
         {op_kernel(kGemm, "gemm_kernel", KernelCategory::matrix_multiply, 2, 300'000),
          op_kernel(kAddKernel, "vectorized_elementwise_kernel", KernelCategory::elementwise, 2, 100'000)}),
      op({"forward"}, "aten::mm", "[[4, 256], [256, 64]]", 2, 400'000, 400'000, 250'000, 250'000,
         {op_kernel(kGemm, "gemm_kernel", KernelCategory::matrix_multiply, 2, 250'000)}),
      op({"backward"}, "aten::mm", "[[4, 64], [64, 256]]", 2, 700'000, 700'000, 500'000, 500'000,
         {op_kernel(kGemm, "gemm_kernel", KernelCategory::matrix_multiply, 2, 500'000)}),
      op({}, "aten::copy_", "[[4, 64], [4, 64]]", 1, 50'000, 50'000, 30'000, 30'000,
         {op_kernel("[CUDA memcpy HtoD]", "[CUDA memcpy HtoD]", KernelCategory::memory, 1, 30'000)}),
      op({"forward"}, stepscope::profiling::kOutsideOperators, "[]", 0, 0, 0, 70'000, 70'000,
         {op_kernel(kFused, "stepscope_fused_bias_gelu", KernelCategory::elementwise, 1, 70'000)}),
  };
  return p;
}

// The same model on a CPU: operators and CPU times, no kernels.
//   forward/attention  aten::bmm     [[8, 16, 16], [8, 16, 16]]  calls 6  total 1.2 ms  self 1.2 ms
//   forward            aten::linear  [[4, 64], [256, 64]]        calls 3  total 3.0 ms  self 0.3 ms
//   forward            aten::addmm   [[256], [4, 64], [64, 256]] calls 3  total 2.7 ms  self 2.7 ms
inline OperatorProfile cpu_profile() {
  OperatorProfile p;
  p.measured_steps = 3;
  p.measured_cpu_ns = 6'000'000;
  p.operator_calls = 12;
  p.gpu_activity_recorded = false;
  p.source_message = "CPU: no kernels";
  p.operators = {
      op({"forward", "attention"}, "aten::bmm", "[[8, 16, 16], [8, 16, 16]]", 6, 1'200'000, 1'200'000, 0, 0),
      op({"forward"}, "aten::linear", "[[4, 64], [256, 64]]", 3, 3'000'000, 300'000, 0, 0),
      op({"forward"}, "aten::addmm", "[[256], [4, 64], [64, 256]]", 3, 2'700'000, 2'700'000, 0, 0),
  };
  return p;
}

// A profile the size and shape of a small GPT's on a GPU, for how the tab lays out real names,
// shapes and kernels (its figures are plausible, not checked against anything): 4 layers of
// attention, feed-forward and norm ranges, the LM head, backward and the optimizer step.
inline OperatorProfile layered_gpu_profile() {
  const char* gemm_tn =
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas";
  const char* gemm_nn =
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";
  const char* flash =
      "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
      "cutlass::bfloat16_t>, false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)";
  const char* add = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
                    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
                    "at::detail::Array<char*, 3>)";
  const char* norm = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, "
                     "float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, "
                     "c10::BFloat16*)";
  const char* adam = "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
                     "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, "
                     "4, (at::native::ADAM_MODE)1, false> >(...)";
  OperatorProfile p;
  p.measured_steps = 10;
  p.measured_cpu_ns = 412'000'000;
  p.operator_calls = 24'310;
  p.gpu_activity_recorded = true;
  for (int l = 0; l < 4; ++l) {
    const std::string layer = "layer " + std::to_string(l);
    p.operators.push_back(op({"forward", layer, "attention"}, "aten::linear", "[[8, 1024, 768], [2304, 768], [2304]]",
                             10, 4'100'000, 310'000, 0, 2'900'000));
    p.operators.push_back(op({"forward", layer, "attention"}, "aten::addmm", "[[2304], [8192, 768], [768, 2304]]", 10,
                             3'700'000, 3'700'000, 2'900'000, 2'900'000,
                             {op_kernel(gemm_tn, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64",
                                        KernelCategory::matrix_multiply, 10, 2'900'000)}));
    p.operators.push_back(op({"forward", layer, "attention"}, "aten::scaled_dot_product_attention",
                             "[[8, 12, 1024, 64], [8, 12, 1024, 64], [8, 12, 1024, 64], [], [], [], []]", 10,
                             2'200'000, 150'000, 0, 3'400'000));
    p.operators.push_back(op({"forward", layer, "attention"}, "aten::_flash_attention_forward",
                             "[[8, 1024, 12, 64], [8, 1024, 12, 64], [8, 1024, 12, 64], [], []]", 10, 2'050'000,
                             2'050'000, 3'400'000, 3'400'000,
                             {op_kernel(flash, "pytorch_flash::flash_fwd_kernel", KernelCategory::attention, 10,
                                        3'400'000)}));
    p.operators.push_back(op({"forward", layer, "feed-forward"}, "aten::addmm", "[[3072], [8192, 768], [768, 3072]]",
                             10, 3'900'000, 3'900'000, 3'800'000, 3'800'000,
                             {op_kernel(gemm_nn, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64",
                                        KernelCategory::matrix_multiply, 10, 3'800'000)}));
    p.operators.push_back(op({"forward", layer, "norm"}, "aten::native_layer_norm", "[[8, 1024, 768], [768], [768], []]",
                             20, 1'400'000, 1'400'000, 700'000, 700'000,
                             {op_kernel(norm, "vectorized_layer_norm_kernel", KernelCategory::normalisation, 20,
                                        700'000)}));
    p.operators.push_back(op({"forward", layer}, "aten::add", "[[8, 1024, 768], [8, 1024, 768], []]", 20, 800'000,
                             800'000, 500'000, 500'000,
                             {op_kernel(add, "vectorized_elementwise_kernel", KernelCategory::elementwise, 20,
                                        500'000)}));
    p.operators.push_back(op({"backward"}, "aten::mm", "[[8192, 768], [768, 3072]]", 20, 4'400'000, 4'400'000,
                             7'400'000, 7'400'000,
                             {op_kernel(gemm_nn, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64",
                                        KernelCategory::matrix_multiply, 20, 7'400'000)}));
  }
  p.operators.push_back(op({"forward", "lm head + loss"}, "aten::mm", "[[8192, 768], [768, 50304]]", 10, 5'800'000,
                           5'800'000, 21'000'000, 21'000'000,
                           {op_kernel(gemm_tn, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64",
                                      KernelCategory::matrix_multiply, 10, 21'000'000)}));
  p.operators.push_back(op({"optimizer step"}, "aten::_fused_adamw_", "[[], [], [], [], [], [], [], [], [], [], [], []]",
                           10, 12'000'000, 12'000'000, 9'500'000, 9'500'000,
                           {op_kernel(adam, "multi_tensor_apply_kernel", KernelCategory::optimizer, 40, 9'500'000)}));
  return p;
}

inline std::shared_ptr<const OperatorProfile> shared(OperatorProfile profile) {
  return std::make_shared<const OperatorProfile>(std::move(profile));
}

}  // namespace fixtures
