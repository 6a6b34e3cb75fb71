// Two runs side by side: matching by configuration, kernel name and peak label; differences
// and ratios against hand-computed values; what one run lacks shows "-".
#include <QAbstractItemModelTester>
#include <QTest>

#include "experiments/bench/bench_schema.h"
#include "model_fixtures.h"
#include "models/comparison_model.h"
#include "models/format.h"

using namespace stepscope;
using namespace stepscope::views;

namespace {

BenchResult result(const char* model, int64_t context, StepMode mode, double step_ms, int64_t peak) {
  BenchResult r;
  r.config.model = model_preset(model);
  r.config.context = context;
  r.config.mode = mode;
  r.total = fixtures::phase_stats(step_ms, 1.0);
  r.forward = fixtures::phase_stats(step_ms / 2, 0.5);
  r.tokens_per_second = 1000.0 / step_ms;
  r.peak_memory_bytes = peak;
  return r;
}

const ComparisonRow* find(const std::vector<ComparisonRow>& rows, const QString& item, const QString& measure) {
  for (const auto& r : rows) {
    if (r.item == item && r.measure == measure) return &r;
  }
  return nullptr;
}

}  // namespace

class ComparisonModelTest : public QObject {
  Q_OBJECT

 private slots:
  void benchmarksMatchByConfiguration() {
    const std::vector<BenchResult> a{result("tiny", 64, StepMode::forward, 10.0, 1000),
                                     result("tiny", 128, StepMode::forward, 20.0, 2000)};
    std::vector<BenchResult> b{result("tiny", 128, StepMode::forward, 15.0, 2048),
                               result("mini", 64, StepMode::forward, 30.0, 4000)};
    b.front().message = "faster";
    const auto rows = compare_tables(bench_schema().table(a), bench_schema().table(b));
    const auto* step = find(rows, "tiny, Context 128, Batch 4, fp32, forward, naive, eager", "Step");
    QVERIFY(step);
    QCOMPARE(*step->a, 20.0);
    QCOMPARE(*step->b, 15.0);
    const auto* only_a = find(rows, "tiny, Context 64, Batch 4, fp32, forward, naive, eager", "Step");
    QVERIFY(only_a && only_a->a && !only_a->b);
    QCOMPARE(only_a->note, QStringLiteral("B has no such configuration"));  // runs that share some pair no others
    const auto* only_b = find(rows, "mini, Context 64, Batch 4, fp32, forward, naive, eager", "Peak memory");
    QVERIFY(only_b && !only_b->a && *only_b->b == 4000.0);
    QVERIFY2(!find(rows, "tiny, Context 128, Batch 4, fp32, forward, naive, eager", "Backward"), "a phase neither run has");

    ComparisonModel model;
    QAbstractItemModelTester tester(&model);
    model.set_rows(rows);
    int row = -1;
    for (int i = 0; i < model.rowCount(); ++i) {
      if (fixtures::text(model, i, 0) == "tiny, Context 128, Batch 4, fp32, forward, naive, eager" && fixtures::text(model, i, 1) == "Step") row = i;
    }
    QVERIFY(row >= 0);
    QCOMPARE(fixtures::text(model, row, ComparisonModel::Difference), QStringLiteral("-5.00 ms"));
    QCOMPARE(fixtures::text(model, row, ComparisonModel::Ratio), QStringLiteral("0.750"));
    QCOMPARE(fixtures::exact(model, row, ComparisonModel::Ratio).toDouble(), 0.75);
  }

  void kernelsMatchByNameAndMissingSidesShowDashes() {
    profiling::KernelProfile a, b;
    profiling::RangeKernelSummary wa, wb;
    wa.range = wb.range = "measured window";
    profiling::KernelStats gemm;
    gemm.name = "void gemm<float>(float*)";
    gemm.short_name = "gemm";
    gemm.total_ns = 4000;
    gemm.instances_per_step = 2;
    profiling::KernelStats softmax = gemm;
    softmax.name = softmax.short_name = "softmax_warp_forward";
    softmax.total_ns = 100;
    wa.kernels = {gemm, softmax};
    gemm.total_ns = 5000;
    wb.kernels = {gemm};
    a.ranges = {wa};
    b.ranges = {wb};
    const auto rows = compare_kernels(&a, &b, "measured window");
    const auto* g = find(rows, "gemm", "total time");
    QVERIFY(g && *g->a == 4000 && *g->b == 5000);
    ComparisonModel model;
    model.set_rows(rows);
    int softmax_row = -1;
    for (int i = 0; i < model.rowCount(); ++i) {
      if (fixtures::text(model, i, 0) == "softmax_warp_forward" && fixtures::text(model, i, 1) == "total time") softmax_row = i;
    }
    QVERIFY(softmax_row >= 0);
    QCOMPARE(fixtures::text(model, softmax_row, ComparisonModel::B), missing_text());
    QCOMPARE(fixtures::text(model, softmax_row, ComparisonModel::Ratio), missing_text());
    QCOMPARE(fixtures::text(model, softmax_row, ComparisonModel::Note), QStringLiteral("B ran no such kernel"));
    QVERIFY(compare_kernels(nullptr, nullptr, "measured window").empty());
    // Neither run profiled: one row says why, rather than an empty table.
    const auto why = compare_kernels(nullptr, nullptr, "measured window", {"A ran without the kernel profiler", {}});
    QCOMPARE(why.size(), size_t{1});
    QCOMPARE(why.front().note, QStringLiteral("A ran without the kernel profiler"));
  }

  void memoryPeaksMatchByLabelWithTheirCategories() {
    profiling::MemoryTimeline a, b;
    profiling::MemoryPeak forward;
    forward.label = "forward";
    forward.allocated_bytes = 300;
    forward.bytes_by_category[profiling::category_index(profiling::MemoryCategory::parameter)] = 100;
    forward.bytes_by_category[profiling::category_index(profiling::MemoryCategory::activation)] = 200;
    a.peaks = {forward};
    forward.allocated_bytes = 250;
    forward.bytes_by_category[profiling::category_index(profiling::MemoryCategory::activation)] = 150;
    b.peaks = {forward};
    const auto rows = compare_memory_peaks(&a, &b);
    QCOMPARE(rows.size(), size_t{3});  // allocated, parameter, activation: categories both lack are left out
    const auto* act = find(rows, "forward", "activation");
    QVERIFY(act && *act->a == 200 && *act->b == 150);
  }
};

QTEST_MAIN(ComparisonModelTest)
#include "test_comparison_model.moc"
