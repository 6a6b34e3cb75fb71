// The Precision tab: the tables a run record holds, matched to the schema's columns by key;
// the plain-language readings; the export names; its buttons ask for runs.
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include "experiments/precision/precision_schema.h"
#include "export/table_export.h"
#include "model_fixtures.h"
#include "models/schema_table_model.h"
#include "widgets/precision_view.h"

using namespace stepscope;
using namespace stepscope::views;

namespace {

schema::Table accumulation_table() {
  precision::AccumulationCase fp32{"fp32+=fp32", "float32", "float32", precision::AccumulationMethod::naive, 1000,
                                   0.01, 10.000133514404297, 10, 0.000133514404296875, "float32 rounds 0.01"};
  precision::AccumulationCase fp16{"fp16+=fp16", "float16", "float16", precision::AccumulationMethod::naive, 1000,
                                   0.01, 9.953125, 10, 0.046875, "float16 loses the low bits"};
  return precision::accumulation_schema().table({fp32, fp16});
}

schema::Table autocast_table() {
  using precision::TensorKind;
  return precision::autocast_schema().table({{"fc1.weight", TensorKind::parameter, "float32"},
                                             {"fc1 output", TensorKind::activation, "float16"},
                                             {"ln output", TensorKind::activation, "float32"},
                                             {"logits", TensorKind::logits, "float16"},
                                             {"loss", TensorKind::loss, "float32"},
                                             {"fc1.weight.grad", TensorKind::gradient, "float32"}});
}

}  // namespace

class PrecisionViewTest : public QObject {
  Q_OBJECT

 private slots:
  void showsARecordsTablesWithTheirReadings() {
    PrecisionView view;
    view.show_tables({autocast_table(), accumulation_table()});
    const auto& acc = view.accumulation_model();
    QCOMPARE(acc.rowCount(), 2);
    // Nine significant digits on screen and in files, as PyTorch prints a float32 in full.
    const int result = acc.table().column_index("result");
    QCOMPARE(fixtures::text(acc, 0, result), QStringLiteral("10.0001335"));
    QCOMPARE(acc.data(acc.index(1, result), CsvTextRole).toString(), QStringLiteral("9.953125"));
    QVERIFY2(view.accumulation_reading().contains("fp16+=fp16"), qPrintable(view.accumulation_reading()));
    QCOMPARE(view.autocast_model().rowCount(), 6);
    const QString reading = view.autocast_reading();
    QVERIFY2(reading.contains("Loss: float32") && reading.contains("ln output"), qPrintable(reading));
    view.clear();
    QCOMPARE(view.accumulation_model().rowCount(), 0);
    QVERIFY(view.autocast_reading().isEmpty());
  }

  void aStoredTableWithOtherColumnsIsMatchedByKey() {
    schema::Table stored = autocast_table();
    std::swap(stored.columns[0], stored.columns[2]);  // dtype first, tensor last
    for (auto& row : stored.rows) std::swap(row[0], row[2]);
    stored.columns[1].key = "category";  // a column this build does not know; "kind" is missing
    PrecisionView view;
    view.show_tables({stored});
    const auto& model = view.autocast_model();
    QCOMPARE(fixtures::text(model, 1, 0), QStringLiteral("fc1 output"));  // tensor
    QCOMPARE(fixtures::text(model, 1, 1), QStringLiteral("-"));           // kind: not in the file
    QCOMPARE(fixtures::text(model, 1, 2), QStringLiteral("float16"));     // dtype
  }

  void exportsBothTablesAsTheirSchemasWriteThem() {
    PrecisionView view;
    view.show_tables({accumulation_table()});
    const auto tables = view.tables();
    QCOMPARE(tables.size(), size_t{2});
    QCOMPARE(tables[0].name, QStringLiteral("precision_accumulation"));
    const QStringList lines = table_to_csv(*tables[0].model).split('\n');
    QCOMPARE(lines.at(0), QStringLiteral("case,accumulator,addend,method,additions,result,exact,abs_error,explanation"));
    QVERIFY2(lines.at(1).startsWith("fp32+=fp32,float32,float32,naive,1000,10.0001335,10,0.000133514404296875,"),
             qPrintable(lines.at(1)));
  }

  void buttonsAskForRuns() {
    PrecisionView view;
    view.set_devices({{"cpu", "CPU", -1}, {"cuda:0", "NVIDIA H100", 80LL << 30}});
    QSignalSpy accumulate(&view, &PrecisionView::accumulation_requested);
    QSignalSpy autocast(&view, &PrecisionView::autocast_requested);
    view.findChild<QPushButton*>("accumulateButton")->click();
    view.findChild<QPushButton*>("autocastButton")->click();
    QCOMPARE(accumulate.count(), 1);
    QCOMPARE(autocast.count(), 1);
    QCOMPARE(autocast.first().at(0).toString(), QStringLiteral("toy"));
    QCOMPARE(autocast.first().at(1).toString(), QStringLiteral("bf16"));
    QCOMPARE(autocast.first().at(2).toString(), QStringLiteral("cpu"));
    view.set_running(true);
    QVERIFY(!view.findChild<QPushButton*>("accumulateButton")->isEnabled());
  }
};

QTEST_MAIN(PrecisionViewTest)
#include "test_precision_view.moc"
