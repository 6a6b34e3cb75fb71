// The run panel in the main window: a sweep typed into its form runs from its Run button, is
// kept in the history with the inputs as typed, reopens from there with them in the form, and
// runs again from them. The application's command line sets the same form.
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "experiments/bench/bench_inputs.h"
#include "gui/gui_options.h"
#include "gui/main_window.h"
#include "widgets/input_form.h"
#include "widgets/run_panel.h"

using namespace stepscope;

namespace {

void type(gui::MainWindow& window, const char* key, const char* text) {
  auto* line = window.run_panel().form().form()->findChild<QLineEdit*>(key);
  QVERIFY2(line != nullptr, key);
  line->setText(QString::fromLatin1(text));
}

}  // namespace

class BenchmarkPanelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aSweepRunsIsKeptWithItsInputsAndReopensWithThem() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    type(window, "context", "8,16");
    type(window, "batch", "1");
    type(window, "warmup", "0");
    type(window, "steps", "1");
    QCOMPARE(window.run_panel().configs().size(), size_t{2});
    const schema::InputValues asked = window.run_panel().form().form()->values();
    QSignalSpy finished(&window, &gui::MainWindow::run_finished);
    QTest::mouseClick(window.run_panel().findChild<QPushButton*>("run"), Qt::LeftButton);
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.first().first().toBool(), true);
    QCOMPARE(window.outcomes().size(), size_t{2});
    QCOMPARE(window.outcomes().back().result->config.context, int64_t{16});

    // Another form, then the run from the history: its inputs as they were typed.
    type(window, "context", "32");
    QString error;
    QVERIFY2(window.open_run(0, &error), qPrintable(error));
    QCOMPARE(window.run_panel().form().form()->values(), asked);
    QCOMPARE(window.outcomes().size(), size_t{2});

    // And it runs again from them.
    finished.clear();
    QTest::mouseClick(window.run_panel().findChild<QPushButton*>("run"), Qt::LeftButton);
    QVERIFY(finished.wait(120000));
    QCOMPARE(window.outcomes().size(), size_t{2});
    QCOMPARE(window.history().runs().size(), size_t{2});
  }

  void theCommandLineSetsThePanel() {
    const gui::GuiOptions options =
        gui::parse_gui_options({"--model", "mini", "--context", "32,64", "--mode", "forward", "--steps", "3"});
    QVERIFY(options.bench.has_value());
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    window.run_panel().set_values(*options.bench);
    const auto configs = window.run_panel().configs();
    QCOMPARE(configs.size(), size_t{2});
    QCOMPARE(QString::fromStdString(configs.front().model.name), QStringLiteral("mini"));
    QCOMPARE(configs.back().context, int64_t{64});
    QCOMPARE(configs.front().measured_steps, 3);
    QCOMPARE(window.run_panel().form().form()->values(), *options.bench);
  }

  // `stepscope FILE` (a file manager's Exec=stepscope %f): plain words are files to open, also
  // among options and their values; --version stands alone.
  void plainArgumentsAreFilesToOpen() {
    const gui::GuiOptions options = gui::parse_gui_options({"a.stepscope.json", "--model", "mini", "--quit", "b.pickle"});
    QCOMPARE(options.open_files, (std::vector<std::string>{"a.stepscope.json", "b.pickle"}));
    QVERIFY(options.quit);
    QVERIFY(options.bench.has_value());
    QCOMPARE(QString::fromStdString(options.bench->text("model")), QStringLiteral("mini"));
    QCOMPARE(gui::parse_gui_options({"--model=mini", "run.json"}).open_files, std::vector<std::string>{"run.json"});
    const auto refused = [](const std::vector<std::string>& args, const char* why) {
      try {
        gui::parse_gui_options(args);
      } catch (const std::exception& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QString::fromUtf8(why)), e.what());
        return;
      }
      QFAIL("accepted");
    };
    refused({"a,b.json"}, "a file name with a comma");
    refused({"a.json", "--open-file", "b.json"}, "not both");
    QVERIFY(gui::parse_gui_options({"--version"}).version);
    QVERIFY(gui::parse_gui_options({}).open_files.empty());
  }
};

QTEST_MAIN(BenchmarkPanelTest)
#include "test_benchmark_panel.moc"
