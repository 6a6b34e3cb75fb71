// The Communication tab with real workers: its Run starts local Gloo ranks of stepscope-cli,
// fills the table and the bus-bandwidth chart as rows arrive, and keeps the run in the history;
// the form names a bad field; a missing worker binary is said, not crashed on.
#include <QCheckBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "charts/sweep_chart_view.h"
#include "gui/communication_tab.h"
#include "history/run_history.h"
#include "models/schema_table_model.h"
#include "widgets/communication_view.h"

using namespace stepscope;

class CommunicationTabTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aGlooRunFillsTheTableAndChartAndIsKept() {
    QTemporaryDir dir;
    history::RunHistory history;
    QString error;
    QVERIFY2(history.open(dir.filePath("history.sqlite"), &error), qPrintable(error));
    views::CommunicationView view;
    gui::CommunicationTab tab(history, &view, QStringLiteral(STEPSCOPE_CLI_PATH));
    QSignalSpy finished(&tab, &gui::CommunicationTab::finished);
    view.world_sizes_field()->setText("2,3");
    view.sizes_field()->setText("4KB,256KiB");
    view.iters_field()->setValue(2);
    view.run_button()->click();
    QCOMPARE(view.run_button()->text(), QStringLiteral("Cancel"));
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    const auto& model = view.model();
    QCOMPARE(model.rowCount(), 4);  // two sizes at 2 and at 3 ranks
    const int wrong = model.table().column_index("wrong"), ranks = model.table().column_index("nproc");
    for (int r = 0; r < 4; ++r) QCOMPARE(model.data(model.index(r, wrong)).toString(), QStringLiteral("0"));
    QCOMPARE(model.data(model.index(3, ranks)).toString(), QStringLiteral("3"));
    QCOMPARE(view.chart().data().lines.size(), size_t{2});  // allreduce x2 and x3
    QCOMPARE(view.chart().data().lines[1].name, QStringLiteral("allreduce x3"));
    QCOMPARE(history.runs().size(), size_t{1});
  }

  void badFieldsAreNamedAndAMissingWorkerIsSaid() {
    QTemporaryDir dir;
    history::RunHistory history;
    QString error;
    QVERIFY(history.open(dir.filePath("history.sqlite"), &error));
    views::CommunicationView view;
    view.sizes_field()->setText("1MB,huge");
    std::string field;
    QVERIFY(!view.request(&error, &field));
    QCOMPARE(field, std::string("sizes"));
    QVERIFY(view.sizes_field()->property("invalid").toBool());
    QVERIFY(!view.run_button()->isEnabled());
    view.sizes_field()->setText("1MB");
    QVERIFY(view.run_button()->isEnabled());

    gui::CommunicationTab tab(history, &view, dir.filePath("no-such-cli"));
    QSignalSpy status(&tab, &gui::CommunicationTab::status);
    QVERIFY(!tab.start(*view.request()));
    QVERIFY(status.last().at(0).toString().contains("no-such-cli"));
    QCOMPARE(view.run_button()->text(), QStringLiteral("Run"));
  }
};

QTEST_MAIN(CommunicationTabTest)
#include "test_communication_tab.moc"
