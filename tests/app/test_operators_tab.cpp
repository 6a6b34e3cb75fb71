// The Operators tab in the window: it follows Kernels (Ctrl+3) and says how to profile
// operators before any run; a real step benchmark run without the operator profiler reaches it
// and it says that configuration ran without it; hand-made profiles (short names, and a small
// GPT's names, shapes and kernels with every row open) show in a 1280 x 720 window with every
// number whole. With STEPSCOPE_SCREENSHOT_DIR set (under Xvfb with a window manager), the
// screen is saved there as operators-WxH-{gpu,cpu,none,layers}.png, decorations and all.
#include <QApplication>
#include <QHeaderView>
#include <QScreen>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

#include "experiments/bench/bench_inputs.h"
#include "gui/main_window.h"
#include "models/operator_tree_model.h"
#include "views/operator_fixtures.h"
#include "widgets/operators_view.h"

using namespace stepscope;
using Col = views::OperatorTreeModel::Column;

namespace {

views::RunOutcome outcome(std::shared_ptr<const profiling::OperatorProfile> profile) {
  auto result = std::make_shared<BenchResult>();
  result->config.model = model_preset("tiny");
  result->config.batch = 2;
  result->config.context = 256;
  result->operator_profile = std::move(profile);
  return views::RunOutcome{result, nullptr, nullptr};
}

// The whole screen as the window manager shows it, when asked for.
void save_screen(const QString& name) {
  const QString dir = qEnvironmentVariable("STEPSCOPE_SCREENSHOT_DIR");
  if (dir.isEmpty()) return;
  QScreen* screen = QGuiApplication::primaryScreen();
  const QSize size = screen->size();
  const QString path = QStringLiteral("%1/operators-%2x%3-%4.png").arg(dir).arg(size.width()).arg(size.height()).arg(name);
  QVERIFY2(screen->grabWindow(0).save(path), qPrintable(path));
}

}  // namespace

class OperatorsTabTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void followsKernelsAndSaysHowToProfileOperators() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    auto* tabs = window.findChild<QTabWidget*>("resultTabs");
    QCOMPARE(tabs->tabText(1), QStringLiteral("Kernels"));
    QCOMPARE(tabs->tabText(2), QStringLiteral("Operators"));
    auto* operators = qobject_cast<views::OperatorsView*>(tabs->widget(2));
    QVERIFY(operators != nullptr);
    QVERIFY(operators->shows_empty_state());
    QVERIFY2(operators->empty_text().contains("Profile: ops"), qPrintable(operators->empty_text()));
  }

  void aRunWithoutTheOperatorProfilerSaysSo() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    window.set_headless(true);
    auto* operators = window.findChild<views::OperatorsView*>();
    schema::InputValues values(bench_inputs());
    values.set("model", "tiny");
    values.set("context", "16");
    values.set("batch", "1");
    values.set("mode", "forward");
    values.set("warmup", "0");
    values.set("steps", "1");
    QSignalSpy finished(&window, &gui::MainWindow::run_finished);
    QString error;
    QVERIFY2(window.run(values, &error), qPrintable(error));
    QVERIFY(finished.wait(120000));
    QCOMPARE(window.outcomes().size(), size_t{1});
    QVERIFY(window.outcomes().front().result->operator_profile == nullptr);
    QVERIFY(operators->shows_empty_state());
    QVERIFY2(operators->empty_text().contains("ran without the operator profiler"), qPrintable(operators->empty_text()));
  }

  void showsAProfileWithEveryNumberWhole_data() {
    QTest::addColumn<QString>("kind");
    QTest::newRow("gpu") << QStringLiteral("gpu");
    QTest::newRow("cpu") << QStringLiteral("cpu");
    QTest::newRow("none") << QStringLiteral("none");
    // Real names, shapes and kernels, every row open.
    QTest::newRow("layers") << QStringLiteral("layers");
  }
  void showsAProfileWithEveryNumberWhole() {
    QFETCH(QString, kind);
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    // On a real screen the window takes its first session's size; offscreen, a laptop's.
    if (qEnvironmentVariable("STEPSCOPE_SCREENSHOT_DIR").isEmpty()) window.resize(1280, 672);
    auto* tabs = window.findChild<QTabWidget*>("resultTabs");
    auto* operators = qobject_cast<views::OperatorsView*>(tabs->widget(2));
    tabs->setCurrentIndex(2);
    std::shared_ptr<const profiling::OperatorProfile> profile;
    if (kind == "gpu") profile = fixtures::shared(fixtures::gpu_profile());
    if (kind == "cpu") profile = fixtures::shared(fixtures::cpu_profile());
    if (kind == "layers") profile = fixtures::shared(fixtures::layered_gpu_profile());
    operators->add_outcome(outcome(profile));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTest::qWait(500);  // the window manager's frame, then the tab laid out in it
    QCOMPARE(operators->shows_empty_state(), kind == "none");
    if (kind == "layers") {
      for (auto* button : operators->findChildren<QToolButton*>()) {
        if (button->text() == QStringLiteral("Expand all")) button->click();
      }
      QTest::qWait(200);
    }
    QTreeView& tree = operators->tree_view();
    QStringList cut;
    for (int c = Col::Calls; c < Col::ColumnCount && kind != "none"; ++c) {
      if (tree.isColumnHidden(c)) continue;
      const int content = static_cast<const QAbstractItemView&>(tree).sizeHintForColumn(c);
      if (tree.columnWidth(c) < content) cut << tree.model()->headerData(c, Qt::Horizontal).toString();
    }
    QVERIFY2(cut.isEmpty(), qPrintable("numbers cut in: " + cut.join(", ")));
    save_screen(kind);
  }
};

QTEST_MAIN(OperatorsTabTest)
#include "test_operators_tab.moc"
