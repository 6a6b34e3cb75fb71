// Opening PyTorch's own files in the real window, offscreen: the committed torch.profiler trace
// shows in the Kernels tab (its kernel table holds the trace's kernels, as many per name as
// tests/reference/torch_trace_summary.py counts), the memory snapshot in the Memory tab (its
// peak is memory_viz's, as tests/reference/memory_snapshot_summary.py replays it); each is kept
// in the History as an import, reopens from it, and compares in the compare window. A file that
// is no profile, or an import cancelled, leaves a message naming the file and no run behind.
#include <QFile>
#include <QProgressBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "experiments/bench/bench_inputs.h"
#include "gui/compare_dialog.h"
#include "gui/main_window.h"
#include "history/history_layout.h"
#include "models/comparison_model.h"
#include "models/kernel_table_model.h"
#include "models/memory_peaks_model.h"
#include "models/roles.h"
#include "widgets/kernels_view.h"
#include "widgets/memory_view.h"
#include "widgets/result_table.h"

using namespace stepscope;

namespace {

QString fixture(const char* name) { return QStringLiteral(STEPSCOPE_TEST_DATA_DIR "/torch_profiles/") + name; }

nlohmann::json expected(const char* name) {
  std::ifstream in(std::string(STEPSCOPE_TEST_DATA_DIR "/torch_profiles/") + name);
  return nlohmann::json::parse(in);
}

// Opens `path` and waits for the end; the signal's arguments.
QList<QVariant> open_and_wait(gui::MainWindow& window, const QString& path) {
  QSignalSpy opened(&window, &gui::MainWindow::file_opened);
  window.open_file(path);
  if (!opened.wait(60000)) return {};
  return opened.takeFirst();
}

// The shown kernel table's rows: per full kernel name, its instances.
std::map<std::string, int64_t> kernel_instances(const views::KernelTableModel& model) {
  std::map<std::string, int64_t> out;
  for (int r = 0; r < model.rowCount(); ++r) out[model.kernel(r).name] = model.kernel(r).instances;
  return out;
}

}  // namespace

class ProfileImportTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aTraceShowsInKernelsAndIsKeptInTheHistory() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    window.set_headless(true);
    const auto args = open_and_wait(window, fixture("trace_cuda.json.gz"));
    QVERIFY(!args.isEmpty());
    QVERIFY2(args[1].toBool(), qPrintable(args[2].toString()));
    auto* kernels = window.findChild<views::KernelsView*>();
    QVERIFY(!kernels->shows_cpu_ranges());
    QVERIFY2(kernels->isVisibleTo(&window), "the Kernels tab is brought forward");
    // The measured window's kernels, as the reference counts them.
    const auto shown = kernel_instances(kernels->kernel_model());
    const auto want = expected("trace_cuda.expected.json");
    for (const auto& [name, k] : want["kernels"].items()) {
      QVERIFY2(shown.count(name), name.substr(0, 100).c_str());
      QCOMPARE(shown.at(name), k["count"].get<int64_t>());
    }
    QCOMPARE(window.outcomes().size(), size_t{1});
    const BenchResult& result = *window.outcomes().front().result;
    QVERIFY(is_import(result));
    QVERIFY(result.operator_profile != nullptr);
    QCOMPARE(result.operator_profile->operators.size(), want["operators"].size());
    // In the History as an import, with the trace's device.
    const auto runs = window.history().runs();
    QCOMPARE(runs.size(), size_t{1});
    QCOMPARE(runs[0].label, QStringLiteral("import: trace_cuda.json.gz"));
    QCOMPARE(runs[0].device, QStringLiteral("cuda:0"));
    QCOMPARE(runs[0].state, history::RunState::complete);
    QVERIFY(!window.findChild<QToolButton*>("cancelImport")->isVisible());
  }

  void aSnapshotShowsInMemoryAndReopensFromTheHistory() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    window.set_headless(true);
    window.show();
    const auto args = open_and_wait(window, fixture("snapshot_cuda.pickle"));
    QVERIFY(!args.isEmpty());
    QVERIFY2(args[1].toBool(), qPrintable(args[2].toString()));
    auto* memory = window.findChild<views::MemoryView*>();
    QVERIFY2(memory->isVisibleTo(&window), "the Memory tab is brought forward");
    auto* peaks = memory->findChild<views::MemoryPeaksModel*>();
    QVERIFY(peaks != nullptr);
    QVERIFY(peaks->rowCount() > 0);
    const int64_t want = expected("snapshot_cuda.expected.json")["devices"][0]["peak_bytes"].get<int64_t>();
    QCOMPARE(window.outcomes().front().result->peak_memory_bytes, want);
    bool found = false;
    for (int r = 0; r < peaks->rowCount(); ++r) {
      for (int c = 0; c < peaks->columnCount(); ++c) {
        found = found || peaks->data(peaks->index(r, c), views::ExactValueRole).toLongLong() == want;
      }
    }
    QVERIFY2(found, "the overall peak is memory_viz's, to the byte");
    QCOMPARE(window.history().runs().front().label, QStringLiteral("import: snapshot_cuda.pickle"));

    // A trace beside it in the History; both reopen, and compare.
    QVERIFY(open_and_wait(window, fixture("trace_cuda.json.gz")).value(1).toBool());
    const auto runs = window.history().runs();
    QCOMPARE(runs.size(), size_t{2});
    QString error;
    QVERIFY2(window.open_run(runs[1].id, &error), qPrintable(error));
    QCOMPARE(window.outcomes().front().result->peak_memory_bytes, want);
    QVERIFY(is_import(*window.outcomes().front().result));
    auto a = window.history().load(runs[1].id, &error);
    auto b = window.history().load(runs[0].id, &error);
    QVERIFY2(a && b, qPrintable(error));
    gui::CompareDialog compare(std::move(*a), std::move(*b), "snapshot", "trace");
    QVERIFY(compare.benchmark_model() != nullptr);
    QVERIFY(compare.benchmark_model()->rowCount() > 0);
  }

  void aFileThatIsNoProfileIsNamedAndNothingIsKept() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    window.set_headless(true);
    const QString notes = dir.filePath("notes.json");
    QFile file(notes);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\"");  // cut short
    file.close();
    auto args = open_and_wait(window, notes);
    QVERIFY(!args.isEmpty());
    QVERIFY(!args[1].toBool());
    QVERIFY2(args[2].toString().startsWith(notes + ": "), qPrintable(args[2].toString()));
    args = open_and_wait(window, dir.filePath("missing.pickle"));
    QVERIFY2(args[2].toString().contains(QStringLiteral("missing.pickle: no such file")), qPrintable(args[2].toString()));
    QVERIFY(window.history().runs().empty());
    QVERIFY(window.outcomes().empty());
  }

  void aCancelledImportLeavesNothing() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    window.set_headless(true);
    window.show();
    QSignalSpy opened(&window, &gui::MainWindow::file_opened);
    window.open_file(fixture("trace_cuda.json.gz"));
    QVERIFY(window.is_importing());
    QVERIFY(window.findChild<QToolButton*>("cancelImport")->isVisible());
    QString error;
    QVERIFY(!window.run(schema::InputValues(bench_inputs()), &error));  // its result would replace the import's
    QVERIFY2(error.contains(QStringLiteral("imported")), qPrintable(error));
    window.cancel_import();
    QVERIFY(opened.wait(60000));
    const auto args = opened.takeFirst();
    QVERIFY(!args[1].toBool());
    QVERIFY2(args[2].toString().endsWith(QStringLiteral(": cancelled")), qPrintable(args[2].toString()));
    QVERIFY(window.history().runs().empty());
    QVERIFY(window.outcomes().empty());
    QVERIFY(!window.findChild<QToolButton*>("cancelImport")->isVisible());
  }

  // The command line reads the same default History file the app keeps (named as main() names it).
  void theCommandLineFindsTheAppsHistory() {
    const QString organization = QCoreApplication::organizationName(), application = QCoreApplication::applicationName();
    QCoreApplication::setOrganizationName("Stepscope");
    QCoreApplication::setApplicationName("Stepscope");
    QStandardPaths::setTestModeEnabled(false);
    QVERIFY(qputenv("XDG_DATA_HOME", "/tmp/stepscope-xdg-check"));
    QCOMPARE(QString::fromStdString(history::default_history_file()), history::default_history_path());
    QVERIFY(qunsetenv("XDG_DATA_HOME"));
    QCOMPARE(QString::fromStdString(history::default_history_file()), history::default_history_path());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(organization);
    QCoreApplication::setApplicationName(application);
  }
};

QTEST_MAIN(ProfileImportTest)
#include "test_profile_import.moc"
