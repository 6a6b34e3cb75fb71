// The tab every experiment gets from its descriptor (shown with the precision lab's two): the
// tables a run record holds, matched to the schema's columns by key; the plain-language
// reading; the export names; the form checked as typed and together; Run and Cancel.
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include "experiments/precision/precision_schema.h"
#include "export/table_export.h"
#include "model_fixtures.h"
#include "models/schema_table_model.h"
#include "core/config_error.h"
#include "experiments/precision/precision_inputs.h"
#include "widgets/experiment_view.h"
#include "widgets/input_form.h"

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

// The precision lab's two experiments as the app declares them, with a check of the inputs
// together that the test controls (the engine's needs LibTorch, which views do not link).
ExperimentDescriptor accumulate() {
  ExperimentDescriptor d;
  d.id = "precision.accumulate";
  d.name = "Accumulation";
  d.inputs = &precision::accumulate_inputs();
  d.tables = {precision::accumulation_schema().table({})};
  d.reading = [](const std::vector<schema::Table>& t) { return precision::accumulation_reading(t.front()); };
  return d;
}

ExperimentDescriptor autocast() {
  ExperimentDescriptor d;
  d.id = "precision.autocast";
  d.name = "Autocast dtypes";
  d.inputs = &precision::autocast_inputs();
  d.tables = {precision::autocast_schema().table({})};
  d.reading = [](const std::vector<schema::Table>& t) { return precision::autocast_reading(t.front()); };
  d.check = [](const schema::InputValues& v) {
    if (v.integer("batch") > 64) throw ConfigError("batch 65 and more does not fit here", "batch");
  };
  return d;
}

QPushButton* run_button(ExperimentView& view) { return view.findChild<QPushButton*>("run"); }

}  // namespace

class ExperimentViewTest : public QObject {
  Q_OBJECT

 private slots:
  void showsARecordsTablesWithTheirReadings() {
    const ExperimentDescriptor acc_d = accumulate(), auto_d = autocast();
    ExperimentView accumulation(acc_d), dtypes(auto_d);
    for (auto* view : {&accumulation, &dtypes}) view->show_tables({autocast_table(), accumulation_table()});
    const auto& acc = accumulation.table_model(0);
    QCOMPARE(acc.rowCount(), 2);
    // Nine significant digits on screen and in files, as PyTorch prints a float32 in full.
    const int result = acc.table().column_index("result");
    QCOMPARE(fixtures::text(acc, 0, result), QStringLiteral("10.0001335"));
    QCOMPARE(acc.data(acc.index(1, result), CsvTextRole).toString(), QStringLiteral("9.953125"));
    QVERIFY2(accumulation.reading().contains("fp16+=fp16"), qPrintable(accumulation.reading()));
    QCOMPARE(dtypes.table_model(0).rowCount(), 6);
    QVERIFY2(dtypes.reading().contains("Loss: float32") && dtypes.reading().contains("ln output"),
             qPrintable(dtypes.reading()));
    accumulation.clear();
    QCOMPARE(accumulation.table_model(0).rowCount(), 0);
    QVERIFY(accumulation.reading().isEmpty());
  }

  void aStoredTableWithOtherColumnsIsMatchedByKey() {
    schema::Table stored = autocast_table();
    std::swap(stored.columns[0], stored.columns[2]);  // dtype first, tensor last
    for (auto& row : stored.rows) std::swap(row[0], row[2]);
    stored.columns[1].key = "category";  // a column this build does not know; "kind" is missing
    const ExperimentDescriptor d = autocast();
    ExperimentView view(d);
    view.show_tables({stored});
    const auto& model = view.table_model(0);
    QCOMPARE(fixtures::text(model, 1, 0), QStringLiteral("fc1 output"));  // tensor
    QCOMPARE(fixtures::text(model, 1, 1), QStringLiteral("-"));           // kind: not in the file
    QCOMPARE(fixtures::text(model, 1, 2), QStringLiteral("float16"));     // dtype
  }

  void exportsItsTablesAsTheirSchemasWriteThem() {
    const ExperimentDescriptor d = accumulate();
    ExperimentView view(d);
    view.show_tables({accumulation_table()});
    const auto tables = view.tables();
    QCOMPARE(tables.size(), size_t{1});
    QCOMPARE(tables[0].name, QStringLiteral("precision_accumulate"));
    const QStringList lines = table_to_csv(*tables[0].model).split('\n');
    QCOMPARE(lines.at(0), QStringLiteral("case,accumulator,addend,method,additions,result,exact,abs_error,explanation"));
    QVERIFY2(lines.at(1).startsWith("fp32+=fp32,float32,float32,naive,1000,10.0001335,10,0.000133514404296875,"),
             qPrintable(lines.at(1)));
  }

  void runAsksWithTheFormsValues() {
    const ExperimentDescriptor d = autocast();
    ExperimentView view(d);
    view.set_devices({{"cpu", "CPU", -1}, {"cuda:0", "NVIDIA H100", 80LL << 30}});
    QSignalSpy runs(&view, &ExperimentView::run_requested);
    run_button(view)->click();
    QCOMPARE(runs.count(), 1);
    const auto values = runs.first().at(0).value<schema::InputValues>();
    QVERIFY(values.given_values().empty());  // every input at its default
    QCOMPARE(QString::fromStdString(values.text("model")), QStringLiteral("toy"));
    QCOMPARE(QString::fromStdString(values.text("precision")), QStringLiteral("bf16"));
    QCOMPARE(QString::fromStdString(values.text("device")), QStringLiteral("cpu"));

    schema::InputValues asked(precision::autocast_inputs());
    asked.set("model", "tiny");
    asked.set("batch", "8");
    view.set_values(asked);
    QVERIFY(view.request_run());
    QCOMPARE(runs.count(), 2);
    QCOMPARE(runs.last().at(0).value<schema::InputValues>(), asked);

    view.set_running(true);
    QCOMPARE(run_button(view)->text(), QStringLiteral("Cancel"));
    QVERIFY(run_button(view)->isEnabled());
    QVERIFY(!view.form()->field("batch")->isEnabled());
    QSignalSpy cancels(&view, &ExperimentView::cancel_requested);
    run_button(view)->click();
    QCOMPARE(cancels.count(), 1);
    QCOMPARE(runs.count(), 2);
  }

  void inputsThatCannotRunTogetherFrameTheirFieldAndHoldRun() {
    const ExperimentDescriptor d = autocast();
    ExperimentView view(d);
    schema::InputValues too_big(precision::autocast_inputs());
    too_big.set("batch", "65");
    view.set_values(too_big);
    QVERIFY(!run_button(view)->isEnabled());
    QVERIFY(view.form()->field("batch")->property("invalid").toBool());
    QVERIFY2(view.form()->error_text().contains("does not fit here"), qPrintable(view.form()->error_text()));
    QSignalSpy runs(&view, &ExperimentView::run_requested);
    QSignalSpy refusals(&view, &ExperimentView::run_refused);
    QVERIFY(!view.request_run());
    QCOMPARE(runs.count(), 0);
    // Said under the form and to whoever drives the tab (the window's status bar).
    QCOMPARE(refusals.count(), 1);
    QCOMPARE(refusals.first().at(0).toString(), view.status_text());
    QVERIFY2(view.status_text().startsWith("Cannot run:") && view.status_text().contains("does not fit here"),
             qPrintable(view.status_text()));
    too_big.set("batch", "64");
    view.set_values(too_big);
    QVERIFY(run_button(view)->isEnabled());
    QVERIFY(!view.form()->field("batch")->property("invalid").toBool());
  }
};

QTEST_MAIN(ExperimentViewTest)
#include "test_experiment_view.moc"
