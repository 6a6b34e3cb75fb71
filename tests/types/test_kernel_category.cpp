// Kernel categories from names seen in PyTorch 2.x, cuBLAS, cuDNN, CUTLASS and NCCL traces.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "profiling/kernel_category.h"

namespace stepscope::profiling {
namespace {

void expect_all(KernelCategory expected, const std::vector<std::string>& names) {
  for (const auto& name : names) EXPECT_EQ(classify_kernel(name), expected) << name;
}

TEST(KernelCategory, MatrixMultiply) {
  expect_all(KernelCategory::matrix_multiply,
             {"ampere_sgemm_128x64_tn", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_"
                                        "warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
              "nvjet_tst_192x192_64x4_2x1_v_bz_coopA_NNT", "NVJET_TST_64X8_64X16_4X1_V_BZ_TNN",
              "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(cutlass_80_tensorop_"
              "s1688gemm_64x64_16x6_tn_align4::Params)",
              "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8>(int)",
              "void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, false, false, "
              "false>(cublasLt::cublasSplitKParams<float>, float const*, float const*, float*, float const*, float "
              "const*, float const*)",
              "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false, "
              "cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, "
              "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >(int)",
              "void cublasLt::epilogue::impl::globalKernel<8, 32, float, float, float, true, true, "
              "0>(cublasLt::epilogue::impl::Params<float>)",
              "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_warpgroupsize1x1x1_"
              "g1_execute_kernel__5x_cudnn",
              "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
              "int> >(int)"});
}

TEST(KernelCategory, Attention) {
  expect_all(KernelCategory::attention,
             {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, "
              "false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> "
              ">, false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
              "void pytorch_flash::flash_bwd_dot_do_o_kernel<true, pytorch_flash::Flash_bwd_kernel_traits<64> "
              ">(pytorch_flash::Flash_bwd_params)",
              "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, "
              "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
              "fmha_cutlassB_f32_aligned_64x64_k64_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<int>::Params)",
              "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x64_4x1x1_kernel0_0",
              "void cutlass::device_kernel<flash::FlashAttnFwdSm90<cute::C<128> > >(int)",
              "void attention_kernel_batched_impl<AttentionKernel<float, cutlass::arch::Sm80, true, 64, 64, 64, "
              "true, true> >(AttentionKernel<float, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)"});
}

TEST(KernelCategory, Softmax) {
  expect_all(KernelCategory::softmax,
             {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
              "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
              "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, "
              "at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float const, int)",
              "void (anonymous namespace)::softmax_warp_forward<float, float, float, 8, false, false>(float*, float "
              "const*, int, int, int, bool const*, int, bool)",
              "void (anonymous namespace)::softmax_warp_backward<float, float, float, 10, true, false>(float*, float "
              "const*, float const*, int, int, int, bool const*)",
              "void at::native::(anonymous namespace)::log_softmax_kernel(int)"});
}

TEST(KernelCategory, NormalisationButNotRandomNormal) {
  expect_all(KernelCategory::normalisation,
             {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float "
              "const*, float const*, float const*, float*, float*, float*)",
              "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<float, float>(float const*, "
              "float const*, float const*, float const*, float const*, float*, int)",
              "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<float, float>(long, long, "
              "float const*, float const*, float const*, float const*, float*, float*)",
              "void at::native::(anonymous namespace)::RowwiseMomentsCUDAKernel<float, float>(long, float, float "
              "const*, float*, float*)",
              "void rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, int)",
              "void cuApplyLayerNorm<float, float, float>(float*, float*, float*, float const*, int, int, float)",
              "void at::native::batch_norm_collect_statistics_kernel<at::native::InvStd, float, float, float, "
              "int>(int)"});
  EXPECT_NE(classify_kernel("void at::native::normal_kernel<float>(float*, int)"), KernelCategory::normalisation);
  EXPECT_EQ(classify_kernel("void at::native::normal_kernel<float>(float*, int)"), KernelCategory::other);
  EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, "
                            "4, at::native::templates::cuda::normal_and_transform<float, float>(int)::{lambda(float)"
                            "#1}>(long, at::PhiloxCudaState, float)"),
            KernelCategory::elementwise);
}

TEST(KernelCategory, Elementwise) {
  expect_all(KernelCategory::elementwise,
             {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
              "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
              "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(int)::{lambda(float)"
              "#1}, std::array<char*, 2ul>, 4>(int)",
              "void at::native::elementwise_kernel_with_index<int, at::native::ArangeFunctor>(int, "
              "at::native::ArangeFunctor)",
              "void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel()::{lambda(int)#1}>(long, "
              "at::native::gpu_index_kernel()::{lambda(int)#1})",
              "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>(float*, "
              "at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, "
              "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
              "void at::native::(anonymous namespace)::embedding_backward_feature_kernel<float, float, long>(long "
              "const*, float const*, float*, int, long, int, int)",
              "void at::native::(anonymous namespace)::indexSelectLargeIndex<float, long, unsigned int, 2, 2, -2, "
              "true>(int)",
              "void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, unsigned int, 1, 4, "
              "bool>(int)",
              // A "maximum" lambda in the template arguments does not make it a reduction.
              "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
              "namespace)::maximum_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() "
              "const::{lambda()#5}::operator()() const::{lambda(float, float)#1}, std::array<char*, 3ul> >(int)"});
}

TEST(KernelCategory, Reduction) {
  expect_all(KernelCategory::reduction,
             {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, "
              "float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, "
              "float, float, float>, unsigned int, float, 4>)",
              "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, "
              "long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)",
              "void cub::DeviceReductionKernel<int>(int)", "void sum_rows_kernel<float>(float const*, int)",
              "void row_max_kernel(float const*, float*)"});
  EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float "
                            "const*, long, long, long, int, int, int, int, int, int, int, int, int, int, float*, "
                            "long*)"),
            KernelCategory::other);
}

TEST(KernelCategory, Optimizer) {
  expect_all(KernelCategory::optimizer,
             {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
              "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
              "(at::native::ADAM_MODE)1, false>, float*, double, double, double, double, bool, bool, float*, "
              "float*>(int)",
              "void at::native::_fused_adamw_kernel_impl<float>(int)", "void foreach_tensor_add_kernel(int)"});
}

TEST(KernelCategory, MemoryCommunicationAndOther) {
  expect_all(KernelCategory::memory,
             {"Memcpy HtoD", "Memcpy DtoH (Device -> Pageable)", "Memset", "[CUDA memcpy Device-to-Host]"});
  expect_all(KernelCategory::communication,
             {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
              "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclWorkElem)", "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"});
  expect_all(KernelCategory::other,
             {"void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true, "
              "(cudnnKernelDataType_t)2>(cudnn::engines_precompiled::nchw2nhwc_params_t<float>, float const*, float*)",
              "void at::native::tensor_kernel_scan_innermost_dim<float, std::plus<float> >(float*, float const*, "
              "unsigned int, unsigned int, float, std::plus<float>)",
              "void at::native::amp_update_scale_cuda_kernel(float*, int*, float const*, double, double, int)", "",
              "((("});
}

TEST(KernelCategory, LabelsAndOrder) {
  const std::vector<KernelCategory> expected = {
      KernelCategory::matrix_multiply, KernelCategory::attention, KernelCategory::softmax,
      KernelCategory::normalisation,   KernelCategory::elementwise, KernelCategory::reduction,
      KernelCategory::optimizer,       KernelCategory::memory,    KernelCategory::communication,
      KernelCategory::other};
  EXPECT_EQ(all_kernel_categories(), expected);
  const std::vector<std::string> labels = {"matrix multiply", "attention", "softmax",         "normalisation",
                                           "elementwise",     "reduction", "optimizer",       "memory copy/set",
                                           "communication",   "other"};
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(to_string(expected[i]), labels[i]);
}

}  // namespace
}  // namespace stepscope::profiling
