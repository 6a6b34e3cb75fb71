// What the Kernels and Operators tabs say while a run's profile is still to come: on a GPU, that
// the measured steps run untraced and the profiler's own steps follow; on the CPU, when the
// profile shows; without the profiler, that the run has none (and how to ask next time), not how
// to ask for a profile the run already asked for. Each configuration in turn, and after the run.
#include <QTest>

#include "widgets/kernels_view.h"
#include "widgets/operators_view.h"
#include "widgets/outcome_selector.h"
#include "widgets/run_outcome.h"

using namespace stepscope;
using namespace stepscope::views;

namespace {

BenchConfig config(DeviceKind device, bool kernels, bool operators) {
  BenchConfig c;
  c.model.name = "small";
  c.batch = 4;
  c.context = 256;
  c.measured_steps = 10;
  c.device.kind = device;
  c.profile_kernels = kernels;
  c.profile_operators = operators;
  return c;
}

RunOutcome finished(const BenchConfig& c) {
  auto result = std::make_shared<BenchResult>();
  result->config = c;
  return RunOutcome{result, nullptr, nullptr};
}

// Back to "in progress (live)", as a user picks it while the next configuration runs.
void show_live(QWidget& view) { view.findChild<OutcomeSelector*>()->setCurrentIndex(0); }

}  // namespace

class ProfileTabsDuringARunTest : public QObject {
  Q_OBJECT

 private slots:
  void theKernelsTabSaysWhenEachConfigurationsKernelsShow() {
    KernelsView view;
    const std::vector<BenchConfig> run{config(DeviceKind::cuda, true, true), config(DeviceKind::cuda, false, false),
                                       config(DeviceKind::cpu, true, false)};
    view.clear();
    view.begin_run(run);
    QCOMPARE(view.note(), QStringLiteral("Running small ctx 256 b 4 fp32 train: its 10 measured step(s) run untraced, "
                                         "then the kernel profiler traces 10 step(s) of its own; their kernels show "
                                         "here as they are traced."));
    view.add_outcome(finished(run[0]));
    show_live(view);
    QCOMPARE(view.note(), QStringLiteral("Running small ctx 256 b 4 fp32 train without the kernel profiler. To see "
                                         "where its step's time goes, tick Profile: kernels for a next run."));
    view.add_outcome(finished(run[1]));
    show_live(view);
    QCOMPARE(view.note(),
             QStringLiteral("Running small ctx 256 b 4 fp32 train: the time of each range shows here from its first "
                            "measured step."));
    view.end_run();
    QVERIFY2(view.note().startsWith("Tick Profile: kernels"), qPrintable(view.note()));
  }

  void theOperatorsTabSaysWhenEachConfigurationsOperatorsShow() {
    OperatorsView view;
    const std::vector<BenchConfig> run{config(DeviceKind::cuda, false, true), config(DeviceKind::cpu, true, false),
                                       config(DeviceKind::cpu, false, true)};
    view.clear();
    view.begin_run(run);
    QVERIFY(view.shows_empty_state());
    QCOMPARE(view.empty_text(),
             QStringLiteral("Running small ctx 256 b 4 fp32 train: its 10 measured step(s) run untraced, then the "
                            "operator profiler traces 10 step(s) of its own; their operators show here when the "
                            "configuration finishes."));
    view.add_outcome(finished(run[0]));
    show_live(view);
    QCOMPARE(view.empty_text(), QStringLiteral("Running small ctx 256 b 4 fp32 train without the operator profiler. "
                                               "To see its operators, tick Profile: ops for a next run."));
    view.add_outcome(finished(run[1]));
    show_live(view);
    QCOMPARE(view.empty_text(),
             QStringLiteral("Running small ctx 256 b 4 fp32 train: its operators show here when the configuration "
                            "finishes."));
    view.end_run();
    QVERIFY2(view.empty_text().startsWith("No operators profiled yet."), qPrintable(view.empty_text()));
  }

  void aStoredRunShowsNoRunningNote() {
    KernelsView kernels;
    OperatorsView operators;
    kernels.clear();
    operators.clear();
    kernels.add_outcome(finished(config(DeviceKind::cuda, true, true)));
    operators.add_outcome(finished(config(DeviceKind::cuda, true, true)));
    QVERIFY2(!kernels.note().contains("Running"), qPrintable(kernels.note()));
    QVERIFY2(!operators.empty_text().contains("Running"), qPrintable(operators.empty_text()));
  }
};

QTEST_MAIN(ProfileTabsDuringARunTest)
#include "test_profile_tabs_during_a_run.moc"
