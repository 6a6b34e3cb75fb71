#include "compat/operator_callbacks.h"

#include <atomic>
#include <memory>
#include <stdexcept>

#include <ATen/record_function.h>

namespace stepscope::compat {

namespace {

// RecordFunction takes plain function pointers: the listener is reached through a global.
std::atomic<OperatorListener*> g_listener{nullptr};

// Reused by every call on a thread, so that shapes allocate only while the buffer grows.
thread_local InputShapes t_shapes;

const InputShapes& shapes_of(const at::RecordFunction& fn) {
  const auto inputs = fn.inputs();
  t_shapes.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto& shape = t_shapes[i];
    shape.clear();
    const c10::IValue& input = inputs[i];
    if (!input.isTensor()) continue;  // key_averages prints non-tensor inputs as []
    const at::Tensor& tensor = input.toTensor();
    if (!tensor.defined() || tensor.is_nested()) continue;  // a nested tensor has no sizes()
    const auto sizes = tensor.sizes();
    shape.assign(sizes.begin(), sizes.end());
  }
  return t_shapes;
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  OperatorListener* listener = g_listener.load(std::memory_order_acquire);
  // Async records (RPC futures) may end on another thread: not an operator call to nest.
  if (listener == nullptr || fn.isAsync()) return nullptr;
  listener->operator_begin(fn.name(), fn.needsInputs() ? &shapes_of(fn) : nullptr);
  return nullptr;  // no context: no allocation per call
}

void on_end(const at::RecordFunction& fn, at::ObserverContext* /*context*/) {
  OperatorListener* listener = g_listener.load(std::memory_order_acquire);
  if (listener == nullptr || fn.isAsync()) return;
  listener->operator_end(fn.name());
}

}  // namespace

OperatorCallbacks::OperatorCallbacks(OperatorListener& listener, bool input_shapes) {
  OperatorListener* none = nullptr;
  if (!g_listener.compare_exchange_strong(none, &listener)) {
    throw std::logic_error("operator callbacks are already installed in this process");
  }
  handle_ = at::addGlobalCallback(at::RecordFunctionCallback(&on_start, &on_end)
                                      .needsInputs(input_shapes)
                                      .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
}

OperatorCallbacks::~OperatorCallbacks() {
  at::removeCallback(handle_);
  // Calls that began before the removal still end through on_end, which then finds no listener.
  g_listener.store(nullptr, std::memory_order_release);
}

}  // namespace stepscope::compat
