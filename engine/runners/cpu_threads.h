// How many threads LibTorch's intra-op pool gives CPU work in this process. By default all
// cores but one (at least one): the GUI thread and the machine stay responsive while a run
// measures. Declared once as an input (--threads), for the CLI, the app and the workers a run
// launches.
#pragma once

#include "schema/input_field.h"

namespace stepscope {

// Hardware threads of this machine; at least 1.
int cpu_core_count();
// All cores but one, at least 1.
int default_cpu_threads();
// The --threads input: an integer from 1, defaulting to default_cpu_threads().
schema::InputField cpu_threads_input();
// Sets LibTorch's intra-op threads for this process (at::set_num_threads); throws ConfigError
// (field "threads") below 1.
void set_cpu_threads(int threads);
// LibTorch's intra-op threads now (at::get_num_threads).
int cpu_threads();

}  // namespace stepscope
