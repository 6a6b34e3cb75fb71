// The window's keys and settings: Ctrl+1...9 and 0 bring tabs forward, F5 runs the current tab's
// experiment (the run panel's on the Benchmark tab), a second run is queued behind it in the
// status bar, Esc takes the queued one out of the line and then cancels the run; Return in a
// field runs; the CPU threads setting reaches LibTorch and reads right in the status bar.
#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "gui/main_window.h"
#include "runners/cpu_threads.h"
#include "widgets/experiment_form.h"
#include "widgets/experiment_view.h"
#include "widgets/input_form.h"
#include "widgets/run_panel.h"

using namespace stepscope;

namespace {

QString cores_text() {
  const int cores = cpu_core_count();
  return cores == 1 ? QStringLiteral("1 core") : QStringLiteral("%1 cores").arg(cores);
}

void show_active(QWidget& window) {
  window.show();
  QApplication::setActiveWindow(&window);
  QVERIFY(QTest::qWaitForWindowActive(&window));
}

}  // namespace

class WindowKeysTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void ctrlDigitsSwitchTabs() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    show_active(window);
    auto* tabs = window.findChild<QTabWidget*>("resultTabs");
    QTest::keyClick(&window, Qt::Key_3, Qt::ControlModifier);
    QCOMPARE(tabs->currentIndex(), 2);
    QCOMPARE(tabs->tabText(2), QStringLiteral("Operators"));
    QTest::keyClick(&window, Qt::Key_6, Qt::ControlModifier);
    QCOMPARE(tabs->currentIndex(), 5);
    QCOMPARE(tabs->tabText(5), QStringLiteral("Attention"));
    // The tenth tab on the tenth digit key.
    QTest::keyClick(&window, Qt::Key_0, Qt::ControlModifier);
    QCOMPARE(tabs->currentIndex(), 9);
    QCOMPARE(tabs->tabText(9), QStringLiteral("Planner"));
    QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
    QCOMPARE(tabs->currentIndex(), 0);
  }

  void f5RunsASecondRunQueuesAndEscCancelsBoth() {
    QTemporaryDir dir;
    qputenv("STEPSCOPE_RUN_REGISTRY", dir.filePath("registry").toUtf8());
    gui::MainWindow window(dir.filePath("history.sqlite"));
    show_active(window);
    auto* tabs = window.findChild<QTabWidget*>("resultTabs");
    tabs->setCurrentIndex(0);
    QTest::keyClick(&window, Qt::Key_F5);
    QVERIFY(window.is_running());
    // The Attention tab's Run waits behind the benchmark, said in the status bar.
    QTest::keyClick(&window, Qt::Key_6, Qt::ControlModifier);
    QTest::keyClick(&window, Qt::Key_R, Qt::ControlModifier);
    auto* queue = window.findChild<QLabel*>("queueStatus");
    QVERIFY2(queue->text().contains("Queued behind Benchmark tiny"), qPrintable(queue->text()));
    QVERIFY2(queue->text().contains("Attention"), qPrintable(queue->text()));
    auto* attention = qobject_cast<views::ExperimentView*>(tabs->currentWidget());
    QVERIFY(attention);
    QVERIFY2(attention->status_text().contains("Queued behind: Benchmark tiny"), qPrintable(attention->status_text()));
    QCOMPARE(attention->findChild<QPushButton*>("run")->toolTip(), QStringLiteral("Cancel (Esc)"));
    // Esc: the queued run first, then the run in progress.
    QTest::keyClick(&window, Qt::Key_Escape);
    QVERIFY2(queue->text().isEmpty(), qPrintable(queue->text()));
    QVERIFY(!attention->is_running());
    QVERIFY(window.is_running());
    QTest::keyClick(&window, Qt::Key_Escape);
    QTRY_VERIFY_WITH_TIMEOUT(!window.is_running(), 120000);
    QVERIFY(!attention->is_running());
    QTest::qWait(100);
    QVERIFY(!window.run_gate().is_busy());  // the cancelled Attention run never started
    qunsetenv("STEPSCOPE_RUN_REGISTRY");
  }

  void returnInAFieldRuns() {
    QTemporaryDir dir;
    qputenv("STEPSCOPE_RUN_REGISTRY", dir.filePath("registry").toUtf8());
    gui::MainWindow window(dir.filePath("history.sqlite"));
    show_active(window);
    auto* steps = qobject_cast<QLineEdit*>(window.run_panel().form().form()->field("steps"));
    QVERIFY(steps);
    QVERIFY2(window.run_panel().findChild<QPushButton*>("run")->toolTip().contains("F5"),
             qPrintable(window.run_panel().findChild<QPushButton*>("run")->toolTip()));
    steps->setFocus();
    QTest::keyClick(steps, Qt::Key_Return);
    QVERIFY(window.is_running());
    window.cancel_run();
    QTRY_VERIFY_WITH_TIMEOUT(!window.is_running(), 120000);
    qunsetenv("STEPSCOPE_RUN_REGISTRY");
  }

  void cpuThreadsReachLibTorchAndTheStatusBar() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    auto* label = window.findChild<QLabel*>("threadsStatus");
    QVERIFY(label);
    window.set_cpu_threads(1, false);
    QCOMPARE(cpu_threads(), 1);
    QCOMPARE(label->text(), "CPU: 1 thread of " + cores_text());
    window.set_cpu_threads(3, false);
    QCOMPARE(cpu_threads(), 3);
    QCOMPARE(label->text(), "CPU: 3 threads of " + cores_text());
    // The default: all cores but one, at least one.
    QCOMPARE(default_cpu_threads(), std::max(1, cpu_core_count() - 1));
  }
};

QTEST_MAIN(WindowKeysTest)
#include "test_window_keys.moc"
