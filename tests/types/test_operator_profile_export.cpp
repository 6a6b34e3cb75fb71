// The operator CSVs of a hand-made profile, line by line: the columns, per-step figures
// worked out by hand, quoting of the shapes, and GPU cells left empty for a CPU profile.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "io/operator_profile_export.h"

namespace stepscope {
namespace {

profiling::OperatorProfile gpu_profile() {
  profiling::OperatorProfile p;
  p.measured_steps = 2;
  p.gpu_activity_recorded = true;
  profiling::OperatorStats mm;
  mm.range_path = {"forward", "attention"};
  mm.name = "aten::mm";
  mm.input_shapes = "[[4, 8], [8, 8]]";
  mm.calls = 3;
  mm.total_cpu_ns = 900;
  mm.self_cpu_ns = 600;
  mm.self_gpu_ns = 300;
  mm.total_gpu_ns = 451;
  mm.kernels = {{"void gemm<float>(int)", "gemm", profiling::KernelCategory::matrix_multiply, 3, 300}};
  p.operators = {mm};
  return p;
}

TEST(OperatorProfileExport, OperatorRowsWithPerStepFigures) {
  std::ostringstream out;
  write_operator_csv(out, gpu_profile());
  EXPECT_EQ(out.str(),
            "Range,Operator,Input Shapes,Calls,Calls/Step,Self CPU (ns),Total CPU (ns),Self GPU (ns),Total GPU (ns),"
            "Self CPU/Step (ns),Total CPU/Step (ns),Self GPU/Step (ns),Total GPU/Step (ns),Kernels\n"
            "forward/attention,aten::mm,\"[[4, 8], [8, 8]]\",3,1.5,600,900,300,451,300.0,450.0,150.0,225.5,1\n");
}

TEST(OperatorProfileExport, KernelRowsPerOperator) {
  std::ostringstream out;
  write_operator_kernel_csv(out, gpu_profile());
  EXPECT_EQ(out.str(),
            "Range,Operator,Input Shapes,Kernel,Short Name,Category,Launches,Launches/Step,Total Time (ns),Avg (ns),"
            "Time/Step (ns)\n"
            "forward/attention,aten::mm,\"[[4, 8], [8, 8]]\",void gemm<float>(int),gemm,matrix multiply,3,1.5,300,"
            "100.0,150.0\n");
}

TEST(OperatorProfileExport, ACpuProfileHasNoGpuFigures) {
  auto p = gpu_profile();
  p.gpu_activity_recorded = false;
  p.operators[0].kernels.clear();
  p.operators[0].self_gpu_ns = p.operators[0].total_gpu_ns = 0;
  p.operators[0].range_path.clear();
  p.measured_steps = 3;
  std::ostringstream out;
  write_operator_csv(out, p);
  const std::string text = out.str();
  EXPECT_EQ(text.substr(text.find('\n') + 1), ",aten::mm,\"[[4, 8], [8, 8]]\",3,1,600,900,,,200.0,300.0,,,\n");
  std::ostringstream kernels;
  write_operator_kernel_csv(kernels, p);
  const std::string kernel_text = kernels.str();
  EXPECT_EQ(std::count(kernel_text.begin(), kernel_text.end(), '\n'), 1) << "the header only";
}

}  // namespace
}  // namespace stepscope
