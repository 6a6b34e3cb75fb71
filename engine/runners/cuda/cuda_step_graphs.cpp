// at::cuda::CUDAGraph per phase, captured on a side stream from one private memory pool (as
// torch.cuda.make_graphed_callables does for a forward and its backward).
#include "runners/step_graphs.h"

#include <array>

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

namespace stepscope {

namespace {

class CudaStepGraphs final : public StepGraphs {
 public:
  explicit CudaStepGraphs(c10::Device device) : device_(device), pool_(at::cuda::graph_pool_handle()) {}

  void capture(StepPhaseGraph phase, const std::function<void()>& work) override {
    const c10::cuda::CUDAGuard device_guard(device_);
    auto& graph = graphs_[static_cast<size_t>(phase)];
    graph = std::make_unique<at::cuda::CUDAGraph>();
    // Capture may not run on the legacy default stream; the side stream first waits for
    // everything queued before, and the current stream for the capture's (empty) work after.
    auto side = c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device_.index());
    const auto current = c10::cuda::getCurrentCUDAStream(device_.index());
    at::cuda::CUDAEvent ready;
    ready.record(current);
    ready.block(side);
    {
      const c10::cuda::CUDAStreamGuard stream_guard(side);
      graph->capture_begin(pool_);
      try {
        work();
      } catch (...) {
        try {
          graph->capture_end();
        } catch (...) {
        }
        graph.reset();
        throw;
      }
      graph->capture_end();
    }
    at::cuda::CUDAEvent done;
    done.record(side);
    done.block(current);
  }

  void replay(StepPhaseGraph phase) override { graphs_[static_cast<size_t>(phase)]->replay(); }

  bool captured(StepPhaseGraph phase) const override { return graphs_[static_cast<size_t>(phase)] != nullptr; }

 private:
  c10::Device device_;
  at::cuda::MempoolId_t pool_;
  std::array<std::unique_ptr<at::cuda::CUDAGraph>, 3> graphs_;
};

}  // namespace

std::unique_ptr<StepGraphs> make_step_graphs(c10::Device device) {
  if (!device.is_cuda()) return nullptr;
  return std::make_unique<CudaStepGraphs>(device.has_index() ? device : c10::Device(c10::kCUDA, c10::cuda::current_device()));
}

}  // namespace stepscope
