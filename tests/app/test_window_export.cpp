// The window's own writes follow the command line's rules: File > Export checks every target
// before the first file and refuses a read-only one by name, leaving the folder as it was; a
// screenshot never replaces a read-only file; an opened run file the history cannot keep is
// said to be unkept in the window.
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "gui/main_window.h"

using namespace stepscope;

namespace {

void write_read_only(const QString& path, const QByteArray& text) {
  QFile file(path);
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write(text);
  file.close();
  QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther));
}

QByteArray contents(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

}  // namespace

class WindowExportTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }  // not the user's window layout

  void exportRefusesAReadOnlyTargetBeforeWritingAnything() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    const QString out = dir.filePath("export");
    QVERIFY(QDir().mkpath(out));
    write_read_only(QDir(out).filePath("sweep.csv"), "kept\n");
    QString error;
    QVERIFY(!window.check_export(out, false, &error));
    QVERIFY(!window.export_all(out, &error));
    QVERIFY2(error.contains(QDir(out).filePath("sweep.csv") + ": the file is read-only"), qPrintable(error));
    QCOMPARE(QDir(out).entryList(QDir::Files), QStringList{"sweep.csv"});  // nothing half exported
    QCOMPARE(contents(QDir(out).filePath("sweep.csv")), QByteArray("kept\n"));
    QCOMPARE(QFile(QDir(out).filePath("sweep.csv")).permissions() & QFileDevice::WriteOwner, QFileDevice::Permissions());
    // The window screenshots of --export are checked with them.
    QVERIFY(QFile::remove(QDir(out).filePath("sweep.csv")));
    write_read_only(QDir(out).filePath("window_memory.png"), "kept\n");
    QVERIFY(window.check_export(out, false, &error));
    QVERIFY(!window.check_export(out, true, &error));
    QVERIFY2(error.contains("window_memory.png: the file is read-only"), qPrintable(error));
    QVERIFY(!window.save_tab_screenshots(out, &error));
    QCOMPARE(contents(QDir(out).filePath("window_memory.png")), QByteArray("kept\n"));
  }

  // File > Export writes what was measured and says so; nothing of an experiment not run.
  void exportSkipsWhatWasNotMeasuredAndSaysWhatItWrote() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    QString error;
    gui::ExportReport report;
    QVERIFY2(window.export_all(dir.filePath("empty"), &error, &report), qPrintable(error));
    // Only the Planner's plan, which is planned from its form: no header-only CSV, no empty PNG.
    QCOMPARE(QDir(dir.filePath("empty")).entryList(QDir::Files), QStringList{"plan.csv"});
    QCOMPARE(report.written, QStringList{QDir(dir.filePath("empty")).filePath("plan.csv")});
    QVERIFY2(report.skipped.contains("Benchmark") && report.skipped.contains("Memory"), qPrintable(report.skipped.join(", ")));
    QVERIFY2(gui::export_summary(report, "OUT").startsWith("Wrote 1 file into OUT: plan.csv\nSkipped (nothing measured): Benchmark"),
             qPrintable(gui::export_summary(report, "OUT")));

    QProcess cli;
    cli.start(STEPSCOPE_CLI_PATH, {"bench", "--model", "tiny", "--context", "16", "--batch", "1", "--warmup", "0",
                                   "--steps", "1", "--mode", "forward", "--quiet", "--json", dir.filePath("run.json")});
    QVERIFY(cli.waitForFinished(120000));
    QCOMPARE(cli.exitCode(), 0);
    QVERIFY2(window.open_run_file(dir.filePath("run.json"), &error), qPrintable(error));
    const QString out = dir.filePath("export");
    QVERIFY2(window.export_all(out, &error, &report), qPrintable(error));
    const QStringList files = QDir(out).entryList(QDir::Files);
    QVERIFY2(files.contains("benchmark.csv") && files.contains("benchmark_phases.png"), qPrintable(files.join(' ')));
    QVERIFY2(!files.contains("attention.csv") && !files.contains("attention_time.png") &&
                 !files.contains("communication_busbw.png"),
             qPrintable(files.join(' ')));
    QCOMPARE(report.written.size(), files.size());
    QVERIFY2(report.skipped.contains("Attention") && report.skipped.contains("Collectives") && !report.skipped.contains("Benchmark"),
             qPrintable(report.skipped.join(", ")));
    const QString summary = gui::export_summary(report, out);
    QVERIFY2(summary.startsWith(QStringLiteral("Wrote %1 files into %2: ").arg(files.size()).arg(out)), qPrintable(summary));
    QVERIFY2(summary.contains("benchmark.csv") && summary.contains("Skipped (nothing measured): ") &&
                 summary.contains("Attention"),
             qPrintable(summary));
  }

  void screenshotNeverReplacesAReadOnlyFile() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    window.resize(640, 400);
    const QString path = dir.filePath("window.png");
    write_read_only(path, "kept\n");
    QString error;
    QVERIFY(!window.save_screenshot(path, &error));
    QVERIFY2(error.contains("read-only"), qPrintable(error));
    QCOMPARE(contents(path), QByteArray("kept\n"));
    QVERIFY2(window.save_screenshot(dir.filePath("fresh.png"), &error), qPrintable(error));
    QCOMPARE(contents(dir.filePath("fresh.png")).left(4), QByteArray("\x89PNG"));
  }

  void anOpenedFileTheHistoryCannotKeepIsSaidUnkept() {
    QTemporaryDir dir;
    QFile corrupt(dir.filePath("corrupt.sqlite"));
    QVERIFY(corrupt.open(QIODevice::WriteOnly));
    corrupt.write("this is not a database");
    corrupt.close();
    // A run file: an empty record of the current format.
    QFile run(dir.filePath("run.json"));
    QVERIFY(run.open(QIODevice::WriteOnly));
    run.write(R"({"format": "stepscope-run", "version": 2, "environment": {"stepscope_version": "0", )"
              R"("libtorch_version": "", "command_line": "", "started_at": ""}, "entries": [], "tables": []})");
    run.close();
    gui::MainWindow window(corrupt.fileName());
    QString error;
    QVERIFY2(window.open_run_file(run.fileName(), &error), qPrintable(error));
    auto* status = window.findChild<QLabel*>("statusText");
    QVERIFY(status);
    QVERIFY2(status->text().contains("not kept in the history: " + corrupt.fileName() + " is not a Stepscope run history"),
             qPrintable(status->text()));
  }
};

QTEST_MAIN(WindowExportTest)
#include "test_window_export.moc"
