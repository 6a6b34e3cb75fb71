// The History dock as users see it: how each run ended, k of n configurations, device and key
// figures for every experiment; reopening a run beside what the other tabs show.
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "gui/history_dock.h"
#include "gui/main_window.h"
#include "widgets/experiment_view.h"

using namespace stepscope;

namespace {

RunRecord fixture(const char* name) {
  return read_run_record_file(std::string(STEPSCOPE_TEST_DATA_DIR "/records_v2/") + name);
}

QString cell(const QAbstractItemModel& model, int row, const QString& header) {
  for (int c = 0; c < model.columnCount(); ++c) {
    if (model.headerData(c, Qt::Horizontal).toString() == header) return model.index(row, c).data().toString();
  }
  return "(no column " + header + ")";
}

int rows_shown(const views::ExperimentView& view) {
  const auto tables = view.tables();
  return tables.empty() ? -1 : tables.front().model->rowCount();
}

views::ExperimentView* experiment_view(QWidget& window, const std::string& id) {
  for (auto* view : window.findChildren<views::ExperimentView*>()) {
    if (view->descriptor().id == id) return view;
  }
  return nullptr;
}

}  // namespace

class HistoryDockTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }  // not the user's window layout

  // An attention sweep cancelled after 6 of its 16 configurations, on the GPU.
  void aCancelledTableRunIsListedWithKOfNDeviceAndKeyFigure() {
    QTemporaryDir dir;
    history::RunHistory history;
    QString error;
    QVERIFY(history.open(dir.filePath("h.sqlite"), &error));
    RunRecord record = fixture("attention.json");
    record.inputs = {"attention", {{"device", "cuda:0"}}};
    record.outcome = RunEnding{RunStatus::cancelled, 16};
    QVERIFY2(history.import_record(record, "attention: 16 configurations on cuda:0", &error) > 0, qPrintable(error));
    gui::HistoryDock dock(history);
    const auto* model = dock.findChild<QTableView*>("historyTable")->model();
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(cell(*model, 0, "State"), QStringLiteral("cancelled"));
    QCOMPARE(cell(*model, 0, "Configs"), QStringLiteral("2 of 16"));
    QCOMPARE(cell(*model, 0, "Device"), QStringLiteral("cuda:0"));
    QVERIFY2(cell(*model, 0, "Key figures").startsWith("Fwd+bwd "), qPrintable(cell(*model, 0, "Key figures")));
    QVERIFY2(cell(*model, 0, "Key figures").contains(QStringLiteral(" µs – ")), qPrintable(cell(*model, 0, "Key figures")));
  }

  // A run in progress changes its own row only: new at the top, then updated in place, and the
  // row the user picked stays picked.
  void aRunningRunUpdatesItsRowInPlaceKeepingTheSelection() {
    QTemporaryDir dir;
    history::RunHistory history;
    QString error;
    QVERIFY(history.open(dir.filePath("h.sqlite"), &error));
    const RunEnvironment environment{"0.1.0", "LibTorch 1.13.1, CPU build", "stepscope (desktop)",
                                     "2026-11-21T12:00:00Z"};
    const int64_t older = history.begin_run(environment, "older run", "cpu", &error);
    QVERIFY(history.finish_run(older, history::RunState::complete, &error));
    gui::HistoryDock dock(history);
    auto* table = dock.findChild<QTableView*>("historyTable");
    const auto* model = table->model();
    table->selectRow(0);
    QCOMPARE(dock.selected_run(), older);

    const int64_t running = history.begin_run(environment, "new run", "cpu", &error, {}, 2);
    dock.refresh_run(running);
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(cell(*model, 0, "Run"), QStringLiteral("new run"));  // newest first
    QCOMPARE(cell(*model, 0, "State"), QStringLiteral("incomplete"));
    QCOMPARE(cell(*model, 0, "Configs"), QStringLiteral("0 of 2"));
    QCOMPARE(dock.selected_run(), older);

    QVERIFY(history.finish_run(running, history::RunState::cancelled, &error));
    dock.refresh_run(running);
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(cell(*model, 0, "State"), QStringLiteral("cancelled"));
    QCOMPARE(dock.selected_run(), older);

    QVERIFY(history.remove(running, &error));
    dock.refresh_run(running);  // gone: its row too
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(cell(*model, 0, "Run"), QStringLiteral("older run"));
  }

  // Collectives: the bus bandwidth is their headline; a complete run shows its count alone.
  void aCollectivesRunShowsItsBusBandwidth() {
    QTemporaryDir dir;
    history::RunHistory history;
    QString error;
    QVERIFY(history.open(dir.filePath("h.sqlite"), &error));
    QVERIFY(history.import_record(fixture("collectives.json"), "collectives", &error) > 0);
    gui::HistoryDock dock(history);
    const auto* model = dock.findChild<QTableView*>("historyTable")->model();
    QCOMPARE(cell(*model, 0, "State"), QStringLiteral("complete"));
    QCOMPARE(cell(*model, 0, "Configs"), QStringLiteral("1"));
    QCOMPARE(cell(*model, 0, "Device"), QStringLiteral("cpu"));
    QVERIFY2(cell(*model, 0, "Key figures").startsWith("busbw"), qPrintable(cell(*model, 0, "Key figures")));
  }

  // Reopening a run shows it in its tab, which comes forward; the other tabs keep their results.
  void reopeningARunKeepsTheOtherTabsAndGoesToItsTab() {
    QTemporaryDir dir;
    int64_t bench = 0, attention = 0;
    {
      history::RunHistory history;
      QString error;
      QVERIFY(history.open(dir.filePath("h.sqlite"), &error));
      bench = history.import_record(fixture("bench.json"), "bench", &error);
      attention = history.import_record(fixture("attention.json"), "attention", &error);
      QVERIFY2(bench > 0 && attention > 0, qPrintable(error));
    }
    gui::MainWindow window(dir.filePath("h.sqlite"));
    auto* tabs = window.findChild<QTabWidget*>("resultTabs");
    auto* attention_view = experiment_view(window, "attention");
    QVERIFY(tabs && attention_view);
    QString error;

    QVERIFY2(window.open_run(bench, &error), qPrintable(error));
    QCOMPARE(tabs->tabText(tabs->currentIndex()), QStringLiteral("Benchmark"));
    QCOMPARE(window.outcomes().size(), size_t{1});

    QVERIFY2(window.open_run(attention, &error), qPrintable(error));
    QCOMPARE(tabs->tabText(tabs->currentIndex()), QStringLiteral("Attention"));
    QCOMPARE(rows_shown(*attention_view), 2);
    QCOMPARE(window.outcomes().size(), size_t{1});  // the Benchmark tab keeps its run

    tabs->setCurrentIndex(tabs->count() - 1);
    QVERIFY2(window.open_run(bench, &error), qPrintable(error));
    QCOMPARE(tabs->tabText(tabs->currentIndex()), QStringLiteral("Benchmark"));
    QCOMPARE(rows_shown(*attention_view), 2);  // the Attention tab keeps its run
  }
};

QTEST_MAIN(HistoryDockTest)
#include "test_history_dock.moc"
