#include "widgets/result_views.h"

#include "widgets/attention_charts_view.h"
#include "widgets/benchmark_view.h"
#include "widgets/collective_charts_view.h"
#include "widgets/ddp_charts_view.h"
#include "widgets/experiment_view.h"
#include "widgets/kernels_view.h"
#include "widgets/memory_view.h"
#include "widgets/planner_view.h"
#include "widgets/experiment_group_view.h"
#include "widgets/sweep_view.h"

namespace stepscope::views {

std::vector<std::pair<QString, ResultView*>> make_result_views(const ExperimentLookup& experiment) {
  return {{QObject::tr("Benchmark"), new BenchmarkView},
          {QObject::tr("Kernels"), new KernelsView},
          {QObject::tr("Memory"), new MemoryView},
          {QObject::tr("Sweep"), new SweepView},
          {QObject::tr("Attention"), new ExperimentView(experiment("attention"), new AttentionChartsView)},
          {QObject::tr("Collectives"), new ExperimentView(experiment("collectives"), new CollectiveChartsView)},
          {QObject::tr("DDP"), new ExperimentView(experiment("ddp"), new DdpChartsView)},
          {QObject::tr("Precision"), new ExperimentGroupView({new ExperimentView(experiment("precision.accumulate")),
                                                              new ExperimentView(experiment("precision.autocast"))})},
          {QObject::tr("Planner"), new PlannerView(experiment("plan"))}};
}

}  // namespace stepscope::views
