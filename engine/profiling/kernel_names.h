// Kernel names as the driver reports them (mangled), made readable: demangled in full, and
// folded to a short name for tables and trace slices. No LibTorch or CUDA headers.
#pragma once

#include <string>

#include "profiling/activity_records.h"

namespace stepscope::profiling {

// The demangled form of an Itanium-mangled name ("_Z..."). Anything else (C kernels such as
// "ampere_sgemm_128x64_tn" or "nvjet_tst_...", "Memcpy DtoH") and names the demangler
// rejects come back unchanged. Never throws.
std::string demangle_kernel_name(const std::string& mangled);

// The name a copy or set goes by in summaries and traces, as Nsight Systems writes it:
// "[CUDA memcpy Host-to-Device]", "[CUDA memset]".
const char* memory_activity_name(MemoryOperation operation);

// The kernel's own name, from a demangled signature:
//   1. the return type, the argument list and trailing qualifiers (" const") are dropped;
//   2. namespaces and enclosing classes, "(anonymous namespace)" included, are dropped;
//   3. template arguments and ABI tags ("[abi:cxx11]") are dropped ...
//   4. ... except after a generic wrapper name ("kernel", "Kernel2", "device_kernel": kernel
//      followed by digits, optionally prefixed "device_"), where the informative part is the
//      template argument: the first argument that names a type, itself shortened by these
//      rules, is kept: "Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>",
//      "device_kernel<GemmUniversal>"; nested wrappers give the innermost such argument;
//   5. a last component that says nothing alone (a lambda "{lambda(int)#1}", an unnamed type,
//      an operator "operator()") keeps its enclosing component: "Bar::operator()".
// A name that is not a C++ signature (no "::", no '<', no "identifier(") comes back trimmed
// but otherwise unchanged, so do names with unbalanced brackets.
std::string short_kernel_name(const std::string& demangled);

// The short name with its enclosing namespaces and classes, their template arguments dropped:
// "at::native::(anonymous namespace)::multi_tensor_apply_kernel", "cutlass::Kernel2<...>".
// For classification, where a namespace (cublasLt, cutlass, pytorch_flash) says what a
// kernel does while template arguments (functors, lambdas) would mislead.
std::string qualified_kernel_name(const std::string& demangled);

}  // namespace stepscope::profiling
