// The application's writes follow the command line's output rules: a table's CSV export, a
// chart's PNG and any file through write_output_file refuse a read-only file (its content and
// mode kept), a folder, a dangling link; a writable file is replaced whole.
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFile>
#include <QLineSeries>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>

#include "charts/chart_export.h"
#include "export/file_output.h"
#include "export/table_export.h"

using namespace stepscope::views;

namespace {

QString write(const QString& path, const QByteArray& text) {
  QFile file(path);
  if (file.open(QIODevice::WriteOnly)) file.write(text);
  return path;
}

QByteArray contents(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

const QFileDevice::Permissions kReadOnly = QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther;

}  // namespace

class FileOutputTest : public QObject {
  Q_OBJECT

 private slots:
  void readOnlyFilesAreRefusedAndKept() {
    QTemporaryDir dir;
    const QString path = write(dir.filePath("locked.csv"), "kept\n");
    QVERIFY(QFile::setPermissions(path, kReadOnly));
    QStandardItemModel model(1, 1);
    model.setHeaderData(0, Qt::Horizontal, "a");
    model.setData(model.index(0, 0), "1");
    auto* chart = new QChart;
    chart->addSeries(new QLineSeries);
    QChartView view(chart);
    view.resize(320, 200);
    QString error;
    QVERIFY(!check_output_file(path, &error));
    QVERIFY(!write_output_file(path, "new", &error));
    QVERIFY(!write_table_csv(model, path, &error));
    QVERIFY2(error == "cannot write " + path + ": the file is read-only", qPrintable(error));
    QVERIFY(!save_chart_png(view, path, &error));
    QVERIFY(!write_png_file(QImage(4, 4, QImage::Format_RGB32), path, &error));
    QCOMPARE(contents(path), QByteArray("kept\n"));
    QCOMPARE(QFile::permissions(path) & (kReadOnly | QFileDevice::WriteOwner), kReadOnly);  // mode 444 kept
  }

  void foldersAndDanglingLinksAreRefused() {
    QTemporaryDir dir;
    QString error;
    QVERIFY(!write_output_file(dir.path(), "x", &error));
    QVERIFY2(error.contains("is a folder, not a file"), qPrintable(error));
    QVERIFY(QFile::link(dir.filePath("missing.png"), dir.filePath("dangling.png")));
    QVERIFY(!check_output_file(dir.filePath("dangling.png"), &error));
    QVERIFY2(error.contains("symbolic link to a file that does not exist"), qPrintable(error));
    QVERIFY(!QFile::exists(dir.filePath("missing.png")));
  }

  void aWritableFileIsReplacedWhole() {
    QTemporaryDir dir;
    const QString path = write(dir.filePath("table.csv"), "old\n");
    QStandardItemModel model(1, 1);
    model.setHeaderData(0, Qt::Horizontal, "a");
    model.setData(model.index(0, 0), "1");
    QString error;
    QVERIFY2(write_table_csv(model, path, &error), qPrintable(error));
    QCOMPARE(contents(path), QByteArray("a\n1\n"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"table.csv"});  // no temporary left
  }

  void exportFoldersAreCheckedUpToTheFirstThatExists() {
    QTemporaryDir dir;
    QString error;
    QVERIFY2(check_output_folder(dir.filePath("new/deeper"), &error), qPrintable(error));
    const QString file = write(dir.filePath("file"), "x");
    QVERIFY(!check_output_folder(dir.filePath("file/out"), &error));
    QVERIFY2(error.endsWith(file + " is not a folder"), qPrintable(error));
    QVERIFY(!check_output_folder(file, &error));
  }
};

QTEST_MAIN(FileOutputTest)
#include "test_file_output.moc"
