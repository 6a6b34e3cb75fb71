// The CPU range view of the Kernels tab from hand-built range timings: the tree of ranges with
// their shares, the step split into phases and each phase into the ranges directly inside it
// (nested ranges not counted twice), records without parents, and what the tab says before a
// run and where it has kernels.
#include <QAction>
#include <QTest>

#include "charts/range_phase_chart_view.h"
#include "charts/range_phase_data.h"
#include "models/range_time_model.h"
#include "widgets/kernels_view.h"
#include "widgets/result_table.h"

using namespace stepscope;
using profiling::RangeCpuTiming;

namespace {

RangeCpuTiming timing(const char* range, int64_t instances, int64_t total_ns, const char* parent) {
  return {range, instances, total_ns, static_cast<double>(total_ns) / static_cast<double>(instances), parent};
}

// Two measured steps of a two-layer model.
profiling::KernelProfile two_steps() {
  profiling::KernelProfile p;
  p.measured_steps = 2;
  p.cpu_ranges.push_back(timing("attention", 4, 500, "forward"));
  p.cpu_ranges.push_back(timing("backward", 2, 600, "step"));
  p.cpu_ranges.push_back(timing("forward", 2, 1200, "step"));
  p.cpu_ranges.push_back(timing("lm head", 2, 400, "forward"));
  p.cpu_ranges.push_back(timing("optimizer step", 2, 100, "step"));
  p.cpu_ranges.push_back(timing("softmax", 4, 200, "attention"));
  p.cpu_ranges.push_back(timing("step", 2, 2000, ""));
  return p;
}

const views::RangePhaseSegment* segment(const views::RangePhaseData& data, const char* range) {
  for (const auto& s : data.segments) {
    if (s.range == QLatin1String(range)) return &s;
  }
  return nullptr;
}

}  // namespace

class RangePhaseDataTest : public QObject {
  Q_OBJECT

 private slots:
  void rowsFollowTheTreeWithShares() {
    const auto data = views::build_range_phase_data(two_steps());
    QStringList order;
    for (const auto& row : data.rows) order << QString(row.depth, QLatin1Char('.')) + row.range;
    QCOMPARE(order, (QStringList{"step", ".forward", "..attention", "...softmax", "..lm head", ".backward",
                                 ".optimizer step"}));
    const auto& attention = data.rows[2];
    QCOMPARE(attention.phase, QStringLiteral("forward"));
    QCOMPARE(attention.ns_per_step, 250.0);
    QCOMPARE(attention.calls_per_step, 2.0);  // once per layer
    QCOMPARE(attention.ns_per_call, 125.0);
    QCOMPARE(attention.step_percent, 25.0);             // 250 of 1000 ns per step
    QCOMPARE(attention.phase_percent, 100.0 * 250 / 600);  // of the forward's 600
    QCOMPARE(data.rows[3].phase, QStringLiteral("forward"));  // softmax, inside attention
    QCOMPARE(data.rows[1].phase_percent, -1.0);            // a phase is not a share of itself
    QCOMPARE(data.rows[0].step_percent, 100.0);
  }

  void barsSplitTheStepAndEachPhase() {
    const auto data = views::build_range_phase_data(two_steps());
    QCOMPARE(data.bars, (QStringList{"step", "forward", "backward", "optimizer step"}));
    QCOMPARE(data.bar_ns_per_step, (std::vector<double>{1000, 600, 300, 50}));
    QCOMPARE(segment(data, "forward")->ns_per_step, (std::vector<double>{600, 0, 0, 0}));
    QCOMPARE(segment(data, "attention")->ns_per_step, (std::vector<double>{0, 250, 0, 0}));
    QCOMPARE(segment(data, "lm head")->ns_per_step, (std::vector<double>{0, 200, 0, 0}));
    QVERIFY(segment(data, "softmax") == nullptr);  // inside attention: counted there
    // The step's 1000 less its phases' 950; the forward's 600 less 450; the others have no ranges inside.
    QCOMPARE(segment(data, views::kOutsideRanges)->ns_per_step, (std::vector<double>{50, 150, 300, 50}));
    QCOMPARE(data.segments.back().range, QString::fromLatin1(views::kOutsideRanges));
    for (size_t bar = 0; bar < data.bars.size(); ++bar) {
      double sum = 0;
      for (const auto& s : data.segments) sum += s.ns_per_step[bar];
      QCOMPARE(sum, data.bar_ns_per_step[bar]);
    }
  }

  void recordsWithoutParentsStillSplitTheStep() {
    auto profile = two_steps();
    for (auto& r : profile.cpu_ranges) r.parent.clear();
    const auto data = views::build_range_phase_data(profile);
    QCOMPARE(data.bars, (QStringList{"step", "forward", "backward", "optimizer step"}));
    QCOMPARE(segment(data, "backward")->ns_per_step[0], 300.0);
    QCOMPARE(data.rows.size(), size_t{7});
  }

  void beforeARunTheTabSaysWhatToTick() {
    views::KernelsView view;
    QVERIFY(view.shows_cpu_ranges());
    QVERIFY2(view.note().contains(QStringLiteral("Tick Profile: kernels")), qPrintable(view.note()));
    QVERIFY2(view.note().contains(QStringLiteral("(F5)")), qPrintable(view.note()));
    QVERIFY(view.range_table().shows_empty_text());
    QVERIFY(view.range_table().empty_text().contains(QStringLiteral("Profile: kernels")));
    QVERIFY(view.kernel_table().shows_empty_text());
    QVERIFY(view.kernel_table().empty_text().contains(QStringLiteral("CUDA device")));
    QVERIFY(!view.range_phase_chart().data().note.isEmpty());
    QCOMPARE(view.file_actions().size(), qsizetype{1});
    QVERIFY(!view.file_actions().front()->isEnabled());  // no trace to export yet
  }

  void aLiveCpuProfileShowsItsRangesAndAGpuOneItsKernels() {
    views::KernelsView view;
    auto cpu = std::make_shared<profiling::KernelProfile>(two_steps());
    cpu->source_message = "no CUDA device: CPU range timings only";
    view.show_live_profile(cpu);
    QVERIFY(view.shows_cpu_ranges());
    QCOMPARE(view.range_time_model().rowCount(), 7);
    QVERIFY(!view.range_table().shows_empty_text());
    QVERIFY2(view.note().contains(QStringLiteral("attention takes 41.7% of the forward pass")), qPrintable(view.note()));

    auto gpu = std::make_shared<profiling::KernelProfile>(two_steps());
    gpu->gpu_activity_recorded = true;
    view.show_live_profile(gpu);
    QVERIFY(!view.shows_cpu_ranges());
  }
};

QTEST_MAIN(RangePhaseDataTest)
#include "test_range_phase_data.moc"
