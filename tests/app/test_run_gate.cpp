// One run at a time across the window: a second Run waits in the gate's line and starts when
// the first ends; a queued run cancelled never runs. And a run beside another Stepscope
// process's (stepscope-cli, a real second process) is marked, in its status and its record,
// as the CLI's run is marked in its own.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "gui/experiment_tab.h"
#include "gui/run_gate.h"
#include "models/schema_table_model.h"
#include "support/square_experiment.h"
#include "widgets/experiment_view.h"

using namespace stepscope;

namespace {

schema::InputValues squares(const QString& numbers) {
  schema::InputValues values(testing_support::square_inputs());
  values.set("n", numbers.toStdString());
  return values;
}

// Enough cases that the first run is still going when the second is asked for.
QString many_numbers() {
  QStringList n;
  for (int i = 1; i <= 200; ++i) n << QString::number(i);
  return n.join(',');
}

}  // namespace

class RunGateTest : public QObject {
  Q_OBJECT

  const ExperimentDescriptor squares_ = testing_support::square_descriptor();

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void theGateStartsOneAtATimeInOrder() {
    gui::RunGate gate;
    QStringList started;
    const auto a = gate.request("A", [&] { started << "A"; });
    const auto b = gate.request("B", [&] { started << "B"; });
    const auto c = gate.request("C", [&] { started << "C"; });
    QCOMPARE(started, QStringList{"A"});
    QVERIFY(gate.is_running(a) && gate.is_queued(b) && gate.is_queued(c));
    QCOMPARE(gate.ahead_of(c), (QStringList{"A", "B"}));
    QVERIFY(gate.withdraw(b));
    QVERIFY(!gate.withdraw(b));
    gate.finished(b);  // not running: nothing happens
    QCOMPARE(started, QStringList{"A"});
    gate.finished(a);
    QCOMPARE(started, (QStringList{"A", "C"}));
    gate.finished(c);
    QVERIFY(!gate.is_busy());
  }

  void aSecondRunIsQueuedThenRunsAfterTheFirst() {
    QTemporaryDir dir;
    history::RunHistory history;
    QString error;
    QVERIFY2(history.open(dir.filePath("history.sqlite"), &error), qPrintable(error));
    gui::RunGate gate;
    views::ExperimentView first_view(squares_), second_view(squares_);
    gui::ExperimentTab first(history, gate, &first_view, QString());
    gui::ExperimentTab second(history, gate, &second_view, QString());
    QStringList ended;
    connect(&first, &gui::ExperimentTab::finished, this, [&] { ended << "first"; });
    connect(&second, &gui::ExperimentTab::finished, this, [&] {
      ended << "second";
      QVERIFY(!first.is_running());
    });

    QVERIFY(first.start(squares(many_numbers())));
    QVERIFY(second.start(squares("7")));
    QVERIFY(first.is_running());
    QVERIFY(second.is_queued());
    QVERIFY(!second.is_running());
    QVERIFY2(second_view.status_text().contains("Queued behind: " + QString::fromStdString(squares_.name)),
             qPrintable(second_view.status_text()));
    QVERIFY(second_view.is_running());  // its button reads Cancel while it waits
    QVERIFY(!second.start(squares("8")));  // queued already

    QTRY_COMPARE_WITH_TIMEOUT(ended, (QStringList{"first", "second"}), 60000);
    QCOMPARE(second_view.table_model(0).rowCount(), 1);
    QCOMPARE(history.runs().size(), size_t{2});
    QVERIFY(!gate.is_busy());
  }

  void aQueuedRunCancelledNeverRuns() {
    QTemporaryDir dir;
    history::RunHistory history;
    QString error;
    QVERIFY2(history.open(dir.filePath("history.sqlite"), &error), qPrintable(error));
    gui::RunGate gate;
    views::ExperimentView first_view(squares_), second_view(squares_);
    gui::ExperimentTab first(history, gate, &first_view, QString());
    gui::ExperimentTab second(history, gate, &second_view, QString());
    bool second_ended = false;
    connect(&second, &gui::ExperimentTab::finished, this, [&] { second_ended = true; });
    QVERIFY(first.start(squares(many_numbers())));
    QVERIFY(second.start(squares("7")));
    QVERIFY(second.is_queued());
    second.cancel();  // as Cancel or Esc
    QVERIFY(!second.is_queued());
    QVERIFY(!second_view.is_running());
    QVERIFY2(second_view.status_text().contains("cancelled before it started"), qPrintable(second_view.status_text()));
    QTRY_VERIFY_WITH_TIMEOUT(!first.is_running(), 60000);
    QTest::qWait(200);
    QVERIFY(!second_ended);
    QVERIFY(!second.is_running());
    QCOMPARE(second_view.table_model(0).rowCount(), 0);
    QCOMPARE(history.runs().size(), size_t{1});
  }

  // Two processes: stepscope-cli measuring while this one runs an experiment tab.
  void aRunBesideAnotherProcesssRunIsMarkedOnBothSides() {
    QTemporaryDir dir;
    const QString registry = dir.filePath("registry");
    qputenv("STEPSCOPE_RUN_REGISTRY", registry.toUtf8());  // not the user's runs, nor other tests'
    QProcess cli;
    cli.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    cli.start(STEPSCOPE_CLI_PATH, {"bench", "--model", "tiny", "--context", "16", "--batch", "1", "--warmup", "0",
                                   "--steps", "100000", "--mode", "forward", "--quiet", "--json",
                                   dir.filePath("cli.json")});
    QVERIFY(cli.waitForStarted());
    // Registered once its run file is there.
    QTRY_VERIFY_WITH_TIMEOUT(!QDir(registry).entryList({"run-*"}, QDir::Files).isEmpty(), 30000);

    history::RunHistory history;
    QString error;
    QVERIFY2(history.open(dir.filePath("history.sqlite"), &error), qPrintable(error));
    gui::RunGate gate;
    views::ExperimentView view(squares_);
    gui::ExperimentTab tab(history, gate, &view, QString());
    QVERIFY(tab.start(squares("3")));
    QTRY_VERIFY_WITH_TIMEOUT(!tab.is_running(), 30000);
    QVERIFY2(view.status_text().contains("measured while another Stepscope run ran: stepscope-cli bench"),
             qPrintable(view.status_text()));
    const auto record = history.load(history.runs().front().id, &error);
    QVERIFY2(record.has_value(), qPrintable(error));
    QVERIFY2(QString::fromStdString(record->environment.concurrent_runs).contains("stepscope-cli bench"),
             record->environment.concurrent_runs.c_str());

    // The CLI's run, stopped as Ctrl-C stops it, says this one ran during it.
    cli.terminate();
    QVERIFY(cli.waitForFinished(60000));
    QFile json(dir.filePath("cli.json"));
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QByteArray text = json.readAll();
    QVERIFY2(text.contains("\"concurrent_runs\":\"measured while another Stepscope run ran: 1 began and ended during it\"") ||
                 text.contains("\"concurrent_runs\":\"measured while another Stepscope run ran: stepscope: Squares"),
             text.left(600).constData());
    qunsetenv("STEPSCOPE_RUN_REGISTRY");
  }

  // A run alone is not marked.
  void aRunAloneIsNotMarked() {
    QTemporaryDir dir;
    qputenv("STEPSCOPE_RUN_REGISTRY", dir.filePath("registry").toUtf8());
    history::RunHistory history;
    QString error;
    QVERIFY2(history.open(dir.filePath("history.sqlite"), &error), qPrintable(error));
    gui::RunGate gate;
    views::ExperimentView view(squares_);
    gui::ExperimentTab tab(history, gate, &view, QString());
    QVERIFY(tab.start(squares("3")));
    QTRY_VERIFY_WITH_TIMEOUT(!tab.is_running(), 30000);
    QVERIFY2(!view.status_text().contains("measured while"), qPrintable(view.status_text()));
    const auto record = history.load(history.runs().front().id, &error);
    QVERIFY(record.has_value());
    QVERIFY(record->environment.concurrent_runs.empty());
    qunsetenv("STEPSCOPE_RUN_REGISTRY");
  }
};

QTEST_MAIN(RunGateTest)
#include "test_run_gate.moc"
