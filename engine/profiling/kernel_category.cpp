#include "profiling/kernel_category.h"

#include <cctype>
#include <initializer_list>

#include "profiling/kernel_names.h"

namespace stepscope::profiling {

// Rules, first match wins, case-insensitive. They look at the qualified kernel name
// (namespaces and function; template arguments and parameters dropped, see
// qualified_kernel_name): a functor or lambda among the template arguments would mislead,
// e.g. "maximum_kernel_cuda" inside an elementwise kernel is not a reduction.
//
//   memory           memcpy, memset (record names: "Memcpy HtoD", "Memset")
//   communication    nccl
//   attention        flash, fmha, attention, attn, sdpa
//   softmax          softmax (cunn_SoftMaxForward, softmax_warp_forward, log_softmax)
//   normalisation    layernorm, rmsnorm, gammabeta, rowwisemoments, or "norm" not followed
//                    by a lower-case letter (layer_norm, LayerNormForward, batch_norm_...;
//                    not the random normal_kernel, not normalize)
//   matrix multiply  gemm, gemv, cutlass, cublas, xmma, nvjet, s1688, s16816, splitkreduce,
//                    matmul
//   optimizer        multi_tensor_apply, foreach, adam
//   reduction        reduce, reduction, or a word sum/mean/max/min/amax/amin/argmax/argmin/
//                    prod, unless a word names a pool (max_pool2d)
//   elementwise      elementwise, vectorized, unrolled, index, copy_kernel, fill,
//                    catarraybatchedcopy, embedding, dropout
//   other            anything else
//
// Order matters: "fmha_cutlassF" is attention before cutlass is a GEMM; "AllReduce_Sum"
// is NCCL before it is a reduction; "splitKreduce" is cuBLAS before it is a reduction.

namespace {

bool has_any(const std::string& text, std::initializer_list<const char*> needles) {
  for (const char* n : needles) {
    if (text.find(n) != std::string::npos) return true;
  }
  return false;
}

// "norm" as a word or a CamelCase part, not the start of "normal"/"normalize".
bool has_norm(const std::string& lower, const std::string& original) {
  for (size_t p = lower.find("norm"); p != std::string::npos; p = lower.find("norm", p + 1)) {
    if (p + 4 >= original.size() || !std::islower(static_cast<unsigned char>(original[p + 4]))) return true;
  }
  return false;
}

bool has_reduction_word(const std::string& lower) {
  bool reduction_word = false;
  std::string word;
  for (size_t i = 0; i <= lower.size(); ++i) {
    if (i < lower.size() && std::isalnum(static_cast<unsigned char>(lower[i]))) {
      word += lower[i];
      continue;
    }
    if (word.find("pool") != std::string::npos) return false;
    for (const char* w : {"sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "prod"}) {
      if (word == w) reduction_word = true;
    }
    word.clear();
  }
  return reduction_word;
}

}  // namespace

KernelCategory classify_kernel(const std::string& demangled_name) {
  const std::string original = qualified_kernel_name(demangled_name);
  std::string n = original;
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));

  if (has_any(n, {"memcpy", "memset"})) return KernelCategory::memory;
  if (has_any(n, {"nccl"})) return KernelCategory::communication;
  if (has_any(n, {"flash", "fmha", "attention", "attn", "sdpa"})) return KernelCategory::attention;
  if (has_any(n, {"softmax"})) return KernelCategory::softmax;
  if (has_any(n, {"layernorm", "rmsnorm", "gammabeta", "rowwisemoments"}) || has_norm(n, original)) {
    return KernelCategory::normalisation;
  }
  if (has_any(n, {"gemm", "gemv", "cutlass", "cublas", "xmma", "nvjet", "s1688", "s16816", "splitkreduce", "matmul"})) {
    return KernelCategory::matrix_multiply;
  }
  if (has_any(n, {"multi_tensor_apply", "foreach", "adam"})) return KernelCategory::optimizer;
  if (has_any(n, {"reduce", "reduction"}) || has_reduction_word(n)) return KernelCategory::reduction;
  if (has_any(n, {"elementwise", "vectorized", "unrolled", "index", "copy_kernel", "fill", "catarraybatchedcopy",
                  "embedding", "dropout"})) {
    return KernelCategory::elementwise;
  }
  return KernelCategory::other;
}

std::string to_string(KernelCategory category) {
  switch (category) {
    case KernelCategory::matrix_multiply: return "matrix multiply";
    case KernelCategory::attention: return "attention";
    case KernelCategory::softmax: return "softmax";
    case KernelCategory::normalisation: return "normalisation";
    case KernelCategory::elementwise: return "elementwise";
    case KernelCategory::reduction: return "reduction";
    case KernelCategory::optimizer: return "optimizer";
    case KernelCategory::memory: return "memory copy/set";
    case KernelCategory::communication: return "communication";
    case KernelCategory::other: return "other";
  }
  return "other";
}

std::vector<KernelCategory> all_kernel_categories() {
  return {KernelCategory::matrix_multiply, KernelCategory::attention,   KernelCategory::softmax,
          KernelCategory::normalisation,   KernelCategory::elementwise, KernelCategory::reduction,
          KernelCategory::optimizer,       KernelCategory::memory,      KernelCategory::communication,
          KernelCategory::other};
}

}  // namespace stepscope::profiling
