// The run-history database: runs kept as they go, read back whole, crash-safe, and foreign or
// corrupt files refused with a message.
#include <QFile>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <thread>

#include "cli/recorded_inputs.h"
#include "gui/lab_run.h"
#include "history/run_writer.h"
#include "history/run_history.h"
#include "registry/experiment_registry.h"

using namespace stepscope;
using namespace stepscope::history;

namespace {

RunRecordEntry entry(const std::string& model, int64_t context, RunStatus status) {
  RunRecordEntry e;
  e.result.config.model = model_preset(model);
  e.result.config.context = context;
  e.result.status = status;
  if (status == RunStatus::ok) {  // measured: one step, so the phase has a value
    e.result.steps = {{0, 0, 0, static_cast<int64_t>(12.5e6 * static_cast<double>(context))}};
    e.result.total.mean_ms = 12.5 * static_cast<double>(context);
    e.result.total.count = 1;
  }
  e.result.peak_memory_bytes = 1000 + context;
  if (status != RunStatus::ok) e.result.message = "CUDA out of memory";
  auto timeline = std::make_shared<profiling::MemoryTimeline>();
  timeline->baseline_bytes = 4096;
  profiling::MemoryPoint point;
  point.time_ns = 7;
  point.allocated_bytes = 123456;
  timeline->points.push_back(point);
  e.timeline = timeline;
  return e;
}

// An attention table of `rows` configurations.
schema::Table attention_table(int rows) {
  schema::Table t = find_experiment("attention")->tables.front();
  for (int r = 0; r < rows; ++r) {
    std::vector<schema::Value> row(t.columns.size());
    row[static_cast<size_t>(t.column_index("seq"))] = int64_t{128} << r;
    row[static_cast<size_t>(t.column_index("fwd_bwd_ms"))] = 1.5 * (r + 1);
    row[static_cast<size_t>(t.column_index("device"))] = std::string("NVIDIA H100");
    t.rows.push_back(row);
  }
  return t;
}

RunEnvironment environment() { return {"0.1.0", "LibTorch 1.13.1, CPU build", "stepscope (desktop)", "2026-11-21T12:00:00Z"}; }

}  // namespace

class RunHistoryTest : public QObject {
  Q_OBJECT

 private slots:
  void keepsRunsAndReadsThemBackWhole() {
    QTemporaryDir dir;
    RunHistory history;
    QString error;
    QVERIFY2(history.open(dir.filePath("h.sqlite"), &error), qPrintable(error));
    const int64_t run = history.begin_run(environment(), "tiny sweep", "cpu", &error);
    QVERIFY2(run > 0, qPrintable(error));
    QVERIFY2(history.add_entry(run, entry("tiny", 32, RunStatus::ok), &error), qPrintable(error));
    QVERIFY2(history.add_entry(run, entry("tiny", 64, RunStatus::out_of_memory), &error), qPrintable(error));
    QVERIFY(history.finish_run(run, RunState::complete, &error));

    const auto runs = history.runs();
    QCOMPARE(runs.size(), size_t{1});
    QCOMPARE(runs[0].label, QStringLiteral("tiny sweep"));
    QCOMPARE(runs[0].state, RunState::complete);
    QCOMPARE(runs[0].configurations, 2);
    QCOMPARE(runs[0].started_at, QStringLiteral("2026-11-21T12:00:00Z"));

    const auto record = history.load(run, &error);
    QVERIFY2(record.has_value(), qPrintable(error));
    QCOMPARE(record->environment.libtorch_version, std::string("LibTorch 1.13.1, CPU build"));
    QCOMPARE(record->entries.size(), size_t{2});
    QCOMPARE(record->entries[0].result.config.context, int64_t{32});
    QCOMPARE(record->entries[0].result.total.mean_ms, 400.0);
    QCOMPARE(record->entries[1].result.status, RunStatus::out_of_memory);
    QCOMPARE(record->entries[1].result.message, std::string("CUDA out of memory"));
    QVERIFY(record->entries[0].timeline);
    QCOMPARE(record->entries[0].timeline->points.at(0).allocated_bytes, int64_t{123456});
    QCOMPARE(record->entries[0].timeline->baseline_bytes, int64_t{4096});
  }

  void aRunCutShortStaysIncompleteWithWhatWasMeasured() {
    QTemporaryDir dir;
    const QString path = dir.filePath("h.sqlite");
    QString error;
    int64_t run = 0;
    {
      RunHistory history;
      QVERIFY(history.open(path, &error));
      run = history.begin_run(environment(), "interrupted", "cpu", &error);
      QVERIFY(history.add_entry(run, entry("tiny", 32, RunStatus::ok), &error));
      // The process ends here without finish_run.
    }
    RunHistory again;
    QVERIFY2(again.open(path, &error), qPrintable(error));
    const auto runs = again.runs();
    QCOMPARE(runs.size(), size_t{1});
    QCOMPARE(runs[0].state, RunState::incomplete);
    QCOMPARE(runs[0].configurations, 1);
    QVERIFY(again.load(run, &error).has_value());
  }

  // A run's configurations are written from the thread that measures them, with a connection
  // of its own, while the GUI's connection reads the history.
  void entriesWrittenFromTheMeasuringThreadAreReadBackWhole() {
    QTemporaryDir dir;
    RunHistory history;
    QString error;
    QVERIFY2(history.open(dir.filePath("h.sqlite"), &error), qPrintable(error));
    const int64_t run = history.begin_run(environment(), "from a worker", "cpu", &error);
    QVERIFY2(run > 0, qPrintable(error));
    bool added_first = false, added_second = false;
    QString worker_error;
    std::thread worker([&] {
      RunWriter writer({history.path(), run});
      added_first = writer.add(entry("tiny", 32, RunStatus::ok), &worker_error);
      added_second = writer.add(entry("tiny", 64, RunStatus::out_of_memory), &worker_error) &&
                     writer.finish(ended_state(false, true), &worker_error);
    });
    worker.join();
    QVERIFY2(added_first && added_second, qPrintable(worker_error));
    QCOMPARE(history.runs().at(0).configurations, 2);
    QCOMPARE(history.runs().at(0).state, RunState::cancelled);
    const auto record = history.load(run, &error);
    QVERIFY2(record.has_value(), qPrintable(error));
    QCOMPARE(record->entries.at(0).result.total.mean_ms, 400.0);
    QCOMPARE(record->entries.at(1).result.status, RunStatus::out_of_memory);
    QCOMPARE(record->entries.at(0).timeline->points.at(0).allocated_bytes, int64_t{123456});
  }

  void aWriterThatCannotReachItsHistorySaysWhy() {
    QTemporaryDir dir;
    RunWriter writer({dir.filePath("no such folder/h.sqlite"), 1});
    QString error;
    QVERIFY(!writer.add(entry("tiny", 32, RunStatus::ok), &error));
    QVERIFY2(error.contains("no such folder"), qPrintable(error));
  }

  // A history today's version wrote before inputs were kept (one run of each experiment, opened
  // from the CLI's --json files): every run reads back, with the inputs its command line gives.
  void aHistoryOfTheVersionBeforeInputsOpensWithThem() {
    QTemporaryDir dir;
    const QString copy = dir.filePath("history_v2.sqlite");  // opening may upgrade: never the fixture
    QVERIFY(QFile::copy(QStringLiteral(STEPSCOPE_TEST_DATA_DIR "/records_v2/history_v2.sqlite"), copy));
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
    RunHistory history;
    QString error;
    QVERIFY2(history.open(copy, &error), qPrintable(error));
    const auto runs = history.runs();
    QCOMPARE(runs.size(), size_t{6});
    QStringList experiments;
    for (const auto& run : runs) {
      const auto record = history.load(run.id, &error);
      QVERIFY2(record.has_value(), qPrintable(error));
      QVERIFY(!record->tables.empty() || !record->entries.empty());
      const auto recorded = cli::recorded_inputs(*record);
      QVERIFY2(recorded.has_value(), qPrintable(run.label));
      experiments << QString::fromStdString(recorded->experiment->id);
    }
    experiments.sort();
    QCOMPARE(experiments, QStringList({"attention", "bench", "collectives", "ddp", "precision.accumulate",
                                       "precision.autocast"}));
  }

  // Opening a history of version 1 upgrades it in place: every run gets its digest (device and
  // key figures, configurations ran), the table experiments' runs included.
  void aVersion1HistoryIsUpgradedWithDigests() {
    QTemporaryDir dir;
    const QString copy = dir.filePath("history_v1.sqlite");
    QVERIFY(QFile::copy(QStringLiteral(STEPSCOPE_TEST_DATA_DIR "/records_v2/history_v2.sqlite"), copy));
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
    QString error;
    {
      RunHistory history;
      QVERIFY2(history.open(copy, &error), qPrintable(error));
      std::map<QString, RunSummary> by_label;
      for (const auto& run : history.runs()) by_label[run.label] = run;
      const RunSummary attention = by_label.at("opened from attention.json");
      QCOMPARE(attention.device, QStringLiteral("cpu"));
      QCOMPARE(attention.configurations, 2);
      QVERIFY(!attention.figures.empty());
      QCOMPARE(QString::fromStdString(attention.figures.front().label), QStringLiteral("Fwd+bwd"));
      QCOMPARE(by_label.at("opened from collectives.json").device, QStringLiteral("cpu"));
      QCOMPARE(by_label.at("opened from bench.json").configurations, 1);
      QVERIFY(!by_label.at("opened from bench.json").figures.empty());
    }
    {
      QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "peek");
      db.setDatabaseName(copy);
      QVERIFY(db.open());
      QSqlQuery query(db);
      QVERIFY(query.exec("SELECT value FROM meta WHERE key = 'version'") && query.next());
      QCOMPARE(query.value(0).toString(), QStringLiteral("2"));
      db.close();
    }
    QSqlDatabase::removeDatabase("peek");
    RunHistory again;  // the upgraded file opens as it is
    QVERIFY2(again.open(copy, &error), qPrintable(error));
    QCOMPARE(again.runs().size(), size_t{6});
  }

  // A table experiment cancelled after 6 of its 16 configurations is kept as cancelled, 6 of 16,
  // with its rows, device and key figure.
  void aCancelledTableRunIsKeptAsCancelledWithWhatRan() {
    QTemporaryDir dir;
    RunHistory history;
    QString error;
    QVERIFY(history.open(dir.filePath("h.sqlite"), &error));
    gui::LabRun lab(history);
    QSignalSpy finished(&lab, &gui::LabRun::finished);
    const auto cancelled_after_six = [](ProgressSink*, const CancelFlag*, const gui::LabRun::TablePublisher&) {
      ExperimentOutcome outcome;
      outcome.status = RunStatus::cancelled;
      outcome.message = "6 of 16 configuration(s) written";
      outcome.tables = {attention_table(6)};
      outcome.configurations = 16;
      return outcome;
    };
    lab.start("attention: 16 configurations on cuda:0", cancelled_after_six, {"attention", {{"device", "cuda:0"}}});
    QVERIFY(finished.wait(10000));
    const auto runs = history.runs();
    QCOMPARE(runs.size(), size_t{1});
    QCOMPARE(runs[0].state, RunState::cancelled);
    QCOMPARE(runs[0].configurations, 6);
    QCOMPARE(runs[0].planned, 16);
    QCOMPARE(runs[0].device, QStringLiteral("cuda:0"));
    QCOMPARE(runs[0].figures.size(), size_t{1});
    QCOMPARE(runs[0].figures[0].low, 1.5);
    QCOMPARE(runs[0].figures[0].high, 9.0);
    const auto record = history.load(runs[0].id, &error);
    QCOMPARE(record->tables.at(0).rows.size(), size_t{6});
    // Saved to a file and opened elsewhere, it is still cancelled, 6 of 16.
    QVERIFY(record->outcome == (RunEnding{RunStatus::cancelled, 16}));
    RunHistory elsewhere;
    QVERIFY(elsewhere.open(dir.filePath("elsewhere.sqlite"), &error));
    QVERIFY(elsewhere.import_record(read_run_record(write_run_record(*record)), "opened from a file", &error) > 0);
    QCOMPARE(elsewhere.runs().at(0).state, RunState::cancelled);
    QCOMPARE(elsewhere.runs().at(0).planned, 16);
  }

  // A step-benchmark sweep written as it goes: its line counts the configurations of those asked.
  void aBenchRunCountsWhatRanOfWhatWasAsked() {
    QTemporaryDir dir;
    RunHistory history;
    QString error;
    QVERIFY(history.open(dir.filePath("h.sqlite"), &error));
    const int64_t run = history.begin_run(environment(), "sweep", "cpu", &error, {"bench", {}}, 4);
    RunWriter writer({history.path(), run});
    QVERIFY2(writer.add(entry("tiny", 32, RunStatus::ok), &error), qPrintable(error));
    QVERIFY(writer.finish(RunState::cancelled, &error));
    const auto summary = history.runs().at(0);
    QCOMPARE(summary.configurations, 1);
    QCOMPARE(summary.planned, 4);
    QCOMPARE(summary.state, RunState::cancelled);
    QCOMPARE(QString::fromStdString(summary.figures.at(0).label), QStringLiteral("Step"));
    QCOMPARE(summary.figures.at(0).low, 400.0);
  }

  void filterAndDelete() {
    QTemporaryDir dir;
    RunHistory history;
    QString error;
    QVERIFY(history.open(dir.filePath("h.sqlite"), &error));
    const int64_t a = history.begin_run(environment(), "small ctx 256", "cuda:0", &error);
    const int64_t b = history.begin_run(environment(), "tiny ctx 32", "cpu", &error);
    QVERIFY(history.finish_run(b, RunState::cancelled, &error));
    QCOMPARE(history.runs("small").size(), size_t{1});
    QCOMPARE(history.runs("cancelled").front().id, b);
    QCOMPARE(history.runs().front().id, b);  // newest first
    QVERIFY(history.remove(a, &error));
    QCOMPARE(history.runs().size(), size_t{1});
    QVERIFY(!history.load(a, &error).has_value());
    QVERIFY2(error.contains("not in the history"), qPrintable(error));
  }

  void importsARunFile() {
    QTemporaryDir dir;
    RunHistory history;
    QString error;
    QVERIFY(history.open(dir.filePath("h.sqlite"), &error));
    RunRecord record{environment(), {entry("mini", 128, RunStatus::ok)}};
    const int64_t run = history.import_record(record, "from a colleague", &error);
    QVERIFY2(run > 0, qPrintable(error));
    QCOMPARE(history.load(run, &error)->entries.front().result.config.model.name, std::string("mini"));
  }

  void refusesCorruptAndForeignFiles() {
    QTemporaryDir dir;
    QString error;
    {
      QFile garbage(dir.filePath("garbage.sqlite"));
      QVERIFY(garbage.open(QIODevice::WriteOnly));
      garbage.write(QByteArray(4096, 'x'));
    }
    RunHistory history;
    QVERIFY(!history.open(dir.filePath("garbage.sqlite"), &error));
    QVERIFY2(error.contains("not a Stepscope run history"), qPrintable(error));
    QVERIFY(!history.is_open());

    {  // another program's SQLite database
      QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "foreign");
      db.setDatabaseName(dir.filePath("foreign.sqlite"));
      QVERIFY(db.open());
      QSqlQuery(db).exec("CREATE TABLE songs (title TEXT)");
      db.close();
    }
    QSqlDatabase::removeDatabase("foreign");
    QVERIFY(!history.open(dir.filePath("foreign.sqlite"), &error));
    QVERIFY2(error.contains("no Stepscope metadata"), qPrintable(error));

    {  // a history written by a newer Stepscope
      RunHistory newer;
      QVERIFY(newer.open(dir.filePath("newer.sqlite"), &error));
    }
    {
      QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "bump");
      db.setDatabaseName(dir.filePath("newer.sqlite"));
      QVERIFY(db.open());
      QVERIFY(QSqlQuery(db).exec("UPDATE meta SET value = '99' WHERE key = 'version'"));
      db.close();
    }
    QSqlDatabase::removeDatabase("bump");
    QVERIFY(!history.open(dir.filePath("newer.sqlite"), &error));
    QVERIFY2(error.contains("version 99"), qPrintable(error));
  }

  // Every path that stores a run asks why_closed() first, so none can go unkept silently.
  void saysWhyItCannotKeepRuns() {
    QTemporaryDir dir;
    RunHistory history;
    QCOMPARE(history.why_closed(), QString("no history was opened"));
    QString error;
    QVERIFY(!history.open(dir.path(), &error));  // a folder
    QCOMPARE(history.why_closed(), error);
    QVERIFY2(error.contains(dir.path()), qPrintable(error));
    QVERIFY(history.open(dir.filePath("h.sqlite"), &error));
    QCOMPARE(history.why_closed(), QString());
  }

  // Another connection holds the write lock: the import fails (after SQLite's busy timeout),
  // says so, and leaves no run behind.
  void anImportIntoALockedHistorySaysSoAndLeavesNothing() {
    QTemporaryDir dir;
    RunHistory history;
    QString error;
    QVERIFY(history.open(dir.filePath("h.sqlite"), &error));
    {
      QSqlDatabase locker = QSqlDatabase::addDatabase("QSQLITE", "locker");
      locker.setDatabaseName(dir.filePath("h.sqlite"));
      QVERIFY(locker.open());
      QVERIFY(QSqlQuery(locker).exec("BEGIN EXCLUSIVE"));
      QCOMPARE(history.import_record(RunRecord{environment(), {entry("tiny", 32, RunStatus::ok)}, {}}, "file", &error),
               int64_t{0});
      QVERIFY2(error.contains("locked"), qPrintable(error));
      QVERIFY(QSqlQuery(locker).exec("COMMIT"));
      locker.close();
    }
    QSqlDatabase::removeDatabase("locker");
    QVERIFY(history.runs().empty());
  }
};

QTEST_GUILESS_MAIN(RunHistoryTest)
#include "test_run_history.moc"
