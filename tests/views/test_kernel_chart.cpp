// The kernel-category chart: which bars a profile gives (phases, whole step), the shares per
// category in the fixed colours, and a widget that survives empty data and updates.
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QHorizontalStackedBarSeries>
#include <QTest>
#include <QValueAxis>

#include "charts/chart_colors.h"
#include "charts/kernel_chart_view.h"

using namespace stepscope::views;
using namespace stepscope::profiling;
using K = KernelCategory;

namespace {

RangeKernelSummary range(const char* name, int64_t gpu_ns, std::vector<CategoryShare> shares) {
  RangeKernelSummary r;
  r.range = name;
  r.gpu_time_ns = gpu_ns;
  r.categories = std::move(shares);
  return r;
}

// Shares in percent of each range's GPU time, as the summary builder writes them.
KernelProfile training_profile() {
  KernelProfile p;
  p.gpu_activity_recorded = true;
  p.ranges = {range("measured window", 1000, {{K::matrix_multiply, 600, 30, 60.0}, {K::optimizer, 250, 8, 25.0},
                                              {K::elementwise, 150, 20, 15.0}}),
              range("forward", 300, {{K::matrix_multiply, 240, 10, 80.0}, {K::elementwise, 60, 8, 20.0}}),
              range("loss", 50, {{K::reduction, 50, 1, 100.0}}),  // nested ranges are not bars
              range("backward", 450, {{K::matrix_multiply, 360, 20, 80.0}, {K::elementwise, 90, 12, 20.0}}),
              range("optimizer step", 250, {{K::optimizer, 250, 8, 100.0}})};
  return p;
}

QHorizontalStackedBarSeries* bar_series(KernelChartView& view) {
  return qobject_cast<QHorizontalStackedBarSeries*>(view.chart()->series().value(0));
}

}  // namespace

class KernelChartTest : public QObject {
  Q_OBJECT
 private slots:
  void onePhaseBarEachThenTheWholeStep() {
    const KernelChartData d = build_kernel_chart_data(training_profile());
    QCOMPARE(d.bars, (QStringList{"forward", "backward", "optimizer step", "whole step"}));
    QCOMPARE(d.gpu_time_ns, (std::vector<int64_t>{300, 450, 250, 1000}));
    QVERIFY(d.note.isEmpty());
  }

  void sharesPerCategoryInTheFixedOrderUsedOnly() {
    const KernelChartData d = build_kernel_chart_data(training_profile());
    // matrix multiply, elementwise, optimizer: in all_kernel_categories() order; reduction
    // only appears in the nested "loss" range, which is not a bar.
    QCOMPARE(d.categories.size(), size_t{3});
    QCOMPARE(d.categories[0].category, K::matrix_multiply);
    QCOMPARE(d.categories[1].category, K::elementwise);
    QCOMPARE(d.categories[2].category, K::optimizer);
    QCOMPARE(d.categories[0].percent, (std::vector<double>{80, 80, 0, 60}));
    QCOMPARE(d.categories[1].percent, (std::vector<double>{20, 20, 0, 15}));
    QCOMPARE(d.categories[2].percent, (std::vector<double>{0, 0, 100, 25}));
    QCOMPARE(d.categories[2].total_ns, (std::vector<int64_t>{0, 0, 250, 250}));
    // Every bar adds up to 100 %.
    for (size_t bar = 0; bar < 4; ++bar) {
      double sum = 0;
      for (const auto& c : d.categories) sum += c.percent[bar];
      QCOMPARE(sum, 100.0);
    }
  }

  void aSinglePhaseHasNoWholeStepBar() {
    KernelProfile p = training_profile();
    p.ranges.erase(p.ranges.begin() + 3, p.ranges.end());  // forward only (an inference run)
    QCOMPARE(build_kernel_chart_data(p).bars, QStringList{"forward"});
  }

  void noPhaseRangesShowsTheWholeStepAlone() {
    KernelProfile p = training_profile();
    p.ranges.resize(1);
    const KernelChartData d = build_kernel_chart_data(p);
    QCOMPARE(d.bars, QStringList{"whole step"});
    QCOMPARE(d.categories.size(), size_t{3});
  }

  void phasesWithoutGpuTimeAreLeftOut() {
    KernelProfile p = training_profile();
    p.ranges[4].gpu_time_ns = 0;  // the optimizer step ran on the CPU, say
    p.ranges[4].categories.clear();
    QCOMPARE(build_kernel_chart_data(p).bars, (QStringList{"forward", "backward", "whole step"}));
  }

  void emptyProfileExplainsWhy() {
    KernelProfile p;
    p.source_message = "CUPTI is not available";
    const KernelChartData d = build_kernel_chart_data(p);
    QVERIFY(d.bars.isEmpty() && d.categories.empty());
    QCOMPARE(d.note, QStringLiteral("No GPU kernels recorded: CUPTI is not available"));
    QCOMPARE(build_kernel_chart_data(KernelProfile{}).note, QStringLiteral("No GPU kernels recorded"));
  }

  void viewShowsBarsTopDownInCategoryColours() {
    KernelChartView view;
    view.resize(700, 400);
    view.setProfile(training_profile());
    auto* series = bar_series(view);
    QCOMPARE(series->count(), 3);
    QCOMPARE(series->barSets()[0]->label(), QStringLiteral("matrix multiply"));
    QCOMPARE(series->barSets()[0]->color(), kernel_category_color(K::matrix_multiply));
    QCOMPARE(series->barSets()[2]->color(), kernel_category_color(K::optimizer));
    // The axis lists categories bottom-up: reversed, so forward reads at the top.
    auto* axis = qobject_cast<QBarCategoryAxis*>(view.chart()->axes(Qt::Vertical).value(0));
    QCOMPARE(axis->categories(), (QStringList{"whole step", "optimizer step", "backward", "forward"}));
    QCOMPARE(series->barSets()[0]->at(3), 80.0);  // forward's matrix multiply
    QCOMPARE(series->barSets()[0]->at(0), 60.0);  // whole step's
    auto* share = qobject_cast<QValueAxis*>(view.chart()->axes(Qt::Horizontal).value(0));
    QCOMPARE(share->titleText(), QStringLiteral("share of GPU time (%)"));
    QCOMPARE(share->max(), 100.0);
    QVERIFY(!view.grab().isNull());
  }

  void updatesReuseTheSeriesAndSurviveEmptyData() {
    KernelChartView view;
    view.resize(700, 400);
    for (int i = 0; i < 5; ++i) {
      view.setProfile(i % 2 ? KernelProfile{} : training_profile());
      QCOMPARE(view.chart()->series().size(), qsizetype{1});
      QCOMPARE(bar_series(view)->count(), i % 2 ? 0 : 3);
      QCOMPARE(view.chart()->axes().size(), qsizetype{2});
      QVERIFY(!view.grab().isNull());
    }
  }
};

QTEST_MAIN(KernelChartTest)
#include "test_kernel_chart.moc"
