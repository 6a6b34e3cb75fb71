// A made-up table experiment (support/square_experiment.h: a descriptor, a case, a schema, in a
// test file alone) gets a whole tab: its form, Run, the table as rows arrive, the run kept in
// the history with its inputs; and Cancel keeps what was measured.
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "gui/experiment_tab.h"
#include "models/schema_table_model.h"
#include "support/square_experiment.h"
#include "widgets/experiment_view.h"
#include "widgets/input_form.h"

using namespace stepscope;

class ExperimentTabTest : public QObject {
  Q_OBJECT

  const ExperimentDescriptor squares_ = testing_support::square_descriptor();

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aMadeUpExperimentRunsInItsTabAndIsKeptWithItsInputs() {
    QTemporaryDir dir;
    history::RunHistory history;
    QString error;
    QVERIFY2(history.open(dir.filePath("history.sqlite"), &error), qPrintable(error));
    views::ExperimentView view(squares_);
    gui::RunGate gate;
    gui::ExperimentTab tab(history, gate, &view, QString());
    QVERIFY(view.form()->field("n"));

    schema::InputValues asked(testing_support::square_inputs());
    asked.set("n", "3, 12");
    view.set_values(asked);
    view.findChild<QPushButton*>("run")->click();
    QTRY_VERIFY_WITH_TIMEOUT(!tab.is_running(), 30000);
    const auto& model = view.table_model(0);
    QCOMPARE(model.rowCount(), 2);
    const int square = model.table().column_index("square");
    QCOMPARE(model.data(model.index(1, square), Qt::DisplayRole).toString(), QStringLiteral("144"));  // 12 x 12

    const auto runs = history.runs();
    QCOMPARE(runs.size(), size_t{1});
    const auto record = history.load(runs[0].id, &error);
    QVERIFY2(record.has_value(), qPrintable(error));
    QCOMPARE(QString::fromStdString(record->inputs.experiment), QStringLiteral("test.squares"));
    QVERIFY(record->inputs.values == asked.given_values());
    QCOMPARE(record->tables.size(), size_t{1});
    QCOMPARE(record->tables[0].rows.size(), size_t{2});
  }

  void aBadInputIsRefusedBeforeAnythingRuns() {
    QTemporaryDir dir;
    history::RunHistory history;
    QString error;
    QVERIFY2(history.open(dir.filePath("history.sqlite"), &error), qPrintable(error));
    views::ExperimentView view(squares_);
    gui::RunGate gate;
    gui::ExperimentTab tab(history, gate, &view, QString());
    QTest::keyClicks(view.form()->field("n"), "0");
    QVERIFY(view.form()->field("n")->property("invalid").toBool());
    QVERIFY(!view.request_run());
    QVERIFY(!tab.is_running());
    QVERIFY(history.runs().empty());
  }
};

QTEST_MAIN(ExperimentTabTest)
#include "test_experiment_tab.moc"
