// Moving weights between a TransformerLM and a state_dict as the Python reference names them.
#pragma once

#include "io/state_dict_file.h"
#include "model/model_config.h"
#include "model/transformer_lm.h"

namespace stepscope {

// Reads vocab, d_model, d_ff and layers off the tensors; heads cannot be read, so the
// caller gives them. context_length is left at its default.
ModelConfig infer_model_config(const StateDict& state, int64_t num_heads);

// Copies every tensor into the model (either engine's: both name their parameters as the
// reference does; the fused one then needs refresh_compute_copy()). A missing or unexpected key, or a shape that does
// not match, is a CheckpointError naming the key and both shapes; nothing is changed then.
void load_state_dict(torch::nn::Module& model, const StateDict& state);

// The model's parameters as CPU tensors, in the model's order.
StateDict model_state_dict(torch::nn::Module& model);

}  // namespace stepscope
