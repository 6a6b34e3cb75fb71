#include "runners/cpu_threads.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <string>
#include <thread>

#include "core/config_error.h"

namespace stepscope {

namespace {
constexpr int kMaxThreads = 1024;
}  // namespace

int cpu_core_count() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

int default_cpu_threads() { return std::max(1, cpu_core_count() - 1); }

schema::InputField cpu_threads_input() {
  schema::InputField f{"threads", "CPU threads", schema::InputKind::integer,
                       "LibTorch's threads for CPU work (default: all " + std::to_string(cpu_core_count()) +
                           " cores but one, at least 1)",
                       std::to_string(default_cpu_threads()), false, "run", "N"};
  f.max_integer = kMaxThreads;
  return f;
}

void set_cpu_threads(int threads) {
  if (threads < 1 || threads > kMaxThreads) {
    throw ConfigError("CPU threads must be from 1 to " + std::to_string(kMaxThreads) + ", not " +
                          std::to_string(threads),
                      "threads");
  }
  at::set_num_threads(threads);
}

int cpu_threads() { return at::get_num_threads(); }

}  // namespace stepscope
