// The GUI thread keeps up while a profiled run reports live: no event-loop stall over 50 ms.
// A 2 ms timer on the GUI thread measures the longest gap between its ticks during the run.
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>

#include "gui/main_window.h"
#include "experiments/bench/bench_inputs.h"
#include "widgets/run_panel.h"
#include "experiments/bench/bench_sweep.h"

using namespace stepscope;

class GuiResponsivenessTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }  // not the user's window layout

  void noStallOverFiftyMillisecondsDuringAProfiledRun() {
    gui::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    SweepSpec spec;
    spec.models = {model_preset("tiny")};
    spec.contexts = {64};
    spec.modes = {StepMode::forward, StepMode::train};
    spec.base.warmup_steps = 2;
    spec.base.measured_steps = 20;
    spec.base.profile_kernels = true;
    spec.base.profile_memory = true;
    QSignalSpy finished(&window, &gui::MainWindow::run_finished);

    QElapsedTimer clock;
    qint64 last = 0, longest = 0, ticks = 0, longest_at = 0, finished_at = 0;
    QObject::connect(&window, &gui::MainWindow::run_finished, [&] { finished_at = clock.elapsed(); });
    QTimer probe;
    probe.setInterval(2);
    QObject::connect(&probe, &QTimer::timeout, [&] {
      const qint64 now = clock.elapsed();
      if (now - last > longest) { longest = now - last; longest_at = now; }
      last = now;
      ++ticks;
    });
    clock.start();
    probe.start();
    QVERIFY(window.run(bench_values(spec)));
    QVERIFY(finished.wait(300000));
    probe.stop();
    // Where the stall was says which work caused it: a run's start, a configuration's end, its last.
    qInfo("the longest gap ended %lld ms into the run; run_finished came at %lld ms", static_cast<long long>(longest_at),
          static_cast<long long>(finished_at));
    qInfo("run of %lld ms: %lld timer ticks, longest gap between them %lld ms", static_cast<long long>(clock.elapsed()),
          static_cast<long long>(ticks), static_cast<long long>(longest));
    QCOMPARE(finished.first().first().toBool(), true);
    QCOMPARE(window.outcomes().size(), size_t{2});
    QVERIFY2(longest <= 50, qPrintable(QStringLiteral("the event loop stalled for %1 ms").arg(longest)));
  }

  void cancelStopsWithinAStepAndKeepsWhatWasMeasured() {
    gui::MainWindow window;
    BenchConfig c;
    c.model = model_preset("tiny");
    c.context = 64;
    c.warmup_steps = 1;
    c.measured_steps = 10000;  // far longer than the test waits
    QSignalSpy finished(&window, &gui::MainWindow::run_finished);
    QVERIFY(window.run(bench_values(c)));
    QTest::qWait(1500);  // a few measured steps of about 0.25 s each
    QElapsedTimer clock;
    clock.start();
    window.run_panel().cancel_requested();
    QVERIFY(finished.wait(10000));
    qInfo("cancelled run ended %lld ms after Cancel", static_cast<long long>(clock.elapsed()));
    QCOMPARE(finished.first().first().toBool(), false);  // not complete
    QCOMPARE(window.outcomes().size(), size_t{1});
    const BenchResult& r = *window.outcomes().front().result;
    QCOMPARE(r.status, RunStatus::cancelled);
    QVERIFY2(!r.steps.empty() && r.steps.size() < 10000, qPrintable(QString::number(r.steps.size())));
    QVERIFY(r.total.count == static_cast<int>(r.steps.size()));
  }
};

QTEST_MAIN(GuiResponsivenessTest)
#include "test_gui_responsiveness.moc"
