// An operator profile as the tree the Operators tab shows: the ranges open around the calls
// (forward → attention → softmax), the operators called inside each (per input-shape
// signature, or merged over them), and the kernels each launched. Plain data, built once per
// profile and grouping, so that the item model only reads it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiling/operator_profile.h"

namespace stepscope::views {

enum class OperatorNodeKind { range, op, kernel };

struct OperatorTreeNode {
  OperatorNodeKind kind = OperatorNodeKind::range;
  std::string name;       // the range, the operator ("aten::mm"), the kernel's short name
  std::string full_name;  // kernels: the full demangled name; else the same as name
  // Operators: the signature ("[[4096, 768], [768, 3072]]") when grouped by shapes; merged,
  // the one signature when there is one, else empty (shapes lists them all).
  std::string input_shapes;
  std::vector<std::string> shapes;  // operators: every signature the row sums
  profiling::KernelCategory category = profiling::KernelCategory::other;  // kernels
  // Ranges: the operator calls inside (nested ranges included); operators: calls; kernels: launches.
  int64_t calls = 0;
  // False for kernels and for the kernels launched outside every operator: no CPU figures.
  bool has_cpu = true;
  int64_t total_cpu_ns = 0;
  int64_t self_cpu_ns = 0;
  int64_t self_gpu_ns = 0;
  int64_t total_gpu_ns = 0;
  int parent = -1;            // index in OperatorTree::nodes; -1 at the top
  int row = 0;                // index in the parent's children (or the roots)
  std::vector<int> children;  // in the profile's order (operators: by self CPU, largest first)
};

struct OperatorTree {
  std::vector<OperatorTreeNode> nodes;
  std::vector<int> roots;  // top-level ranges, and operators called outside every range
  int64_t gpu_ns = 0;      // every attributed kernel's time once: the GPU share's denominator
};

// `group_by_shapes`: one operator row per (range path, name, input shapes), as the profile
// holds them (key_averages(group_by_input_shape=True)); false: one row per (range path,
// name), summing its signatures, with the kernels of the same name merged.
//
// A range's figures sum the operators inside it, its nested ranges included: calls, and
// self CPU and self GPU time. Its total CPU (and total GPU) time is that same sum of self
// times, never a sum of the operators' totals: an operator's total contains the operators
// nested in it (aten::linear's contains aten::addmm's), which are rows of their own, so
// totals would count them twice. Self times partition the CPU time spent in operators, and
// each operator row sits under exactly one range (the innermost open around it), so a range
// counts each nanosecond once however deeply its ranges nest; the same holds for self GPU
// time, each kernel being attributed to the one operator that launched it.
OperatorTree build_operator_tree(const profiling::OperatorProfile& profile, bool group_by_shapes);

}  // namespace stepscope::views
