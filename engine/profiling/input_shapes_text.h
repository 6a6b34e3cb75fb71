// Input shapes as torch.profiler's key_averages(group_by_input_shape=True) prints them, so that
// our operator rows and an imported trace's group alike: "[[4096, 768], [768, 3072]]", "[]"
// for no inputs, "[[8, 768], [], []]" with two non-tensor inputs.
#pragma once

#include <string>

#include "compat/operator_listener.h"

namespace stepscope::profiling {

// Appends to `out` (which it does not clear): a caller reuses one buffer, so that formatting
// allocates nothing once the buffer has grown.
void append_input_shapes_text(std::string& out, const compat::InputShapes& shapes);
std::string input_shapes_text(const compat::InputShapes& shapes);

}  // namespace stepscope::profiling
