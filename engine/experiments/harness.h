// Runs experiment cases: for each, observers attached, prepare, warm-up steps, device
// synchronised and peaks reset, measured steps, then the result; out of memory or a failing
// kernel becomes the case's status and the memory is released; cancel is honoured between
// steps (the steps measured are kept); progress goes to the sink in RunPhase order.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "experiments/experiment_case.h"
#include "core/progress.h"

namespace stepscope {

struct CasePosition {
  int index = 0;
  int count = 1;
};

// Throws ConfigError when the case cannot run here; anything else ends up in the case.
void run_case(ExperimentCase& experiment_case, CasePosition position, ProgressSink* progress,
              const CancelFlag* cancel);

// Every case in turn, until cancelled; `after_case` sees each as soon as it finished.
void run_cases(const std::vector<ExperimentCase*>& cases, ProgressSink* progress, const CancelFlag* cancel,
               const std::function<void(int index)>& after_case = {});

}  // namespace stepscope
