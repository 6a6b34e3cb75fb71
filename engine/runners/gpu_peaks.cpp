#include "runners/gpu_peaks.h"

namespace stepscope {

namespace {

struct GpuPeak {
  const char* name_part;  // matched against the CUDA device name, most specific first
  double fp32;
  double half;  // bf16 and fp16 tensor cores, dense
};

// Vendor datasheets (dense, boost clock).
constexpr GpuPeak kPeaks[] = {
    {"H100 PCIe", 51.2, 756.0}, {"H100 NVL", 60.0, 835.0}, {"H100", 66.9, 989.4}, {"H200", 66.9, 989.4},
    {"H800", 66.9, 989.4},      {"GH200", 66.9, 989.4},    {"B200", 80.0, 2250.0}, {"A100", 19.5, 312.0},
    {"A10G", 31.2, 70.0},       {"A10", 31.2, 125.0},      {"L40S", 91.6, 362.0},  {"L4", 30.3, 121.0},
    {"V100", 15.7, 125.0},      {"RTX 4090", 82.6, 165.2}, {"RTX 3090", 35.6, 71.0},
};

}  // namespace

double peak_tflops(const std::string& device_name, Precision precision) {
  for (const auto& peak : kPeaks) {
    if (device_name.find(peak.name_part) != std::string::npos) {
      return precision == Precision::fp32 ? peak.fp32 : peak.half;
    }
  }
  return 0.0;
}

}  // namespace stepscope
