// Table export: CSV quoting, exact values, and clipboard text of a selection.
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>

#include "export/table_export.h"
#include "models/roles.h"

using namespace stepscope::views;

class TableExportTest : public QObject {
  Q_OBJECT
 private:
  static void fill(QStandardItemModel& m) {
    m.setHorizontalHeaderLabels({"Name", "Time (ns)"});
    auto* name = new QStandardItem("void k<float, 2>(int)");
    auto* time = new QStandardItem("1.23 ms");
    time->setData(1234567.5, ExactValueRole);  // what the export writes
    m.appendRow({name, time});
    m.appendRow({new QStandardItem("say \"hi\""), new QStandardItem("7")});
  }

 private slots:
  void csvQuotesAndUsesExactValues() {
    QStandardItemModel m;
    fill(m);
    QCOMPARE(table_to_csv(m), QStringLiteral("Name,Time (ns)\n\"void k<float, 2>(int)\",1234567.5\n"
                                             "\"say \"\"hi\"\"\",7\n"));
  }
  void writesAFileAndReportsAnUnwritableOne() {
    QStandardItemModel m;
    fill(m);
    QTemporaryDir dir;
    QString error;
    QVERIFY(write_table_csv(m, dir.filePath("t.csv"), &error));
    QFile f(dir.filePath("t.csv"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(f.readAll()), table_to_csv(m));
    QVERIFY(!write_table_csv(m, dir.filePath("no/such/dir/t.csv"), &error));
    QVERIFY2(error.contains("no/such/dir"), qPrintable(error));
  }
  void selectionBecomesTabSeparatedRowsWithHeader() {
    QStandardItemModel m;
    fill(m);
    const QModelIndexList selected{m.index(1, 1), m.index(0, 1), m.index(1, 0)};
    QCOMPARE(selection_to_tsv(m, selected), QStringLiteral("Name\tTime (ns)\n\t1.23 ms\nsay \"hi\"\t7\n"));
    QVERIFY(selection_to_tsv(m, {}).isEmpty());
  }
};

QTEST_MAIN(TableExportTest)
#include "test_table_export.moc"
