#include "widgets/result_views.h"

#include "widgets/attention_charts_view.h"
#include "widgets/benchmark_view.h"
#include "widgets/collective_charts_view.h"
#include "widgets/ddp_charts_view.h"
#include "widgets/experiment_view.h"
#include "widgets/kernels_view.h"
#include "widgets/memory_view.h"
#include "widgets/operators_view.h"
#include "widgets/planner_view.h"
#include "widgets/experiment_group_view.h"
#include "widgets/sweep_view.h"

namespace stepscope::views {

namespace {

// The benchmark's tabs are both: what they show comes as its outcomes.
ResultTab bench(const QString& title, BenchResultsView* view) { return {title, view, view}; }
ResultTab tables(const QString& title, ResultView* view) { return {title, view, nullptr}; }

}  // namespace

std::vector<ResultTab> make_result_views(const ExperimentLookup& experiment) {
  return {bench(QObject::tr("Benchmark"), new BenchmarkView),
          bench(QObject::tr("Kernels"), new KernelsView),
          bench(QObject::tr("Operators"), new OperatorsView),
          bench(QObject::tr("Memory"), new MemoryView),
          bench(QObject::tr("Sweep"), new SweepView),
          tables(QObject::tr("Attention"), new ExperimentView(experiment("attention"), new AttentionChartsView)),
          tables(QObject::tr("Collectives"), new ExperimentView(experiment("collectives"), new CollectiveChartsView)),
          tables(QObject::tr("DDP"), new ExperimentView(experiment("ddp"), new DdpChartsView)),
          tables(QObject::tr("Precision"),
                 new ExperimentGroupView({new ExperimentView(experiment("precision.accumulate")),
                                          new ExperimentView(experiment("precision.autocast"))})),
          bench(QObject::tr("Planner"), new PlannerView(experiment("plan")))};
}

}  // namespace stepscope::views
