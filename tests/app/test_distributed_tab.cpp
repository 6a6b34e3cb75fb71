// The Distributed tab with real workers: its Run starts local Gloo ranks of stepscope-cli, fills
// the DDP table, the step breakdown and the overlap picture of every rank, and keeps the run (all
// four tables) in the history; an all-reduce table from the Communication tab brings the bucket
// overhead model; a missing worker binary is said, not crashed on.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "charts/rank_timeline_view.h"
#include "experiments/collectives/collective_schema.h"
#include "gui/distributed_tab.h"
#include "history/run_history.h"
#include "models/schema_table_model.h"
#include "widgets/distributed_view.h"

using namespace stepscope;

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

class DistributedTabTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aGlooRunFillsTheTablesAndPictureAndIsKept() {
    QTemporaryDir dir;
    history::RunHistory history;
    QString error;
    QVERIFY2(history.open(dir.filePath("history.sqlite"), &error), qPrintable(error));
    views::DistributedView view;
    gui::DistributedTab tab(history, &view, QStringLiteral(STEPSCOPE_CLI_PATH));
    QSignalSpy finished(&tab, &gui::DistributedTab::finished);
    auto* form = view.form();
    form->variant_box(distributed::DdpVariant::flat)->setChecked(false);
    form->variant_box(distributed::DdpVariant::bucketed)->setChecked(true);
    form->bucket_field()->setText("0.01");
    form->context_field()->setValue(16);
    form->batch_field()->setValue(2);
    form->steps_field()->setValue(2);
    form->warmup_field()->setValue(0);
    form->run_button()->click();
    QCOMPARE(form->run_button()->text(), QStringLiteral("Cancel"));
    QVERIFY(finished.wait(180000));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QCOMPARE(view.model().rowCount(), 3);  // naive, overlap, bucketed 0.01 MiB
    // Every rank's picture of the row shown: compute and communication lanes of ranks 0 and 1.
    QCOMPARE(view.timeline_selector()->count(), 3);
    QCOMPARE(view.timeline().data().lanes.size(), 4);
    QVERIFY(!view.timeline().data().spans.empty());
    QVERIFY(view.timeline().message().isEmpty());
    // The run keeps all three tables.
    QCOMPARE(history.runs().size(), size_t{1});
    const auto record = history.load(history.runs()[0].id, &error);
    QVERIFY2(record, qPrintable(error));
    QCOMPARE(record->tables.size(), size_t{4});  // rows, each rank's, the picture, memory (empty here)

    tab.set_collectives(collective_rows());
    QVERIFY2(view.reading().contains("bucket* = s/n_b* = sqrt(s*w*o)"), qPrintable(view.reading()));
    QVERIFY2(view.reading().contains("bucketed 0.01 MiB x2: n_b = "), qPrintable(view.reading()));
  }

  void aMissingWorkerIsSaid() {
    QTemporaryDir dir;
    history::RunHistory history;
    QString error;
    QVERIFY(history.open(dir.filePath("history.sqlite"), &error));
    views::DistributedView view;
    gui::DistributedTab tab(history, &view, dir.filePath("no-such-cli"));
    QSignalSpy status(&tab, &gui::DistributedTab::status);
    const auto request = view.request(&error);
    QVERIFY2(request, qPrintable(error));
    QVERIFY(!tab.start(*request));
    QVERIFY(status.last().at(0).toString().contains("no-such-cli"));
    QCOMPARE(view.form()->run_button()->text(), QStringLiteral("Run"));
  }
};

QTEST_MAIN(DistributedTabTest)
#include "test_distributed_tab.moc"
