#include "distributed/rank_gather.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstring>

namespace stepscope::distributed {

std::vector<std::vector<double>> gather_numbers(Communicator& comm, const std::vector<double>& mine,
                                                const c10::Device& device) {
  const int64_t n = static_cast<int64_t>(mine.size());
  const auto doubles = at::TensorOptions().dtype(at::kDouble);
  at::Tensor input = at::from_blob(const_cast<double*>(mine.data()), {n}, doubles).to(device);
  at::Tensor output = at::empty({n * comm.size()}, doubles.device(device));
  comm.all_gather(output, input)->wait();
  const at::Tensor all = output.to(at::kCPU).contiguous();
  std::vector<std::vector<double>> out(static_cast<size_t>(comm.size()));
  for (int r = 0; r < comm.size(); ++r) out[static_cast<size_t>(r)].assign(all.data_ptr<double>() + r * n, all.data_ptr<double>() + (r + 1) * n);
  return out;
}

std::vector<std::string> gather_text(Communicator& comm, const std::string& mine, const c10::Device& device) {
  // Lengths first (as numbers: exact up to 2^53), then every text padded to the longest.
  const auto lengths = gather_numbers(comm, {static_cast<double>(mine.size())}, device);
  int64_t longest = 1;
  for (const auto& l : lengths) longest = std::max<int64_t>(longest, static_cast<int64_t>(l[0]));
  at::Tensor input = at::zeros({longest}, at::TensorOptions().dtype(at::kByte));
  std::memcpy(input.data_ptr<uint8_t>(), mine.data(), mine.size());
  input = input.to(device);
  at::Tensor output = at::empty({longest * comm.size()}, input.options());
  comm.all_gather(output, input)->wait();
  const at::Tensor all = output.to(at::kCPU).contiguous();
  std::vector<std::string> out;
  for (int r = 0; r < comm.size(); ++r) {
    const char* first = reinterpret_cast<const char*>(all.data_ptr<uint8_t>()) + r * longest;
    out.emplace_back(first, static_cast<size_t>(lengths[static_cast<size_t>(r)][0]));
  }
  return out;
}

}  // namespace stepscope::distributed
