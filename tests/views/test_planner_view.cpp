// The Planner tab: the default form is the seeds' XXL and gives their numbers (the engine's
// test checks them by hand); a refused input frames its field and empties the plan; a custom
// edit makes the model custom; planned beside measured; the CSV tables' names and columns.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>

#include "export/table_export.h"
#include "models/roles.h"
#include "models/schema_table_model.h"
#include "planner/plan_descriptor.h"
#include "planner/plan_inputs.h"
#include "widgets/experiment_form.h"
#include "widgets/input_form.h"
#include "widgets/planner_view.h"
#include "widgets/run_outcome.h"

using namespace stepscope;
using namespace stepscope::views;

namespace {

// The exact value of column `key` in the row whose quantity is `quantity`, as the CSV writes it.
QString csv_cell(const SchemaTableModel& model, const QString& quantity, const char* key) {
  const int column = model.table().column_index(key);
  for (int row = 0; row < model.rowCount(); ++row) {
    if (model.data(model.index(row, 0), CsvTextRole).toString() == quantity) {
      return model.data(model.index(row, column), CsvTextRole).toString();
    }
  }
  return QStringLiteral("(no row %1)").arg(quantity);
}

const ExperimentDescriptor& plan() {
  static const ExperimentDescriptor d = planner::plan_descriptor();
  return d;
}

QLineEdit* line(PlannerView& view, const char* key) {
  return qobject_cast<QLineEdit*>(view.form().form()->field(key));
}
QComboBox* model_field(PlannerView& view) { return qobject_cast<QComboBox*>(view.form().form()->field("model")); }
QCheckBox* zero1_field(PlannerView& view) { return qobject_cast<QCheckBox*>(view.form().form()->field("zero1")); }

bool framed(PlannerView& view, const char* key) {
  return view.form().form()->field(key)->property("invalid").toBool();
}

}  // namespace

class PlannerViewTest : public QObject {
  Q_OBJECT

 private slots:
  void theDefaultFormIsTheSeedsXxl() {
    PlannerView view(plan());
    QCOMPARE(model_field(view)->currentData().toString(), QStringLiteral("xxl-ffn"));
    QVERIFY(view.plan().has_value());
    const auto& model = view.plan_model();
    QCOMPARE(csv_cell(model, "parameters", "value"), QStringLiteral("219848638464"));
    QCOMPARE(csv_cell(model, "master_weights", "bytes"), QStringLiteral("879394553856"));
    QCOMPARE(csv_cell(model, "optimizer_state", "bytes"), QStringLiteral("1758789107712"));
    QCOMPARE(csv_cell(model, "activations_per_token", "bytes"), QStringLiteral("17547264"));
    QCOMPARE(csv_cell(model, "devices_80gib", "value"), QStringLiteral("41"));
    QCOMPARE(csv_cell(model, "devices_80gb", "value"), QStringLiteral("44"));
    QCOMPARE(csv_cell(model, "fsdp_to_fit", "value"), QStringLiteral("38"));
    QCOMPARE(csv_cell(model, "scaling_book_per_device_batch", "value"), QStringLiteral("396"));
    QCOMPARE(csv_cell(model, "scaling_book_global_batch", "value"), QStringLiteral("25344"));
    // Counts read as counts on screen too.
    const int value = model.table().column_index("value");
    for (int row = 0; row < model.rowCount(); ++row) {
      if (model.data(model.index(row, 0), CsvTextRole).toString() == "devices_80gib") {
        QCOMPARE(model.data(model.index(row, value)).toString(), QStringLiteral("41"));
      }
    }
    // The formulas show with their values.
    QCOMPARE(csv_cell(model, "master_weights", "formula"),
             QStringLiteral("master weights = 4 B (fp32) x 2.20e11 params = 879 GB"));
    QVERIFY(model.shown_by_default(model.table().column_index("formula")));
  }

  void aLayoutAndDeviceRecomputeAsTyped() {
    PlannerView view(plan());
    QSignalSpy changed(&view, &PlannerView::plan_changed);
    line(view, "device-memory")->setText(QStringLiteral("95GiB"));
    QCOMPARE(csv_cell(view.plan_model(), "fsdp_to_fit", "value"), QStringLiteral("35"));  // the seeds' "n > 34"
    line(view, "fsdp")->setText(QStringLiteral("8"));
    QCOMPARE(csv_cell(view.plan_model(), "master_weights", "bytes"), QStringLiteral("109924319232"));
    // ZeRO-1 over 2 DP ranks halves the optimizer state again, nothing else.
    line(view, "dp")->setText(QStringLiteral("2"));
    zero1_field(view)->setChecked(true);
    QCOMPARE(csv_cell(view.plan_model(), "optimizer_state", "bytes"), QStringLiteral("109924319232"));
    QCOMPARE(csv_cell(view.plan_model(), "master_weights", "bytes"), QStringLiteral("109924319232"));
    QVERIFY(changed.count() >= 4);
  }

  void badInputFramesItsFieldAndEmptiesThePlan() {
    PlannerView view(plan());
    line(view, "fsdp")->setText(QStringLiteral("0"));
    QVERIFY(!view.plan().has_value());
    QCOMPARE(view.plan_model().rowCount(), 0);
    QVERIFY(framed(view, "fsdp"));
    QVERIFY2(view.form().error_text().contains("FSDP"), qPrintable(view.form().error_text()));
    line(view, "fsdp")->setText(QStringLiteral("1"));
    QVERIFY(!framed(view, "fsdp"));
    QVERIFY(view.plan().has_value());

    line(view, "batch")->setText(QStringLiteral("four"));
    QVERIFY(framed(view, "batch"));
    QVERIFY2(view.form().error_text().contains("'four'"), qPrintable(view.form().error_text()));
    line(view, "batch")->setText(QStringLiteral("1"));

    for (const auto& [key, text] : {std::pair{"device-memory", "lots"}, {"activation-fraction", "2"},
                                    {"w-ici", "-1"}, {"y", "0"}, {"context", "0"}}) {
      const QString before = line(view, key)->text();
      line(view, key)->setText(QString::fromLatin1(text));
      QVERIFY2(framed(view, key), key);
      QVERIFY2(!view.plan().has_value(), key);
      line(view, key)->setText(before);
      QVERIFY2(!framed(view, key), key);
    }
  }

  void editingTheShapeMakesACustomModel() {
    PlannerView view(plan());
    model_field(view)->setCurrentIndex(model_field(view)->findData(QStringLiteral("small")));
    // The preset's shape shows in the empty shape fields: what typing one changes.
    QCOMPARE(line(view, "d-model")->placeholderText(), QStringLiteral("768"));
    QLineEdit* heads = line(view, "heads");
    QTest::keyClicks(heads, QStringLiteral("7"));  // 768 is not divisible by 7
    QVERIFY(framed(view, "heads"));
    QVERIFY(!view.plan().has_value());
    heads->clear();
    QTest::keyClicks(heads, QStringLiteral("12"));
    QVERIFY(view.plan().has_value());
    QCOMPARE(QString::fromStdString(view.plan()->request.model.name), QStringLiteral("custom"));
    QCOMPARE(view.plan()->memory.parameters, parameter_count(model_preset("small")));
  }

  void plannedBesideMeasured() {
    PlannerView view(plan());
    schema::InputValues values(planner::plan_inputs());
    values.set("model", "tiny");
    values.set("batch", "4");
    values.set("context", "256");
    view.form().set_values(values);
    QCOMPARE(model_field(view)->currentData().toString(), QStringLiteral("tiny"));
    QVERIFY(view.plan().has_value());
    const double p = static_cast<double>(parameter_count(model_preset("tiny")));
    view.show_measured(4 * p + 512, 4 * p, 8 * p, QStringLiteral("tiny ctx 256 b 4 fp32 train"));
    const auto& measured = view.measured_model();
    QCOMPARE(measured.rowCount(), 3);
    QCOMPARE(csv_cell(measured, "master_weights", "difference_bytes"), QStringLiteral("512"));
    QCOMPARE(csv_cell(measured, "gradients", "difference_bytes"), QStringLiteral("0"));
    QVERIFY(view.measured_caption().contains("tiny ctx 256"));
    // A new layout compares again: the planned side halves, the measured stays.
    line(view, "fsdp")->setText(QStringLiteral("2"));
    QCOMPARE(csv_cell(measured, "gradients", "planned_bytes"), QString::number(static_cast<qlonglong>(2 * p)));
    view.clear();
    QCOMPARE(view.measured_model().rowCount(), 0);
    QCOMPARE(view.plan_model().rowCount(), 13);  // the plan stays (no DDP row without a measured all-reduce)
  }

  void aProfiledRunFillsTheFormAndTheMeasuredSide() {
    PlannerView view(plan());
    const double p = static_cast<double>(parameter_count(model_preset("tiny")));
    auto result = std::make_shared<BenchResult>();
    result->config.model = model_preset("tiny");
    result->config.batch = 2;
    result->config.context = 16;
    result->config.mode = StepMode::train;
    auto timeline = std::make_shared<profiling::MemoryTimeline>();
    // Each category's highest point counts, whichever point it is on.
    profiling::MemoryPoint before, after;
    before.bytes_by_category[profiling::category_index(profiling::MemoryCategory::parameter)] = int64_t(4 * p);
    before.bytes_by_category[profiling::category_index(profiling::MemoryCategory::gradient)] = int64_t(4 * p);
    after.bytes_by_category[profiling::category_index(profiling::MemoryCategory::parameter)] = int64_t(4 * p);
    after.bytes_by_category[profiling::category_index(profiling::MemoryCategory::optimizer_state)] = int64_t(8 * p);
    timeline->points = {before, after};
    // The labelled tensors' own sizes: the blocks of the optimizer state hold 1024 bytes more;
    // gradients came without sizes.
    timeline->highest_tensor_bytes_by_category[profiling::category_index(profiling::MemoryCategory::parameter)] =
        int64_t(4 * p);
    timeline->highest_tensor_bytes_by_category[profiling::category_index(
        profiling::MemoryCategory::optimizer_state)] = int64_t(8 * p) - 1024;
    view.add_outcome(RunOutcome{result, timeline, nullptr});
    QCOMPARE(model_field(view)->currentData().toString(), QStringLiteral("tiny"));
    QCOMPARE(line(view, "batch")->text(), QStringLiteral("2"));
    QCOMPARE(line(view, "context")->text(), QStringLiteral("16"));
    const auto& measured = view.measured_model();
    QCOMPARE(measured.rowCount(), 3);
    for (const char* q : {"master_weights", "gradients", "optimizer_state"}) {
      QCOMPARE(csv_cell(measured, q, "difference_bytes"), QStringLiteral("0"));
    }
    QCOMPARE(csv_cell(measured, "master_weights", "allocator_rounding_bytes"), QStringLiteral("0"));
    QCOMPARE(csv_cell(measured, "optimizer_state", "allocator_rounding_bytes"), QStringLiteral("1024"));
    QCOMPARE(csv_cell(measured, "gradients", "allocator_rounding_bytes"), QString());
    QVERIFY(view.measured_caption().contains("tiny"));
    // A run without the memory profiler leaves the comparison alone.
    view.add_outcome(RunOutcome{result, nullptr, nullptr});
    QCOMPARE(measured.rowCount(), 3);
  }

  void exportsThePlanAndTheComparisonAsCsv() {
    PlannerView view(plan());
    view.show_measured(1, 2, 3);
    const auto tables = view.tables();
    QCOMPARE(tables.size(), size_t{2});
    QCOMPARE(tables[0].name, QStringLiteral("plan"));
    QCOMPARE(tables[1].name, QStringLiteral("plan_measured"));
    QStringList lines = table_to_csv(*tables[0].model).split('\n');
    QCOMPARE(lines.at(0), QStringLiteral("quantity,label,value,bytes,gb,gib,formula"));
    QVERIFY2(lines.at(1).startsWith("parameters,Parameters,219848638464,,,,"), qPrintable(lines.at(1)));
    lines = table_to_csv(*tables[1].model).split('\n');
    QCOMPARE(lines.at(0), QStringLiteral("quantity,planned_bytes,measured_bytes,difference_bytes,difference_percent,tensor_bytes,"
                                     "allocator_rounding_bytes,unexplained_bytes"));
    QVERIFY(view.charts().empty());
  }

  void aMeasuredAllReduceAddsTheBucketOptimum() {
    PlannerView view(plan());
    view.set_all_reduce(AllReduceFit{20e-6, 100e9, 4, 4});
    QCOMPARE(view.plan_model().rowCount(), 14);
    QVERIFY(csv_cell(view.plan_model(), "ddp_bucket_bytes", "formula").startsWith("n_b* = sqrt(s/(w*o))"));
    view.set_all_reduce(std::nullopt);
    QCOMPARE(view.plan_model().rowCount(), 13);
  }

  void aRecordsPlanTableShowsAsWritten() {
    planner::PlanRequest request;
    request.model = planner::plan_model("xl");
    const auto table = planner::plan_table(planner::make_plan(request));
    PlannerView view(plan());
    view.show_tables({table});
    QCOMPARE(csv_cell(view.plan_model(), "parameters", "value"), QStringLiteral("1998235200"));
  }
};

QTEST_MAIN(PlannerViewTest)
#include "test_planner_view.moc"
