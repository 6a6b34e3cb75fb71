// The DDP tab with real workers: the window's ExperimentView of the DDP experiments
// runs local Gloo ranks of stepscope-cli from its Run, fills the DDP table and its side
// tables, the step breakdown and the overlap picture of every rank, and keeps the run (all four
// tables) in the history, from which it reopens with its inputs (--nproc included). All-reduce
// rows the Collectives tab just measured bring the bucket overhead model, and stay for a DDP
// run after them; a missing worker binary is said, not crashed on.
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "charts/rank_timeline_view.h"
#include "experiments/collectives/collective_inputs.h"
#include "experiments/collectives/collective_schema.h"
#include "experiments/ddp/ddp_inputs.h"
#include "gui/experiment_tab.h"
#include "gui/run_gate.h"
#include "gui/main_window.h"
#include "support/experiment_window.h"
#include "history/run_history.h"
#include "models/schema_table_model.h"
#include "registry/experiment_registry.h"
#include "widgets/ddp_charts_view.h"
#include "widgets/experiment_view.h"
#include "widgets/input_form.h"

using namespace stepscope;
using namespace stepscope::testing_support;

namespace {

// nccl-tests' rows at 2 ranks: 20 us + bytes / 1 GB/s.
schema::Table collective_rows() {
  std::vector<CollectiveResult> rows;
  for (int64_t bytes : {int64_t{1} << 20, int64_t{10} << 20, int64_t{100} << 20}) {
    CollectiveResult r;
    r.config.size_bytes = bytes;
    r.count = bytes / 4;
    r.time_us = 20 + static_cast<double>(bytes) / 1e3;
    r.algbw_gbps = static_cast<double>(bytes) / (r.time_us * 1e3);
    r.wrong = 0;
    rows.push_back(r);
  }
  return collective_schema().table(rows);
}

}  // namespace

class DdpTabTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aGlooRunFillsTheTablesAndPictureIsKeptAndReopens() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    auto* collectives = experiment_view(window, "collectives");
    auto* view = experiment_view(window, "ddp");
    auto* charts = window.findChild<views::DdpChartsView*>();
    QVERIFY(collectives && view && charts);
    QVERIFY2(charts->reading().contains("all-reduce times"), qPrintable(charts->reading()));

    // The Collectives tab measures all-reduce at 2 ranks: its rows feed the model.
    QSignalSpy measured(driver(window, collectives), &gui::ExperimentTab::finished);
    schema::InputValues all_reduce(collective_inputs());
    all_reduce.set("sizes", "64KB,1MB,4MB");
    all_reduce.set("iters", "2");
    collectives->set_values(all_reduce);
    QVERIFY(collectives->request_run());
    QVERIFY(measured.wait(120000));
    QCOMPARE(measured.at(0).at(0).toBool(), true);
    QVERIFY2(charts->reading().startsWith("All-reduce gloo x2 fp32: "), qPrintable(charts->reading()));

    QSignalSpy finished(driver(window, view), &gui::ExperimentTab::finished);
    schema::InputValues asked(ddp_inputs());
    asked.set("variant", "naive,overlap,bucketed");
    asked.set("bucket-mb", "0.01");
    asked.set("nproc", "2");
    asked.set("context", "16");
    asked.set("batch", "2");
    asked.set("steps", "2");
    asked.set("warmup", "0");
    view->set_values(asked);
    QVERIFY(view->request_run());
    QCOMPARE(run_button(view)->text(), QStringLiteral("Cancel"));
    QVERIFY(finished.wait(180000));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QCOMPARE(view->table_model(0).rowCount(), 3);  // naive, overlap, bucketed 0.01 MiB
    QCOMPARE(view->table_model(1).rowCount(), 6);  // each rank's rows
    // Every rank's picture of the row shown: compute and communication lanes of ranks 0 and 1.
    QCOMPARE(charts->timeline_selector()->count(), 3);
    QCOMPARE(charts->timeline().data().lanes.size(), 4);
    QVERIFY(!charts->timeline().data().spans.empty());
    QVERIFY(charts->timeline().message().isEmpty());
    QVERIFY(view->table_model(2).rowCount() > 0);  // the spans, in their own table
    // The all-reduce rows measured before stay for this run's model.
    QVERIFY2(charts->reading().startsWith("All-reduce gloo x2 fp32: "), qPrintable(charts->reading()));
    QVERIFY2(charts->reading().contains("bucketed 0.01 MiB x2: n_b = "), qPrintable(charts->reading()));
    // The run keeps all four tables.
    const auto runs = window.history().runs();
    QCOMPARE(runs.size(), size_t{2});  // the all-reduce run, then this one
    QString error;
    const auto record = window.history().load(runs[0].id, &error);
    QVERIFY2(record, qPrintable(error));
    QCOMPARE(record->tables.size(), size_t{4});  // rows, each rank's, the picture, memory (empty here)
    QCOMPARE(record->tables[0].schema, std::string("ddp"));

    // Rows of a known fit: the model's every number.
    view->show_linked_tables({collective_rows()});
    QVERIFY2(charts->reading().contains("bucket* = s/n_b* = sqrt(s*w*o)"), qPrintable(charts->reading()));
    QVERIFY2(charts->reading().contains("bucketed 0.01 MiB x2: n_b = "), qPrintable(charts->reading()));

    // Reopened from the history: its tables, and its inputs back in the form, --nproc included.
    view->set_values(schema::InputValues(ddp_inputs()));
    view->clear();
    QVERIFY2(window.open_run(runs[0].id, &error), qPrintable(error));
    QCOMPARE(view->form()->values(), asked);
    QCOMPARE(qobject_cast<QLineEdit*>(view->form()->field("nproc"))->text(), QStringLiteral("2"));
    QCOMPARE(view->table_model(0).rowCount(), 3);
    QCOMPARE(charts->timeline_selector()->count(), 3);

    // In the next session: the all-reduce run reopened from the history feeds the model as a
    // finished one does, and reopening the DDP run after it keeps the fit.
    gui::MainWindow next(dir.filePath("history.sqlite"));
    auto* next_charts = next.findChild<views::DdpChartsView*>();
    QVERIFY2(next_charts->reading().contains("all-reduce times"), qPrintable(next_charts->reading()));
    QVERIFY2(next.open_run(runs[1].id, &error), qPrintable(error));
    QVERIFY2(next_charts->reading().startsWith("All-reduce gloo x2 fp32: "), qPrintable(next_charts->reading()));
    QVERIFY2(next.open_run(runs[0].id, &error), qPrintable(error));
    QVERIFY2(next_charts->reading().startsWith("All-reduce gloo x2 fp32: "), qPrintable(next_charts->reading()));
    QVERIFY2(next_charts->reading().contains("bucketed 0.01 MiB x2: n_b = "), qPrintable(next_charts->reading()));
  }

  void aMissingWorkerIsSaid() {
    QTemporaryDir dir;
    history::RunHistory history;
    QString error;
    QVERIFY(history.open(dir.filePath("history.sqlite"), &error));
    views::ExperimentView view(*find_experiment("ddp"), new views::DdpChartsView);
    gui::RunGate gate;
    gui::ExperimentTab tab(history, gate, &view, dir.filePath("no-such-cli"));
    QSignalSpy status(&tab, &gui::ExperimentTab::status);
    QVERIFY(run_button(&view)->isEnabled());  // the defaults can run
    run_button(&view)->click();
    QVERIFY(status.last().at(0).toString().contains("no-such-cli"));
    QCOMPARE(run_button(&view)->text(), QStringLiteral("Run"));
    QVERIFY(!tab.is_running());
    QVERIFY(history.runs().empty());
  }
};

QTEST_MAIN(DdpTabTest)
#include "test_ddp_tab.moc"
