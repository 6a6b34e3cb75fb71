// A run of an experiment's tab that fails part-way shows why in the tab, above the rows it
// measured (kept), not only in the status bar; the next run of the tab clears it.
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <stdexcept>

#include "gui/experiment_tab.h"
#include "gui/run_gate.h"
#include "models/schema_table_model.h"
#include "support/square_experiment.h"
#include "widgets/experiment_view.h"
#include "widgets/input_form.h"
#include "widgets/result_table.h"

using namespace stepscope;

namespace {

// The squares, except that 13 throws as LibTorch does for what it cannot run: the rows
// published before it stay.
ExperimentDescriptor failing_squares() {
  ExperimentDescriptor d = testing_support::square_descriptor();
  d.run = [](const schema::InputValues& values, ProgressSink*, const CancelFlag*, const TablePublisher& publish) {
    std::vector<testing_support::SquareRow> rows;
    for (int64_t n : values.integers("n")) {
      if (n == 13) throw std::runtime_error("autocast of Float on CPU is not supported");
      rows.push_back({n, n * n, RunStatus::ok});
      if (publish) publish({testing_support::square_schema().table(rows)});
    }
    return ExperimentOutcome{RunStatus::ok, "", {testing_support::square_schema().table(rows)}};
  };
  return d;
}

}  // namespace

class ExperimentFailureTest : public QObject {
  Q_OBJECT

  const ExperimentDescriptor squares_ = failing_squares();

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aFailureShowsInItsTabWithThePartialRowsUntilTheNextRun() {
    QTemporaryDir dir;
    history::RunHistory history;
    QString error;
    QVERIFY2(history.open(dir.filePath("history.sqlite"), &error), qPrintable(error));
    views::ExperimentView view(squares_);
    gui::RunGate gate;
    gui::ExperimentTab tab(history, gate, &view, QString());
    const auto& model = view.table_model(0);
    auto* table = view.findChild<views::ResultTable*>();
    QVERIFY(table != nullptr);
    QVERIFY(table->shows_empty_text());
    QVERIFY2(table->empty_text().contains(QStringLiteral("press Run")), qPrintable(table->empty_text()));
    QVERIFY(view.failure_text().isEmpty());

    // 2 and 3 are measured, then 13 fails: the error shows above their rows, which stay.
    schema::InputValues asked(testing_support::square_inputs());
    asked.set("n", "2, 3, 13");
    view.set_values(asked);
    view.findChild<QPushButton*>("run")->click();
    QTRY_VERIFY_WITH_TIMEOUT(!tab.is_running(), 30000);
    QCOMPARE(model.rowCount(), 2);
    QVERIFY(!table->shows_empty_text());
    QVERIFY2(view.failure_text().contains(QStringLiteral("autocast of Float on CPU is not supported")),
             qPrintable(view.failure_text()));
    QVERIFY(view.findChild<QWidget*>("runFailure")->isVisibleTo(&view));

    // It stays through other tabs' business, and goes with the next run of this one.
    asked.set("n", "4");
    view.set_values(asked);
    QVERIFY(!view.failure_text().isEmpty());
    view.findChild<QPushButton*>("run")->click();
    QTRY_VERIFY_WITH_TIMEOUT(!tab.is_running(), 30000);
    QVERIFY(view.failure_text().isEmpty());
    QCOMPARE(model.rowCount(), 1);
  }
};

QTEST_MAIN(ExperimentFailureTest)
#include "test_experiment_failure.moc"
