#pragma once
#include <stdexcept>
#include <string>
#include <vector>
#include <ATen/core/Tensor.h>
namespace stepscope {
struct NamedTensor { std::string name; at::Tensor tensor; };
using StateDict = std::vector<NamedTensor>;   // keeps the file's key order
class CheckpointError : public std::runtime_error { public: using std::runtime_error::runtime_error; };
// Reads what `torch.save(model.state_dict(), path)` writes (zip format, PyTorch >= 1.6, both 1.x and 2.x files).
StateDict load_state_dict_file(const std::string& path);
// Writes a file that `torch.load(path)` (PyTorch 1.x and 2.x, also with weights_only=True) returns as an OrderedDict of CPU tensors.
void save_state_dict_file(const StateDict& state, const std::string& path);
}
