// Precompiled for every translation unit that uses tensors: LibTorch's headers
// dominate compile time on small machines.
#pragma once
#include <torch/torch.h>
