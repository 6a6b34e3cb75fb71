// The kernel profile CSV tables against hand-written expected text.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "io/kernel_summary_export.h"

namespace stepscope {
namespace {

using profiling::KernelCategory;

profiling::KernelStats kernel(const std::string& name, const std::string& short_name, KernelCategory category,
                              int64_t instances, int64_t total, int64_t min, int64_t max, double mean, double median,
                              double stddev, double percent, double per_step) {
  profiling::KernelStats k;
  k.name = name;
  k.short_name = short_name;
  k.category = category;
  k.instances = instances;
  k.total_ns = total;
  k.min_ns = min;
  k.max_ns = max;
  k.mean_ns = mean;
  k.median_ns = median;
  k.stddev_ns = stddev;
  k.time_percent = percent;
  k.instances_per_step = per_step;
  return k;
}

profiling::KernelProfile sample_profile() {
  profiling::KernelProfile p;
  p.measured_steps = 3;
  profiling::RangeKernelSummary window;
  window.range = "measured window";
  window.gpu_time_ns = 1000000;
  window.kernels = {
      kernel("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(int, float)",
             "Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>", KernelCategory::matrix_multiply, 6, 750000,
             100000, 150000, 125000, 124500.5, 18708.28693, 75.04, 2),
      kernel("ampere_sgemm_128x64_tn", "", KernelCategory::matrix_multiply, 1, 249990, 249990, 249990, 249990, 249990,
             0, 24.999, 1.0 / 3.0)};
  window.categories = {{KernelCategory::matrix_multiply, 999990, 7, 99.999}};
  profiling::RangeKernelSummary forward;
  forward.range = "forward, \"layer 0\"";
  forward.kernels = {kernel("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
                            "std::array<char*, 3ul> >(int)",
                            "vectorized_elementwise_kernel", KernelCategory::elementwise, 12, 6000, 400, 600, 500, 500,
                            63.2455532, 100, 4)};
  forward.categories = {{KernelCategory::elementwise, 6000, 12, 100}};
  p.ranges = {window, forward};
  p.steps = {{1, 1000, 750, 250, 4, 187.5, false}, {2, 3000, 1000, 2000, 40, 25, true}, {3, 0, 0, 0, 0, 0, false}};
  p.cpu_ranges = {{"step", 3, 3000000, 1000000}, {"attention scores", 24, 100, 4.1666666, "attention"}};
  return p;
}

TEST(KernelSummaryExport, KernelTableHasNsysColumnsAndFullNames) {
  std::ostringstream out;
  write_kernel_summary_csv(out, sample_profile());
  EXPECT_EQ(out.str(),
            "Range,Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Instances/Step,"
            "Category,Name\n"
            "measured window,75.0,750000,6,125000.0,124500.5,100000,150000,18708.3,2,matrix multiply,"
            "\"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>(int, float)\"\n"
            "measured window,25.0,249990,1,249990.0,249990.0,249990,249990,0.0,0.333,matrix multiply,"
            "ampere_sgemm_128x64_tn\n"
            "\"forward, \"\"layer 0\"\"\",100.0,6000,12,500.0,500.0,400,600,63.2,4,elementwise,"
            "\"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
            "std::array<char*, 3ul> >(int)\"\n");
}

TEST(KernelSummaryExport, ShortNamesOnRequestFallingBackToTheFullName) {
  std::ostringstream out;
  write_kernel_summary_csv(out, sample_profile(), true);
  std::istringstream lines(out.str());
  std::string line;
  std::vector<std::string> names;
  while (std::getline(lines, line)) names.push_back(line.substr(line.rfind(',') + 1));
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(names[1], "Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>");
  EXPECT_EQ(names[2], "ampere_sgemm_128x64_tn");  // no short name recorded
  EXPECT_EQ(names[3], "vectorized_elementwise_kernel");
}

TEST(KernelSummaryExport, CategoryTable) {
  std::ostringstream out;
  write_category_csv(out, sample_profile());
  EXPECT_EQ(out.str(),
            "Range,Category,Time (%),Total Time (ns),Instances\n"
            "measured window,matrix multiply,100.0,999990,7\n"
            "\"forward, \"\"layer 0\"\"\",elementwise,100.0,6000,12\n");
}

TEST(KernelSummaryExport, StepGpuUsageTable) {
  std::ostringstream out;
  write_step_gpu_usage_csv(out, sample_profile());
  EXPECT_EQ(out.str(),
            "Step,Span (ns),Busy (ns),Idle (ns),Busy (%),Kernels,Avg Kernel (ns),Launch Bound\n"
            "1,1000,750,250,75.0,4,187.5,no\n"
            "2,3000,1000,2000,33.3,40,25.0,yes\n"
            "3,0,0,0,0.0,0,0.0,no\n");
}

TEST(KernelSummaryExport, CpuRangesTable) {
  std::ostringstream out;
  write_cpu_ranges_csv(out, sample_profile());
  EXPECT_EQ(out.str(),
            "Range,Instances,Total Time (ns),Avg (ns),Parent\n"
            "step,3,3000000,1000000.0,\n"
            "attention scores,24,100,4.2,attention\n");
}

TEST(KernelSummaryExport, EmptyProfileWritesHeadersOnly) {
  const profiling::KernelProfile empty;
  std::ostringstream kernels, categories, steps, cpu;
  write_kernel_summary_csv(kernels, empty);
  write_category_csv(categories, empty);
  write_step_gpu_usage_csv(steps, empty);
  write_cpu_ranges_csv(cpu, empty);
  EXPECT_EQ(kernels.str(),
            "Range,Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Instances/Step,"
            "Category,Name\n");
  EXPECT_EQ(categories.str(), "Range,Category,Time (%),Total Time (ns),Instances\n");
  EXPECT_EQ(steps.str(), "Step,Span (ns),Busy (ns),Idle (ns),Busy (%),Kernels,Avg Kernel (ns),Launch Bound\n");
  EXPECT_EQ(cpu.str(), "Range,Instances,Total Time (ns),Avg (ns),Parent\n");
}

}  // namespace
}  // namespace stepscope
