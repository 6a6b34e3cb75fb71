// The Attention tab: the experiment's generic tab (its form from the attention inputs, checked
// as typed and together, naming the field at fault) with the attention charts above its table.
// The charts draw time and memory against the sequence length on log-log axes with OOM marked;
// the table marks OOM rows; the reading gives the smallest OOM configuration's accounting.
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QLogValueAxis>

#include "charts/attention_chart_data.h"
#include "charts/chart_colors.h"
#include "charts/sweep_chart_view.h"
#include "core/config_error.h"
#include "experiments/attention/attention_inputs.h"
#include "experiments/attention/attention_reading.h"
#include "experiments/attention/attention_schema.h"
#include "experiments/attention/attention_sweep_spec.h"
#include "models/schema_table_model.h"
#include "widgets/attention_charts_view.h"
#include "widgets/experiment_view.h"
#include "widgets/input_form.h"

using namespace stepscope;
using namespace stepscope::views;

namespace {

AttentionResult row(AttentionImpl impl, int64_t seq, int64_t d, Precision precision, RunStatus status,
                    double ms = 0, int64_t mem = -1) {
  AttentionResult r;
  r.config.impl = impl;
  r.config.batch = 8;
  r.config.head_dim = d;
  r.config.seq = seq;
  r.config.precision = precision;
  r.status = status;
  if (status == RunStatus::ok) {
    r.forward.count = r.backward.count = r.forward_backward.count = 10;
    r.forward_backward.mean_ms = ms;
    r.memory_before_backward_bytes = mem;
  }
  return r;
}

constexpr int64_t kMiB = 1024 * 1024;

schema::Table sweep_table() {
  using I = AttentionImpl;
  const auto fp32 = Precision::fp32;
  return attention_schema().table({
      row(I::naive, 1024, 16, fp32, RunStatus::ok, 1.0, 40 * kMiB),
      row(I::flash, 1024, 16, fp32, RunStatus::ok, 2.0, 3 * kMiB),
      row(I::naive, 4096, 16, fp32, RunStatus::ok, 16.0, 600 * kMiB),
      row(I::flash, 4096, 16, fp32, RunStatus::ok, 20.0, 12 * kMiB),
      row(I::naive, 16384, 16, fp32, RunStatus::out_of_memory),
      row(I::flash, 16384, 16, fp32, RunStatus::ok, 300.0, 48 * kMiB),
      row(I::flash, 1024, 64, Precision::bf16, RunStatus::ok, 1.5, 2 * kMiB),
  });
}

// The attention sweep as the app declares it (engine/experiments/attention/attention_descriptor.cpp),
// with the check every build can make: the engine's also asks LibTorch whether it has sdpa,
// and views do not link LibTorch, so the test says whether this "build" has it.
ExperimentDescriptor attention(bool has_sdpa) {
  ExperimentDescriptor d;
  d.id = "attention";
  d.name = "Attention";
  d.inputs = &attention_inputs();
  d.tables = {attention_schema().table({})};
  d.check = [has_sdpa](const schema::InputValues& values) {
    const AttentionSweepSpec spec = attention_spec(values, has_sdpa);
    validate_rounds(spec);
    for (const AttentionConfig& c : expand(spec)) {
      validate(c);
      if (c.impl == AttentionImpl::sdpa && !has_sdpa) {
        throw ConfigError("sdpa needs LibTorch 2.0 or newer; this build has LibTorch 1.13.0 (use naive or flash)", "impl");
      }
    }
  };
  d.reading = [](const std::vector<schema::Table>& tables) { return attention_memory_reading(tables.front()); };
  return d;
}

QPushButton* run_button(const ExperimentView& view) { return view.findChild<QPushButton*>("run"); }
QLineEdit* line(const ExperimentView& view, const std::string& key) {
  return qobject_cast<QLineEdit*>(view.form()->field(key));
}
QCheckBox* box(const ExperimentView& view, const std::string& key, const std::string& choice) {
  return view.form()->field(key)->findChild<QCheckBox*>(QString::fromStdString(key + ":" + choice));
}
bool framed(const ExperimentView& view, const std::string& key) {
  return view.form()->field(key)->property("invalid").toBool();
}
void type_into(QLineEdit* field, const QString& text) {
  field->clear();
  QTest::keyClicks(field, text);
}
// The sweep the form holds, as the engine reads it.
AttentionSweepSpec spec_of(const ExperimentView& view) { return attention_spec(view.form()->values(), false); }

}  // namespace

class AttentionViewTest : public QObject {
  Q_OBJECT

 private slots:
  void chartDataHasALinePerImplementationOnLogAxes() {
    const auto data = build_attention_chart_data(sweep_table(), AttentionMeasure::forward_backward_time,
                                                 {16, QStringLiteral("fp32")});
    QVERIFY(data.log_x);
    QCOMPARE(data.lines.size(), size_t{2});
    QCOMPARE(data.lines[0].name, QStringLiteral("naive"));
    QCOMPARE(data.lines[1].name, QStringLiteral("flash"));
    QCOMPARE(data.lines[0].points, (QList<QPointF>{{1024, 1.0}, {4096, 16.0}}));
    QCOMPARE(data.lines[1].points, (QList<QPointF>{{1024, 2.0}, {4096, 20.0}, {16384, 300.0}}));
    QCOMPARE(data.failures.size(), size_t{1});
    QCOMPARE(data.failures[0].line, QStringLiteral("naive"));
    QCOMPARE(data.failures[0].x, 16384.0);
    QCOMPARE(data.failures[0].status, QStringLiteral("OOM"));
    QCOMPARE(data.x_min, 1024.0);
    QCOMPARE(data.x_max, 16384.0);
  }

  void memoryIsInMibAndAllRowsNameWhatVaries() {
    const auto data = build_attention_chart_data(sweep_table(), AttentionMeasure::memory_before_backward);
    QCOMPARE(data.y_title, QStringLiteral("memory (MiB)"));
    QCOMPARE(data.lines.size(), size_t{3});
    QCOMPARE(data.lines[0].name, QStringLiteral("naive d16 fp32"));
    QCOMPARE(data.lines[2].name, QStringLiteral("flash d64 bf16"));
    QCOMPARE(data.lines[0].points.front(), QPointF(1024, 40.0));
    QCOMPARE(attention_head_dims(sweep_table()), (std::vector<int64_t>{16, 64}));
    QCOMPARE(attention_precisions(sweep_table()), (std::vector<QString>{"fp32", "bf16"}));
  }

  void viewShowsTableChartsAndReading() {
    const ExperimentDescriptor d = attention(false);
    auto* charts = new AttentionChartsView;
    ExperimentView view(d, charts);
    view.show_tables({sweep_table()});
    const SchemaTableModel& model = view.table_model(0);
    QCOMPARE(model.rowCount(), 7);
    const int status = model.table().column_index("status");
    QCOMPARE(model.data(model.index(4, status), Qt::ForegroundRole).value<QColor>(), failure_color());
    QVERIFY(!model.data(model.index(0, status), Qt::ForegroundRole).isValid());
    // The charts got the table from the tab. Until someone picks, the first precision and its
    // largest head dim: d16 fp32 here.
    QCOMPARE(charts->table().rows.size(), size_t{7});
    QCOMPARE(charts->time_chart().chart()->series().size(), 2);
    QCOMPARE(charts->time_chart().data().lines[0].name, QStringLiteral("naive"));
    charts->set_chart_filter(0, QString());
    QCOMPARE(charts->time_chart().chart()->series().size(), 3);
    // Sequence length on a base-2 log axis, time on a log axis.
    for (QAbstractAxis* axis : charts->time_chart().chart()->series().value(0)->attachedAxes()) {
      auto* log_axis = qobject_cast<QLogValueAxis*>(axis);
      QVERIFY2(log_axis && log_axis->isVisible(), "both axes of the time chart are logarithmic");
    }
    charts->set_chart_filter(16, QStringLiteral("fp32"));
    QCOMPARE(charts->time_chart().chart()->series().size(), 2);
    QCOMPARE(charts->memory_chart().data().failures.size(), size_t{1});
    QVERIFY(charts->note().isEmpty());  // three lengths: the lines speak for themselves
    const QString reading = view.reading();
    QVERIFY2(reading.contains("naive b 8 h 1 d 16 seq 16384 fp32"), qPrintable(reading));
    QVERIFY2(reading.contains("b*h*s*d*e + b*h*s^2*e ="), qPrintable(reading));
    QVERIFY2(reading.contains("flash: s^"), qPrintable(reading));  // naive has two measured lengths, too few
    // Exported under the names they always had: the table once, both charts.
    const auto tables = view.tables();
    QCOMPARE(tables.size(), size_t{1});
    QCOMPARE(tables[0].name, QStringLiteral("attention"));
    const auto exported = view.charts();
    QCOMPARE(exported.size(), size_t{2});
    QCOMPARE(exported[0].name, QStringLiteral("attention_time"));
    QCOMPARE(exported[1].name, QStringLiteral("attention_memory"));
    view.clear();
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(view.reading().isEmpty());
    QVERIFY(charts->table().rows.empty());
    QCOMPARE(charts->time_chart().chart()->series().size(), 0);
    QVERIFY(!charts->note().isEmpty());
  }

  void chartsOfOneLengthSayWhyTheyAreBare() {
    AttentionChartsView charts;
    QVERIFY2(charts.note().contains("as a sweep runs"), qPrintable(charts.note()));  // empty, they say how to fill them
    charts.show_tables({attention_schema().table({row(AttentionImpl::naive, 16, 16, Precision::fp32, RunStatus::ok, 0.1, kMiB),
                                                  row(AttentionImpl::flash, 16, 16, Precision::fp32, RunStatus::ok, 0.2, kMiB)})});
    QCOMPARE(charts.time_chart().chart()->series().size(), 2);
    QVERIFY2(charts.note().contains("One sequence length (16)"), qPrintable(charts.note()));
    charts.show_tables({sweep_table()});
    QVERIFY(charts.note().isEmpty());
    // Another experiment's table is not its.
    schema::Table other = sweep_table();
    other.schema = "precision.accumulate";
    other.rows.resize(1);
    charts.show_tables({other});
    QCOMPARE(charts.table().rows.size(), size_t{7});
  }

  void formBuildsTheSweepAndNamesTheFieldAtFault() {
    const ExperimentDescriptor d = attention(false);
    ExperimentView view(d);
    view.set_devices({{"cpu", "CPU (2 threads)", -1}, {"cuda:0", "NVIDIA H100", 80LL << 30}});
    QSignalSpy requested(&view, &ExperimentView::run_requested);
    // The default implementations: naive and flash, and sdpa where this LibTorch has it (not here:
    // its box says why).
    QVERIFY(box(view, "impl", "naive")->isChecked());
    QVERIFY(box(view, "impl", "flash")->isChecked());
    QVERIFY(!box(view, "impl", "sdpa")->isChecked());
    QVERIFY2(box(view, "impl", "sdpa")->toolTip().contains("LibTorch 2.0"), qPrintable(box(view, "impl", "sdpa")->toolTip()));
    QVERIFY(!view.form()->values().given("impl"));  // the default, as the command line's
    QCOMPARE(spec_of(view).impls, (std::vector<AttentionImpl>{AttentionImpl::naive, AttentionImpl::flash}));
    // The device list: the machine's devices by id and name; the value is the id.
    auto* device = qobject_cast<QComboBox*>(view.form()->field("device"));
    QVERIFY(device);
    QCOMPARE(device->count(), 2);
    QCOMPARE(device->itemText(1), QStringLiteral("cuda:0 - NVIDIA H100"));
    QCOMPARE(device->currentText(), QStringLiteral("cpu - CPU (2 threads)"));

    type_into(line(view, "d"), QStringLiteral("16, 64"));
    type_into(line(view, "seq"), QStringLiteral("128,256"));
    box(view, "impl", "naive")->setChecked(false);
    box(view, "precision", "bf16")->setChecked(true);
    type_into(line(view, "steps"), QStringLiteral("3"));
    QVERIFY2(view.form()->error_text().isEmpty(), qPrintable(view.form()->error_text()));
    AttentionSweepSpec spec = spec_of(view);
    QCOMPARE(spec.head_dims, (std::vector<int64_t>{16, 64}));
    QCOMPARE(spec.seqs, (std::vector<int64_t>{128, 256}));
    QCOMPARE(spec.impls, (std::vector<AttentionImpl>{AttentionImpl::flash}));
    QCOMPARE(spec.precisions, (std::vector<Precision>{Precision::fp32, Precision::bf16}));
    QCOMPARE(spec.base.measured_steps, 3);
    QCOMPARE(spec.rounds, 0);  // auto
    QCOMPARE(line(view, "rounds")->placeholderText(), QStringLiteral("auto"));
    QCOMPARE(to_string(spec.base.device), std::string("cpu"));
    run_button(view)->click();
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested.last().at(0).value<schema::InputValues>(), view.form()->values());
    device->setCurrentIndex(1);
    QCOMPARE(to_string(spec_of(view).base.device), std::string("cuda:0"));
    device->setCurrentIndex(0);

    type_into(line(view, "rounds"), QStringLiteral("4"));  // more rounds than the 3 passes
    QVERIFY(framed(view, "rounds"));
    QVERIFY2(view.form()->error_text().contains("4 rounds"), qPrintable(view.form()->error_text()));
    QVERIFY(!run_button(view)->isEnabled());
    QVERIFY(!view.request_run());
    QVERIFY2(view.status_text().startsWith("Cannot run:") && view.status_text().contains("4 rounds"),
             qPrintable(view.status_text()));
    QCOMPARE(requested.size(), 1);
    type_into(line(view, "rounds"), QStringLiteral("3"));
    QVERIFY(!framed(view, "rounds"));
    QVERIFY(run_button(view)->isEnabled());
    QCOMPARE(spec_of(view).rounds, 3);

    type_into(line(view, "seq"), QStringLiteral("128,abc"));
    QVERIFY(framed(view, "seq"));
    QVERIFY2(view.form()->error_text().contains("'abc'"), qPrintable(view.form()->error_text()));
    QVERIFY(!run_button(view)->isEnabled());
    type_into(line(view, "seq"), QStringLiteral("128"));
    QVERIFY(!framed(view, "seq"));
    box(view, "impl", "flash")->setChecked(false);
    QVERIFY(framed(view, "impl"));
    QVERIFY(!run_button(view)->isEnabled());
    try {
      view.form()->values();
      QFAIL("no implementation ticked, yet the form gave values");
    } catch (const ConfigError& e) {
      QCOMPARE(e.field(), std::string("impl"));
    }
    // sdpa where this LibTorch has none: the implementations are at fault, and Run waits.
    box(view, "impl", "sdpa")->setChecked(true);
    QVERIFY(framed(view, "impl"));
    QVERIFY2(view.form()->error_text().contains("sdpa"), qPrintable(view.form()->error_text()));
    QVERIFY(!run_button(view)->isEnabled());
    box(view, "impl", "sdpa")->setChecked(false);
    box(view, "impl", "flash")->setChecked(true);
    QVERIFY(!framed(view, "impl"));
    // A sweep too large to run: a tensor of batch x heads x seq x d elements past what can be addressed.
    type_into(line(view, "batch"), QStringLiteral("16777216"));
    type_into(line(view, "d"), QStringLiteral("65536"));
    type_into(line(view, "seq"), QStringLiteral("16777216"));
    QVERIFY(framed(view, "seq"));
    QVERIFY2(view.form()->error_text().contains("too large"), qPrintable(view.form()->error_text()));
    QVERIFY(!run_button(view)->isEnabled());
    type_into(line(view, "seq"), QStringLiteral("128"));
    type_into(line(view, "batch"), QStringLiteral("2"));
    type_into(line(view, "d"), QStringLiteral("16"));
    QVERIFY(run_button(view)->isEnabled());

    view.set_running(true);
    QCOMPARE(run_button(view)->text(), QStringLiteral("Cancel"));
    QVERIFY(!line(view, "seq")->isEnabled());
    QSignalSpy cancelled(&view, &ExperimentView::cancel_requested);
    run_button(view)->click();
    QCOMPARE(cancelled.size(), 1);
  }

  void whereThisLibTorchHasSdpaItIsADefault() {
    const ExperimentDescriptor d = attention(true);
    ExperimentView view(d);
    for (const char* impl : {"naive", "sdpa", "flash"}) QVERIFY2(box(view, "impl", impl)->isChecked(), impl);
    QVERIFY(!view.form()->values().given("impl"));
    QCOMPARE(attention_spec(view.form()->values(), true).impls,
             (std::vector<AttentionImpl>{AttentionImpl::naive, AttentionImpl::sdpa, AttentionImpl::flash}));
  }

  void aReopenedRunShowsItsImplementations() {
    // A run of naive and sdpa kept on another machine, reopened here: shown as it ran, sdpa at fault.
    const ExperimentDescriptor d = attention(false);
    ExperimentView view(d);
    schema::InputValues ran(attention_inputs());
    ran.set("impl", "naive,sdpa");
    ran.set("seq", "64");
    view.set_values(ran);
    QVERIFY(box(view, "impl", "sdpa")->isChecked());
    QVERIFY(!box(view, "impl", "flash")->isChecked());
    QCOMPARE(view.form()->values(), ran);
    QVERIFY(framed(view, "impl"));
    QVERIFY(!run_button(view)->isEnabled());
    // Back to the defaults: naive and flash again.
    view.set_values(schema::InputValues(attention_inputs()));
    QVERIFY(!box(view, "impl", "sdpa")->isChecked());
    QVERIFY(box(view, "impl", "flash")->isChecked());
    QVERIFY(!framed(view, "impl"));
    QVERIFY(run_button(view)->isEnabled());
  }
};

QTEST_MAIN(AttentionViewTest)
#include "test_attention_view.moc"
