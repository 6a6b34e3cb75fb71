// Kernel name demangling and shortening. Mangled names and their demangled forms were
// checked with binutils' c++filt; short names are written out by hand from the rule in
// kernel_names.h.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "profiling/kernel_names.h"

namespace stepscope::profiling {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

TEST(KernelNames, DemanglesAsCxxFiltDoes) {
  const Pairs cases = {
      {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIfEESt5arrayIPcLm3EEEEviT0_T1_",
       "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> "
       ">(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)"},
      {"_ZN7cutlass7Kernel2I50cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4EEvNT_6ParamsE",
       "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(cutlass_80_tensorop_s1688gemm_64x64_"
       "16x6_tn_align4::Params)"},
      {"_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
       "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"},
      {"_ZN12_GLOBAL__N_120softmax_warp_forwardIfffLi8ELb0ELb0EEEvPT0_PKT_iiiPKbib",
       "void (anonymous namespace)::softmax_warp_forward<float, float, float, 8, false, false>(float*, float const*, "
       "int, int, int, bool const*, int, bool)"},
      {"_ZN2at6native12_GLOBAL__N_119cunn_SoftMaxForwardILi4EfffNS1_22SoftMaxForwardEpilogueEEEvPT2_PKT0_i",
       "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous "
       "namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)"},
      {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7MeanOpsIffffEEjfLi4EEEEEvT1_",
       "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
       "float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
       "unsigned int, float, 4>)"},
      {"_ZN2at6native24index_elementwise_kernelILi128ELi4EZNS0_16gpu_index_kernelEvEUliE_EEvlT1_",
       "void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel()::{lambda(int)#1}>(long, "
       "at::native::gpu_index_kernel()::{lambda(int)#1})"},
      {"_ZN2at6native12_GLOBAL__N_128vectorized_layer_norm_kernelIffEEviT0_PKT_S6_S6_PS4_S7_S7_",
       "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, "
       "float const*, float const*, float*, float*, float*)"},
      {"_ZN3foo12kernel_entryB5cxx11IiEEvT_", "void foo::kernel_entry[abi:cxx11]<int>(int)"},
  };
  for (const auto& [mangled, expected] : cases) EXPECT_EQ(demangle_kernel_name(mangled), expected) << mangled;
}

TEST(KernelNames, LeavesCNamesAndBadManglingsAlone) {
  for (const std::string name :
       {"ampere_sgemm_128x64_tn", "nvjet_tst_192x192_64x4_2x1_v_bz_coopA_NNT",
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__"
        "5x_cublas",
        "Memcpy DtoH", "Memset", "i", "", "_Z", "_ZN3foo", "_Z3foo_bad_ZZ"}) {
    EXPECT_EQ(demangle_kernel_name(name), name);
  }
}

TEST(KernelNames, ShortNamesDropReturnTypeNamespacesTemplatesAndArguments) {
  const Pairs cases = {
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> "
       ">(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
       "vectorized_elementwise_kernel"},
      {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous "
       "namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
       "cunn_SoftMaxForward"},
      {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 8, false, false>(float*, float const*, "
       "int, int, int, bool const*, int, bool)",
       "softmax_warp_forward"},
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
       "float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
       "unsigned int, float, 4>)",
       "reduce_kernel"},
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
       "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
       "(at::native::ADAM_MODE)1, false>, float*, double, double, double, double, bool, bool, float*, "
       "float*>(at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous "
       "namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, float*, double, double, double, "
       "double, bool, bool, float*, float*)",
       "multi_tensor_apply_kernel"},
      {"void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel()::{lambda(int)#1}>(long, "
       "at::native::gpu_index_kernel()::{lambda(int)#1})",
       "index_elementwise_kernel"},
      {"void at::native::elementwise_kernel_with_index<int, at::native::ArangeFunctor>(int, at::native::ArangeFunctor)",
       "elementwise_kernel_with_index"},
      {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, "
       "float const*, float const*, float*, float*, float*)",
       "vectorized_layer_norm_kernel"},
      {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
       "ncclDevKernel_AllReduce_Sum_f32_RING_LL"},
      {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
       "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, true, "
       "false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
       "flash_fwd_kernel"},
      {"fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, "
       "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
       "fmha_cutlassF_bf16_aligned_64x64_rf_sm80"},
      {"void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true, "
       "(cudnnKernelDataType_t)2>(cudnn::engines_precompiled::nchw2nhwc_params_t<float>, float const*, float*)",
       "nchwToNhwcKernel"},
      {"void foo::kernel_entry[abi:cxx11]<int>(int)", "kernel_entry"},
      // The elementwise functor here is a lambda inside operator() calls: all template arguments.
      {"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
       "namespace)::maximum_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() "
       "const::{lambda()#5}::operator()() const::{lambda(float, float)#1}, std::array<char*, 3ul> >(int, "
       "at::native::(anonymous namespace)::maximum_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() "
       "const::{lambda()#5}::operator()() const::{lambda(float, float)#1}, std::array<char*, 3ul>)",
       "vectorized_elementwise_kernel"},
  };
  for (const auto& [demangled, expected] : cases) EXPECT_EQ(short_kernel_name(demangled), expected) << demangled;
}

TEST(KernelNames, GenericWrappersKeepTheirInformativeTemplateArgument) {
  EXPECT_EQ(short_kernel_name("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(cutlass_80_"
                              "tensorop_s1688gemm_64x64_16x6_tn_align4::Params)"),
            "Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>");
  EXPECT_EQ(short_kernel_name("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, "
                              "int, int>, cutlass::gemm::collective::CollectiveMma<int>, void> "
                              ">(cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
                              "cutlass::gemm::collective::CollectiveMma<int>, void>::Params)"),
            "device_kernel<GemmUniversal>");
  // Numbers, casts and booleans say nothing: the first argument that names a type is kept.
  EXPECT_EQ(short_kernel_name("void cutlass::device_kernel<(cutlass::arch::Mode)1, 128, true, "
                              "flash::FlashAttnFwdSm90<cute::C<128> > >(int)"),
            "device_kernel<FlashAttnFwdSm90>");
  // Nested wrappers: the innermost informative argument.
  EXPECT_EQ(short_kernel_name("void cutlass::Kernel<cutlass::Kernel2<ns::GemmTn<int> > >(int)"), "Kernel<GemmTn>");
  EXPECT_EQ(short_kernel_name("void kernel<128, true>(int)"), "kernel");
  // Not a wrapper: "elementwise_kernel" is informative by itself.
  EXPECT_EQ(short_kernel_name("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl()::{lambda(int)"
                              "#1}>(int, at::native::gpu_kernel_impl()::{lambda(int)#1})"),
            "elementwise_kernel");
}

TEST(KernelNames, OperatorsAndLambdasKeepTheirEnclosingName) {
  EXPECT_EQ(short_kernel_name("foo::Bar::operator()(int)"), "Bar::operator()");
  EXPECT_EQ(short_kernel_name("foo::operator<(foo const&, foo const&)"), "foo::operator<");
  EXPECT_EQ(short_kernel_name("void ns::Functor<int>::operator()<float>(float) const"), "Functor::operator()");
  EXPECT_EQ(short_kernel_name("x::operator new[](unsigned long)"), "x::operator new[]");
  EXPECT_EQ(short_kernel_name("main::{lambda(int)#1}::operator()(int) const"), "{lambda(int)#1}::operator()");
  EXPECT_EQ(short_kernel_name("void at::native::launcher()::{lambda(int)#1}(int)"), "launcher::{lambda(int)#1}");
}

TEST(KernelNames, PlainNamesComeBackUnchanged) {
  for (const std::string name :
       {"ampere_sgemm_128x64_tn", "nvjet_tst_192x192_64x4_2x1_v_bz_coopA_NNT",
        "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x64_4x1x1_kernel0_0", "Memcpy DtoH",
        "Memcpy DtoH (Device -> Pageable)", "[CUDA memset]", ""}) {
    EXPECT_EQ(short_kernel_name(name), name);
  }
  EXPECT_EQ(short_kernel_name("  ampere_sgemm_128x64_tn \n"), "ampere_sgemm_128x64_tn");
}

TEST(KernelNames, QualifiedNamesKeepNamespaces) {
  EXPECT_EQ(qualified_kernel_name("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
                                  "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, "
                                  "int)"),
            "at::native::(anonymous namespace)::cunn_SoftMaxForward");
  EXPECT_EQ(qualified_kernel_name("void cublasLt::epilogue::impl::globalKernel<8, 32, float, float, float, true, true, "
                                  "0>(cublasLt::epilogue::impl::Params<float>)"),
            "cublasLt::epilogue::impl::globalKernel");
  EXPECT_EQ(qualified_kernel_name("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(int)"),
            "cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>");
  EXPECT_EQ(qualified_kernel_name("void outer<int>::inner::run<float>(float)"), "outer::inner::run");
  EXPECT_EQ(qualified_kernel_name("Memset"), "Memset");
}

TEST(KernelNames, MalformedNamesComeBackTrimmedAndNeverCrash) {
  EXPECT_EQ(short_kernel_name("void foo<(bar<1>"), "void foo<(bar<1>");
  EXPECT_EQ(short_kernel_name("void foo<int>(int))"), "void foo<int>(int))");
  EXPECT_EQ(short_kernel_name(" void a::b>(int "), "void a::b>(int");
  EXPECT_EQ(short_kernel_name("::"), "::");
  const std::string real =
      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
      "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
      "(at::native::ADAM_MODE)1, false> >(int)::{lambda(int)#1}::operator()() const";
  for (size_t n = 0; n <= real.size(); ++n) {  // every prefix and suffix: half-open brackets everywhere
    short_kernel_name(real.substr(0, n));
    short_kernel_name(real.substr(n));
    qualified_kernel_name(real.substr(0, n));
  }
  uint32_t state = 12345;  // a fixed pseudo-random stream of bracket soup
  const std::string alphabet = "<>(){}[]: ,ab_operator~-";
  for (int i = 0; i < 2000; ++i) {
    std::string soup;
    for (int j = 0; j < 40; ++j) {
      state = state * 1664525u + 1013904223u;
      soup += alphabet[(state >> 16) % alphabet.size()];
    }
    short_kernel_name(soup);
    qualified_kernel_name(soup);
    demangle_kernel_name("_Z" + soup);
  }
  SUCCEED();
}

}  // namespace
}  // namespace stepscope::profiling
