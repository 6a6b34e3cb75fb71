// Which attention computes a model's or a sweep's attention.
#pragma once

#include <string>

namespace stepscope {

// naive: the reference's score matrix, softmax and product (memory grows with seq^2);
// sdpa: LibTorch's scaled_dot_product_attention (LibTorch 2.x only);
// flash: Stepscope's FlashAttention-2 (CUDA kernels on a GPU, the tiled reference on the CPU).
enum class AttentionImpl { naive, sdpa, flash };

std::string to_string(AttentionImpl impl);
// Throws ConfigError naming the accepted values.
AttentionImpl parse_attention_impl(const std::string& text);

}  // namespace stepscope
