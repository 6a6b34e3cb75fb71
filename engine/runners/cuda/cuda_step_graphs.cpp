// at::cuda::CUDAGraph per phase, captured on a side stream from one private memory pool (as
// torch.cuda.make_graphed_callables does for a forward and its backward).
#include "runners/step_graphs.h"

#include <array>
#include <stdexcept>
#include <vector>

#include <cuda_runtime_api.h>

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

namespace stepscope {

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// Timing events recorded by graph nodes (cudaEventRecordExternal), destroyed with the graphs.
class GraphMarks {
 public:
  GraphMarks() = default;
  GraphMarks(const GraphMarks&) = delete;
  GraphMarks& operator=(const GraphMarks&) = delete;
  ~GraphMarks() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);  // nothing to do about a failure here
  }
  int record(cudaStream_t capturing) {
    cudaEvent_t event = nullptr;
    check(cudaEventCreate(&event), "cudaEventCreate (a graph's timing point)");
    events_.push_back(event);
    check(cudaEventRecordWithFlags(event, capturing, cudaEventRecordExternal), "cudaEventRecordWithFlags (external)");
    return static_cast<int>(events_.size()) - 1;
  }
  double elapsed_ms(int from, int to) const {
    const auto n = static_cast<int>(events_.size());
    if (from < 0 || to < 0 || from >= n || to >= n) throw std::out_of_range("no such graph timing point");
    float ms = 0;
    if (cudaEventElapsedTime(&ms, events_[static_cast<size_t>(from)], events_[static_cast<size_t>(to)]) != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: the caller reports the time as unknown
      return -1;
    }
    return ms;
  }

 private:
  std::vector<cudaEvent_t> events_;
};

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

  int mark() override { return marks_.record(c10::cuda::getCurrentCUDAStream(device_.index()).stream()); }
  double elapsed_ms(int from, int to) const override { return marks_.elapsed_ms(from, to); }

 private:
  c10::Device device_;
  GraphMarks marks_;  // before the graphs: destroyed after them
  at::cuda::MempoolId_t pool_;
  std::array<std::unique_ptr<at::cuda::CUDAGraph>, 3> graphs_;
};

}  // namespace

std::unique_ptr<StepGraphs> make_step_graphs(c10::Device device) {
  if (!device.is_cuda()) return nullptr;
  return std::make_unique<CudaStepGraphs>(device.has_index() ? device : c10::Device(c10::kCUDA, c10::cuda::current_device()));
}

}  // namespace stepscope
