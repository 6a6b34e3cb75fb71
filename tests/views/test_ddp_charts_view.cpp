// The DDP tab: an ExperimentView of a DDP descriptor made here (the app's is the
// registry's, which views do not link) with the DDP charts. Its form refuses bad input naming
// the field and turns good input into the run's values; show_tables fills the DDP table and
// its side tables, the step chart, the overlap picture (with its row selector) and the bucket
// overhead reading from tables made by the engine's schemas; all-reduce rows measured
// elsewhere feed the reading and stay through a new run; tables and charts carry the names
// exports use.
#include <QBarSet>
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "charts/chart_colors.h"
#include "charts/chart_export.h"
#include "charts/ddp_step_chart_view.h"
#include "charts/rank_timeline_view.h"
#include "experiments/collectives/collective_schema.h"
#include "experiments/ddp/ddp_inputs.h"
#include "experiments/ddp/ddp_memory_schema.h"
#include "experiments/ddp/ddp_schema.h"
#include "experiments/ddp/ddp_timeline_schema.h"
#include "models/schema_table_model.h"
#include "widgets/ddp_charts_view.h"
#include "widgets/experiment_view.h"
#include "widgets/input_form.h"

using namespace stepscope;
using namespace stepscope::views;

namespace {

// The DDP experiments as the registry declares them, minus the run (stepscope-cli's workers).
ExperimentDescriptor ddp_experiment() {
  ExperimentDescriptor d;
  d.id = "ddp";
  d.command = {"ddp"};
  d.name = "Distributed data parallel";
  d.inputs = &ddp_inputs();
  schema::Table ranks = ddp_schema().table({});
  ranks.schema = "ddp.ranks";
  d.tables = {ddp_schema().table({}), ranks, ddp_timeline_schema().table({}), ddp_memory_schema().table({})};
  d.runs_as_ranks = true;
  d.check = [](const schema::InputValues& values) {
    const DdpSweepSpec spec = ddp_spec(values);
    for (int64_t n : values.integers("nproc")) {
      for (const auto& c : expand(spec, static_cast<int>(n))) validate(c);
    }
  };
  return d;
}

DdpResult ddp_row(distributed::DdpVariant variant, double bucket_mb, double exposed_ms, RunStatus status = RunStatus::ok) {
  DdpResult r;
  r.config.variant = variant;
  r.config.bucket_mb = bucket_mb;
  r.config.model = model_preset("tiny");
  r.status = status;
  if (status == RunStatus::ok) {
    r.forward_ms = 2;
    r.backward_ms = 5;
    r.comm_ms = 3;
    r.exposed_comm_ms = exposed_ms;
    r.optimizer_ms = 1;
    r.step_ms = 2 + 5 + exposed_ms + 1 + 0.5;
  }
  return r;
}

schema::Table ddp_table() {
  using V = distributed::DdpVariant;
  return ddp_schema().table({ddp_row(V::naive, 0, 3), ddp_row(V::overlap, 0, 1), ddp_row(V::bucketed, 1, 0.8),
                             ddp_row(V::bucketed, 10, 0.6, RunStatus::failed)});
}

schema::Table timeline_table() {
  std::vector<TimelineRow> rows;
  for (distributed::DdpVariant variant : {distributed::DdpVariant::naive, distributed::DdpVariant::overlap}) {
    for (int rank = 0; rank < 2; ++rank) {
      DdpConfig c;
      c.variant = variant;
      RankStepTimeline t{c, rank, 0,
                         {{TimelineLane::compute, "forward", 0, 2},
                          {TimelineLane::compute, "backward", 2, 7},
                          {TimelineLane::communication, "all_reduce 0", variant == distributed::DdpVariant::naive ? 7.0 : 4.0, 8},
                          {TimelineLane::compute, "optimizer", 8, 9}}};
      for (const auto& row : timeline_rows(t)) rows.push_back(row);
    }
  }
  return ddp_timeline_schema().table(rows);
}

schema::Table collective_table() {
  std::vector<CollectiveResult> rows;
  for (int64_t bytes : {1 << 20, 10 << 20, 100 << 20}) {
    CollectiveResult r;
    r.config.size_bytes = bytes;
    r.time_us = 50 + static_cast<double>(bytes) / 2e9 * 1e6;  // 50 us + bytes / 2 GB/s
    rows.push_back(r);
  }
  return collective_schema().table(rows);
}

QPushButton* run_button(ExperimentView& view) { return view.findChild<QPushButton*>("run"); }
QLineEdit* line(ExperimentView& view, const char* key) { return qobject_cast<QLineEdit*>(view.form()->field(key)); }
QComboBox* combo(ExperimentView& view, const char* key) { return qobject_cast<QComboBox*>(view.form()->field(key)); }
QCheckBox* box(ExperimentView& view, const char* name) { return view.findChild<QCheckBox*>(name); }

}  // namespace

class DdpChartsViewTest : public QObject {
  Q_OBJECT

 private slots:
  void goodFormGivesTheValues() {
    const ExperimentDescriptor d = ddp_experiment();
    ExperimentView view(d, new DdpChartsView);
    QSignalSpy requested(&view, &ExperimentView::run_requested);
    box(view, "variant:naive")->setChecked(false);
    line(view, "bucket-mb")->setText("1, 25,1");
    line(view, "nproc")->setText("2,4");
    combo(view, "model")->setCurrentText("mini");
    line(view, "context")->setText("64");
    line(view, "batch")->setText("3");
    line(view, "warmup")->setText("2");
    line(view, "steps")->setText("7");
    qobject_cast<QCheckBox*>(view.form()->field("check"))->setChecked(true);
    combo(view, "precision")->setCurrentText("bf16");
    QVERIFY2(view.form()->error_text().isEmpty(), qPrintable(view.form()->error_text()));
    QVERIFY(run_button(view)->isEnabled());
    run_button(view)->click();
    QCOMPARE(requested.size(), 1);
    const auto values = requested[0][0].value<schema::InputValues>();
    const DdpSweepSpec spec = ddp_spec(values);
    QCOMPARE(spec.variants, (std::vector<distributed::DdpVariant>{distributed::DdpVariant::flat, distributed::DdpVariant::overlap,
                                                                  distributed::DdpVariant::bucketed}));
    QCOMPARE(spec.bucket_mbs, (std::vector<double>{1, 25}));
    QCOMPARE(values.integers("nproc"), (std::vector<int64_t>{2, 4}));
    QCOMPARE(spec.base.model.name, std::string("mini"));
    QCOMPARE(spec.base.context, int64_t{64});
    QCOMPARE(spec.base.batch, int64_t{3});
    QCOMPARE(spec.base.warmup_steps, 2);
    QCOMPARE(spec.base.measured_steps, 7);
    QVERIFY(spec.base.check);
    QCOMPARE(spec.base.precision, Precision::bf16);
    QCOMPARE(spec.base.backend, CommBackend::gloo);
    QCOMPARE(to_string(spec.base.device), std::string("cpu"));

    QSignalSpy cancelled(&view, &ExperimentView::cancel_requested);
    view.set_running(true);
    QVERIFY(!line(view, "bucket-mb")->isEnabled());
    QCOMPARE(run_button(view)->text(), QStringLiteral("Cancel"));
    run_button(view)->click();
    QCOMPARE(cancelled.size(), 1);
    QCOMPARE(requested.size(), 1);
    view.set_running(false);
    QVERIFY(line(view, "bucket-mb")->isEnabled());
  }

  void modelsComeFromTheEnginesPresets() {
    const ExperimentDescriptor d = ddp_experiment();
    ExperimentView view(d);
    QStringList names;
    for (int i = 0; i < combo(view, "model")->count(); ++i) names << combo(view, "model")->itemText(i);
    QStringList expected;
    for (const auto& name : model_preset_names()) expected << QString::fromStdString(name);
    QCOMPARE(names, expected);
    QCOMPARE(combo(view, "model")->currentText(), QStringLiteral("tiny"));
  }

  void badInputNamesTheField() {
    const ExperimentDescriptor d = ddp_experiment();
    ExperimentView view(d);
    const auto refused = [&](QWidget* field, const char* key, const char* words) {
      QVERIFY2(view.form()->error_text().contains(words), qPrintable(view.form()->error_text()));
      QVERIFY(field == view.form()->field(key));
      QVERIFY(field->property("invalid").toBool());
      QVERIFY(!run_button(view)->isEnabled());
      QVERIFY(!view.request_run());
    };
    line(view, "bucket-mb")->setText("1,0");
    refused(line(view, "bucket-mb"), "bucket-mb", "'0' is not a positive number");
    line(view, "bucket-mb")->setText("1");

    line(view, "nproc")->setText("2,x");
    refused(line(view, "nproc"), "nproc", "'x' is not an integer");
    line(view, "nproc")->setText("2.5");
    refused(line(view, "nproc"), "nproc", "'2.5'");
    // The app starts the ranks on this machine: at most kMaxLocalWorkers each run.
    line(view, "nproc")->setText("2,300");
    refused(line(view, "nproc"), "nproc", "300 is more local workers than one machine starts (1 to 256)");
    line(view, "nproc")->setText("2");
    QVERIFY(run_button(view)->isEnabled());

    line(view, "steps")->setText("0");
    refused(line(view, "steps"), "steps", "0 is too small (at least 1)");
    line(view, "steps")->setText("5");

    for (const char* variant : {"variant:naive", "variant:flat", "variant:overlap", "variant:bucketed"}) {
      box(view, variant)->setChecked(false);
    }
    refused(view.form()->field("variant"), "variant", "choose at least one");
    box(view, "variant:flat")->setChecked(true);

    // fp16 is not offered: the DDP experiments run fp32 or bf16.
    QCOMPARE(combo(view, "precision")->findText("fp16"), -1);
    QVERIFY(combo(view, "precision")->findText("bf16") >= 0);

    combo(view, "backend")->setCurrentText("nccl");
    refused(combo(view, "backend"), "backend", "gloo");
    combo(view, "backend")->setCurrentText("gloo");
    QVERIFY(view.request_run());
    QVERIFY(!combo(view, "backend")->property("invalid").toBool());
    QVERIFY(view.form()->error_text().isEmpty());
  }

  void aJobOfRanksOffersTheMachinesDevicesAndNoFilesOfItsOwn() {
    const ExperimentDescriptor d = ddp_experiment();
    ExperimentView view(d);
    // The workers write no files: --trace is the command line's launcher's.
    QVERIFY(!view.form()->field("trace"));
    QVERIFY(view.form()->field("profile-memory"));
    auto* device = combo(view, "device");
    view.set_devices({{"cpu", "CPU", -1}});
    QCOMPARE(device->count(), 1);
    QCOMPARE(device->currentText(), QStringLiteral("cpu"));
    view.set_devices({{"cpu", "CPU", -1}, {"cuda:0", "NVIDIA H100", 80LL << 30}});
    QCOMPARE(device->count(), 2);
    QCOMPARE(device->itemText(1), QStringLiteral("cuda"));
    device->setCurrentIndex(1);
    // The backend follows the device: nccl on GPUs.
    QVERIFY2(view.form()->error_text().isEmpty(), qPrintable(view.form()->error_text()));
    QCOMPARE(ddp_spec(view.form()->values()).base.backend, CommBackend::nccl);
    view.set_devices({{"cpu", "CPU", -1}});  // what it shows stays
    QCOMPARE(device->currentText(), QStringLiteral("cuda"));
  }

  void showTablesFillsTablesChartPictureAndReading() {
    const ExperimentDescriptor d = ddp_experiment();
    auto* charts = new DdpChartsView;
    ExperimentView view(d, charts);
    view.resize(1400, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY2(charts->reading().contains("all-reduce times"), qPrintable(charts->reading()));
    QVERIFY(!charts->timeline().message().isEmpty());
    view.show_tables({ddp_table(), timeline_table()});
    // All-reduce rows measured by the collective benchmark (the app links its tab).
    view.show_linked_tables({collective_table()});

    const auto& model = view.table_model(0);
    QCOMPARE(model.rowCount(), 4);
    const int status = model.table().column_index("status");
    QCOMPARE(model.data(model.index(3, status), Qt::ForegroundRole).value<QColor>(), failure_color());
    QCOMPARE(view.table_model(2).rowCount(), 16);  // the timeline spans: 2 rows x 2 ranks x 4

    const DdpStepData& steps = charts->step_chart().data();
    QCOMPARE(steps.labels, (QStringList{"naive x2", "overlap x2", "bucketed 1 MiB x2", "bucketed 10 MiB x2"}));
    QCOMPARE(steps.ms[static_cast<size_t>(DdpPhase::exposed_comm)], (std::vector<double>{3, 1, 0.8, 0}));
    QCOMPARE(steps.ms[static_cast<size_t>(DdpPhase::other)][0], 0.5);
    QCOMPARE(steps.failures[3], QStringLiteral("failed"));
    // The bar axis lists rows bottom-up: the first row is the last value of a set.
    QCOMPARE(charts->step_chart().phaseSet(DdpPhase::backward).at(3), 5.0);

    QCOMPARE(charts->timeline_selector()->count(), 2);
    QCOMPARE(charts->timeline_selector()->itemText(1), QStringLiteral("overlap x2"));
    QCOMPARE(charts->timeline().data().title, QStringLiteral("naive x2, step 0 (recorded after the measured ones)"));
    QCOMPARE(charts->timeline().data().lanes.size(), 4);
    charts->timeline_selector()->setCurrentIndex(1);
    QCOMPARE(charts->timeline().data().title, QStringLiteral("overlap x2, step 0 (recorded after the measured ones)"));
    QCOMPARE(charts->timeline().data().spans[3].start_ms, 4.0);  // rank 0's all-reduce, overlapping backward

    const QString reading = charts->reading();
    QVERIFY2(reading.contains("All-reduce gloo x2 fp32: time = o + bytes/w: o = 50.0 \u00b5s, w = 2.00 GB/s"), qPrintable(reading));
    QVERIFY2(reading.contains("n_b* = sqrt(s/(w*o))"), qPrintable(reading));
    QVERIFY2(reading.contains("bucket* = s/n_b* = sqrt(s*w*o)"), qPrintable(reading));
    QVERIFY2(reading.contains("bucketed 1 MiB x2: n_b = "), qPrintable(reading));
    QVERIFY2(reading.contains("measured (exposed comm) 800 \u00b5s"), qPrintable(reading));
    QVERIFY2(reading.contains("bucketed 10 MiB x2: n_b = 1; predicted"), qPrintable(reading));

    // Rows arriving during a run: the DDP table alone keeps the rest.
    auto more = ddp_table();
    more.rows.pop_back();
    view.show_tables({more});
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(charts->timeline_selector()->currentText(), QStringLiteral("overlap x2"));
    QVERIFY(charts->reading().contains("w = 2.00 GB/s"));

    QTemporaryDir dir;
    for (const auto& chart : view.charts()) {
      QString error;
      QVERIFY2(save_chart_png(*chart.view, dir.filePath(chart.name + ".png"), &error), qPrintable(error));
    }
    // A new run: its own tables go, the all-reduce rows measured elsewhere stay for its model.
    view.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(charts->timeline_selector()->count(), 0);
    QVERIFY(charts->step_chart().data().labels.isEmpty());
    QVERIFY2(charts->reading().contains("All-reduce gloo x2 fp32: time = o + bytes/w: o = 50.0 \u00b5s, w = 2.00 GB/s"),
             qPrintable(charts->reading()));
    QVERIFY2(charts->reading().contains("No bucketed DDP rows"), qPrintable(charts->reading()));
    view.show_tables({ddp_table()});
    QVERIFY2(charts->reading().contains("bucketed 1 MiB x2: n_b = "), qPrintable(charts->reading()));
  }

  // A DDP run as the app drives it, twice: the view cleared, rows as they come, the finished
  // tables (all four); the all-reduce rows linked from the Collectives tab stay for the model.
  void bucketModelKeepsItsAllReduceRowsAcrossDdpRuns() {
    const ExperimentDescriptor d = ddp_experiment();
    auto* charts = new DdpChartsView;
    ExperimentView view(d, charts);
    view.show_linked_tables({collective_table()});
    const QString fit = QStringLiteral("All-reduce gloo x2 fp32: time = o + bytes/w");
    QVERIFY2(charts->reading().contains(fit), qPrintable(charts->reading()));
    for (int run = 0; run < 2; ++run) {
      view.clear();
      auto partial = ddp_table();
      partial.rows.resize(1);
      view.show_tables({partial});
      QVERIFY2(charts->reading().contains(fit), qPrintable(charts->reading()));
      std::vector<schema::Table> finished = d.tables;
      finished[0] = ddp_table();
      finished[2] = timeline_table();
      view.show_tables(finished);
      QVERIFY2(charts->reading().contains(fit), qPrintable(QStringLiteral("run %1: %2").arg(run + 1).arg(charts->reading())));
      QVERIFY2(charts->reading().contains("bucketed 1 MiB x2: n_b = "), qPrintable(charts->reading()));
    }
  }

  void theChartsDrawFromTheTablesTheyAreGiven() {
    DdpChartsView charts;
    QVERIFY(charts.reading().contains("all-reduce times"));
    charts.show_tables({ddp_table(), timeline_table(), collective_table()});
    QCOMPARE(charts.step_chart().data().labels.size(), 4);
    QCOMPARE(charts.timeline_selector()->count(), 2);
    QVERIFY2(charts.reading().contains("bucket* = s/n_b* = sqrt(s*w*o)"), qPrintable(charts.reading()));
    QVERIFY(charts.tables().empty());  // the tables are the experiment view's
    charts.clear();
    QVERIFY(charts.step_chart().data().labels.isEmpty());
    QVERIFY(charts.reading().contains("all-reduce times"));
  }

  // The overlap picture in a window of its own, following the chosen row; one window, raised
  // again rather than opened twice; gone when closed.
  void theOverlapPictureOpensInAWindowThatFollowsTheRow() {
    DdpChartsView charts;
    charts.show_tables({ddp_table(), timeline_table()});
    RankTimelineView* shown = charts.open_overlap_window();
    QVERIFY(shown != nullptr && shown->window() != &charts && shown->window()->isVisible());
    QCOMPARE(shown->data().title, charts.timeline().data().title);
    QVERIFY(shown->window()->windowTitle().startsWith("Overlap of " + charts.timeline_selector()->itemText(0)));
    QCOMPARE(charts.open_overlap_window(), shown);
    charts.timeline_selector()->setCurrentIndex(1);
    QCOMPARE(shown->data().title, charts.timeline().data().title);
    QVERIFY(shown->data().title.startsWith(charts.timeline_selector()->itemText(1)));
    QPointer<QWidget> window = shown->window();
    window->close();
    QTRY_VERIFY(window.isNull());  // deleted on close
    QVERIFY(charts.open_overlap_window() != nullptr);
  }

  void namesTablesAndCharts() {
    const ExperimentDescriptor d = ddp_experiment();
    ExperimentView view(d, new DdpChartsView);
    const auto tables = view.tables();
    QCOMPARE(tables.size(), size_t{4});
    QCOMPARE(tables[0].name, QStringLiteral("ddp"));
    QCOMPARE(tables[1].name, QStringLiteral("ddp_ranks"));
    QCOMPARE(tables[2].name, QStringLiteral("ddp_timeline"));
    QCOMPARE(tables[3].name, QStringLiteral("ddp_memory"));
    // A run's memory table shows under its own tab.
    DdpResult rank;
    rank.rank = 1;
    rank.memory = {profiling::CategoryBytes{}, profiling::CategoryBytes{}, profiling::CategoryBytes{}};
    rank.memory[1][profiling::category_index(profiling::MemoryCategory::optimizer_state)] = 4096;
    view.show_tables({ddp_memory_schema().table(memory_rows(rank))});
    QCOMPARE(view.table_model(3).rowCount(), 3);
    QCOMPARE(tables[3].model, static_cast<const QAbstractItemModel*>(&view.table_model(3)));
    QCOMPARE(tables[0].model, static_cast<const QAbstractItemModel*>(&view.table_model(0)));
    const auto charts = view.charts();
    QCOMPARE(charts.size(), size_t{2});
    QCOMPARE(charts[0].name, QStringLiteral("ddp_step_breakdown"));
    QCOMPARE(charts[1].name, QStringLiteral("ddp_overlap"));
    QVERIFY(qobject_cast<DdpStepChartView*>(charts[0].view));
    QVERIFY(qobject_cast<RankTimelineView*>(charts[1].view));
  }
};

QTEST_MAIN(DdpChartsViewTest)
#include "test_ddp_charts_view.moc"
