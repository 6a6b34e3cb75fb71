// The Collectives tab with real workers: the window's ExperimentView of the collective
// benchmark runs local Gloo ranks of stepscope-cli from its Run, fills the table and the
// bus-bandwidth chart as rows arrive, and keeps the run in the history, from which it reopens
// with its inputs (--nproc included); Cancel ends every worker and keeps the rows measured; the
// form names a bad field; a missing worker binary is said, not crashed on.
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

#include "charts/sweep_chart_view.h"
#include "experiments/collectives/collective_inputs.h"
#include "gui/experiment_tab.h"
#include "gui/run_gate.h"
#include "gui/main_window.h"
#include "support/experiment_window.h"
#include "history/run_history.h"
#include "models/schema_table_model.h"
#include "registry/experiment_registry.h"
#include "widgets/collective_charts_view.h"
#include "widgets/experiment_view.h"
#include "widgets/input_form.h"

using namespace stepscope;
using namespace stepscope::testing_support;

namespace {

// This process's children that are still there (running or not yet reaped), by /proc.
int children_left() {
  int n = 0;
  for (const QString& pid : QDir("/proc").entryList(QDir::Dirs)) {
    QFile stat("/proc/" + pid + "/stat");
    if (!stat.open(QIODevice::ReadOnly)) continue;
    const QString text = QString::fromLatin1(stat.readAll());
    const QStringList after = text.mid(text.lastIndexOf(')') + 2).split(' ');
    if (after.size() > 1 && after[1].toInt() == getpid()) ++n;
  }
  return n;
}

}  // namespace

class CollectivesTabTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aGlooRunFillsTheTableAndChartIsKeptAndReopens() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    auto* view = experiment_view(window, "collectives");
    QVERIFY(view);
    auto* tab = driver(window, view);
    QVERIFY(tab);
    auto* charts = window.findChild<views::CollectiveChartsView*>();
    QVERIFY(charts);
    QSignalSpy finished(tab, &gui::ExperimentTab::finished);
    schema::InputValues asked(collective_inputs());
    asked.set("nproc", "2,3");
    asked.set("sizes", "4KB,256KiB");
    asked.set("iters", "2");
    view->set_values(asked);
    QVERIFY(view->request_run());
    QCOMPARE(run_button(view)->text(), QStringLiteral("Cancel"));
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    const auto& model = view->table_model(0);
    QCOMPARE(model.rowCount(), 4);  // two sizes at 2 and at 3 ranks
    const int wrong = model.table().column_index("wrong"), ranks = model.table().column_index("nproc");
    for (int r = 0; r < 4; ++r) QCOMPARE(model.data(model.index(r, wrong)).toString(), QStringLiteral("0"));
    QCOMPARE(model.data(model.index(0, ranks)).toString(), QStringLiteral("2"));
    QCOMPARE(model.data(model.index(3, ranks)).toString(), QStringLiteral("3"));
    QCOMPARE(charts->chart().data().lines.size(), size_t{2});  // allreduce x2 and x3
    QCOMPARE(charts->chart().data().lines[1].name, QStringLiteral("allreduce x3"));
    const auto runs = window.history().runs();
    QCOMPARE(runs.size(), size_t{1});
    QCOMPARE(runs[0].label, QStringLiteral("collectives: gloo on cpu"));

    // Reopened from the history: its rows, and its inputs back in the form, --nproc included.
    view->set_values(schema::InputValues(collective_inputs()));
    view->clear();
    QString error;
    QVERIFY2(window.open_run(runs[0].id, &error), qPrintable(error));
    QCOMPARE(view->form()->values(), asked);
    QCOMPARE(qobject_cast<QLineEdit*>(view->form()->field("nproc"))->text(), QStringLiteral("2,3"));
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(charts->chart().data().lines.size(), size_t{2});
  }

  void cancelEndsEveryWorkerAndKeepsTheRows() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    auto* view = experiment_view(window, "collectives");
    QVERIFY(view);
    auto* tab = driver(window, view);
    QSignalSpy finished(tab, &gui::ExperimentTab::finished);
    schema::InputValues asked(collective_inputs());
    asked.set("sizes", "4KB,16MB,32MB,64MB,128MB");
    asked.set("warmup", "0");
    asked.set("iters", "200");
    view->set_values(asked);
    QVERIFY(view->request_run());
    QTRY_VERIFY_WITH_TIMEOUT(view->table_model(0).rowCount() >= 1, 60000);
    run_button(view)->click();  // Cancel
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    QVERIFY(!view->is_running());
    const int kept = view->table_model(0).rowCount();
    qInfo("cancelled with %d of 5 rows measured", kept);
    QVERIFY2(kept >= 1 && kept < 5, qPrintable(QString::number(kept)));
    QCOMPARE(children_left(), 0);  // every worker ended and reaped
    auto* status = window.findChild<QLabel*>("statusText");
    QVERIFY(status);
    QVERIFY2(status->text().contains(QStringLiteral("cancelled: %1 row(s) kept").arg(kept)), qPrintable(status->text()));
    const auto runs = window.history().runs();
    QCOMPARE(runs.size(), size_t{1});  // what was measured is kept
    QString error;
    const auto record = window.history().load(runs[0].id, &error);
    QVERIFY2(record, qPrintable(error));
    QCOMPARE(record->tables.at(0).rows.size(), static_cast<size_t>(kept));
  }

  void badFieldsAreNamedAndAMissingWorkerIsSaid() {
    QTemporaryDir dir;
    history::RunHistory history;
    QString error;
    QVERIFY(history.open(dir.filePath("history.sqlite"), &error));
    views::ExperimentView view(*find_experiment("collectives"), new views::CollectiveChartsView);
    auto* sizes = qobject_cast<QLineEdit*>(view.form()->field("sizes"));
    sizes->setText("1MB,huge");
    QVERIFY(sizes->property("invalid").toBool());
    QVERIFY2(view.form()->error_text().contains("Sizes: 'huge' is not a size"), qPrintable(view.form()->error_text()));
    QVERIFY(!run_button(&view)->isEnabled());
    sizes->setText("1MB");
    QVERIFY(run_button(&view)->isEnabled());

    gui::RunGate gate;
    gui::ExperimentTab tab(history, gate, &view, dir.filePath("no-such-cli"));
    QSignalSpy status(&tab, &gui::ExperimentTab::status);
    QVERIFY(!tab.start(view.form()->values()));
    QVERIFY(status.last().at(0).toString().contains("no-such-cli"));
    QCOMPARE(run_button(&view)->text(), QStringLiteral("Run"));
    QVERIFY(!view.is_running());
    QVERIFY(history.runs().empty());
  }
};

QTEST_MAIN(CollectivesTabTest)
#include "test_collectives_tab.moc"
