// The Distributed tab: its form refuses bad input naming the field and turns good input into
// the run's request; show_tables fills the DDP table, the step chart, the overlap picture (with
// its row selector) and the bucket overhead reading from tables made by the engine's schemas;
// tables and charts carry the names exports use.
#include <QBarSet>
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include "charts/chart_colors.h"
#include "charts/chart_export.h"
#include "charts/ddp_step_chart_view.h"
#include "charts/rank_timeline_view.h"
#include "experiments/collectives/collective_schema.h"
#include "experiments/ddp/ddp_schema.h"
#include "experiments/ddp/ddp_timeline_schema.h"
#include "models/schema_table_model.h"
#include "experiments/ddp/ddp_memory_schema.h"
#include "widgets/distributed_view.h"

using namespace stepscope;
using namespace stepscope::views;

namespace {

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

}  // namespace

class DistributedViewTest : public QObject {
  Q_OBJECT

 private slots:
  void goodFormGivesTheRequest() {
    DistributedView view;
    QSignalSpy requested(&view, &DistributedView::run_requested);
    DistributedForm& form = *view.form();
    form.variant_box(distributed::DdpVariant::naive)->setChecked(false);
    form.bucket_field()->setText("1, 25,1");
    form.world_sizes_field()->setText("2,4");
    form.model_field()->setCurrentText("mini");
    form.context_field()->setValue(64);
    form.batch_field()->setValue(3);
    form.warmup_field()->setValue(2);
    form.steps_field()->setValue(7);
    form.check_box()->setChecked(true);
    form.precision_field()->setCurrentText("bf16");
    QString error;
    const auto r = view.request(&error);
    QVERIFY2(r, qPrintable(error));
    QCOMPARE(r->spec.variants, (std::vector<distributed::DdpVariant>{distributed::DdpVariant::flat, distributed::DdpVariant::overlap,
                                                              distributed::DdpVariant::bucketed}));
    QCOMPARE(r->spec.bucket_mbs, (std::vector<double>{1, 25}));
    QCOMPARE(r->world_sizes, (std::vector<int64_t>{2, 4}));
    QCOMPARE(r->spec.base.model.name, std::string("mini"));
    QCOMPARE(r->spec.base.context, int64_t{64});
    QCOMPARE(r->spec.base.batch, int64_t{3});
    QCOMPARE(r->spec.base.warmup_steps, 2);
    QCOMPARE(r->spec.base.measured_steps, 7);
    QVERIFY(r->spec.base.check);
    QCOMPARE(r->spec.base.precision, Precision::bf16);
    QCOMPARE(r->spec.base.backend, CommBackend::gloo);
    QCOMPARE(r->spec.base.device, std::string("cpu"));
    form.run_button()->click();
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested[0][0].value<DistributedRequest>().world_sizes, (std::vector<int64_t>{2, 4}));

    QSignalSpy cancelled(&view, &DistributedView::cancel_requested);
    view.set_running(true);
    QVERIFY(!form.bucket_field()->isEnabled());
    QCOMPARE(form.run_button()->text(), QStringLiteral("Cancel"));
    form.run_button()->click();
    QCOMPARE(cancelled.size(), 1);
    view.set_running(false);
    QVERIFY(form.bucket_field()->isEnabled());
  }

  void modelsComeFromTheEnginesPresets() {
    DistributedForm form;
    QStringList names;
    for (int i = 0; i < form.model_field()->count(); ++i) names << form.model_field()->itemText(i);
    QStringList expected;
    for (const auto& name : model_preset_names()) expected << QString::fromStdString(name);
    QCOMPARE(names, expected);
    QCOMPARE(form.model_field()->currentText(), QStringLiteral("tiny"));
  }

  void badInputNamesTheField() {
    DistributedForm form;
    const auto refused = [&](QWidget* field, const char* key, const char* words) {
      std::string got;
      QString error;
      QVERIFY(!form.request(&error, &got));
      QCOMPARE(got, std::string(key));
      QVERIFY2(form.error_text().contains(words), qPrintable(form.error_text()));
      QVERIFY(field->property("invalid").toBool());
      QVERIFY(!form.run_button()->isEnabled());
    };
    form.bucket_field()->setText("1,0");
    refused(form.bucket_field(), "bucket-mb", "'0' is not a positive number of MiB");
    // Buckets matter to bucketed only.
    form.variant_box(distributed::DdpVariant::bucketed)->setChecked(false);
    QVERIFY(form.request());
    QVERIFY(!form.bucket_field()->property("invalid").toBool());
    form.variant_box(distributed::DdpVariant::bucketed)->setChecked(true);
    form.bucket_field()->setText("1");

    form.world_sizes_field()->setText("2,x");
    refused(form.world_sizes_field(), "nproc", "ranks: 'x' is not a whole number");
    form.world_sizes_field()->setText("2.5");
    refused(form.world_sizes_field(), "nproc", "'2.5'");
    form.world_sizes_field()->setText("2");
    QVERIFY(form.run_button()->isEnabled());

    form.steps_field()->setValue(0);
    refused(form.steps_field(), "steps", "measured steps must be at least 1");
    form.steps_field()->setValue(5);

    for (distributed::DdpVariant v : distributed::all_ddp_variants()) form.variant_box(v)->setChecked(false);
    refused(form.variant_box(distributed::DdpVariant::naive), "variant", "at least one variant");
    form.variant_box(distributed::DdpVariant::flat)->setChecked(true);

    form.precision_field()->setCurrentText("fp16");
    refused(form.precision_field(), "precision", "fp32 or bf16");
    form.precision_field()->setCurrentText("fp32");

    form.backend_field()->setCurrentText("nccl");
    refused(form.backend_field(), "backend", "gloo");
    form.backend_field()->setCurrentText("gloo");
    QVERIFY(form.request());
    QVERIFY(!form.backend_field()->property("invalid").toBool());
    QVERIFY(form.error_text().isEmpty());
  }

  void showTablesFillsTableChartPictureAndReading() {
    DistributedView view;
    view.resize(1200, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY2(view.reading().contains("all-reduce times"), qPrintable(view.reading()));
    QVERIFY(!view.timeline().message().isEmpty());
    view.show_tables({ddp_table(), timeline_table(), collective_table()});

    QCOMPARE(view.model().rowCount(), 4);
    const int status = view.model().table().column_index("status");
    QCOMPARE(view.model().data(view.model().index(3, status), Qt::ForegroundRole).value<QColor>(), failure_color());

    const DdpStepData& steps = view.step_chart().data();
    QCOMPARE(steps.labels, (QStringList{"naive x2", "overlap x2", "bucketed 1 MiB x2", "bucketed 10 MiB x2"}));
    QCOMPARE(steps.ms[static_cast<size_t>(DdpPhase::exposed_comm)], (std::vector<double>{3, 1, 0.8, 0}));
    QCOMPARE(steps.ms[static_cast<size_t>(DdpPhase::other)][0], 0.5);
    QCOMPARE(steps.failures[3], QStringLiteral("failed"));
    // The bar axis lists rows bottom-up: the first row is the last value of a set.
    QCOMPARE(view.step_chart().phaseSet(DdpPhase::backward).at(3), 5.0);

    QCOMPARE(view.timeline_selector()->count(), 2);
    QCOMPARE(view.timeline_selector()->itemText(1), QStringLiteral("overlap x2"));
    QCOMPARE(view.timeline().data().title, QStringLiteral("naive x2, step 0 (recorded after the measured ones)"));
    QCOMPARE(view.timeline().data().lanes.size(), 4);
    view.timeline_selector()->setCurrentIndex(1);
    QCOMPARE(view.timeline().data().title, QStringLiteral("overlap x2, step 0 (recorded after the measured ones)"));
    QCOMPARE(view.timeline().data().spans[3].start_ms, 4.0);  // rank 0's all-reduce, overlapping backward

    const QString reading = view.reading();
    QVERIFY2(reading.contains("All-reduce gloo x2 fp32: time = o + bytes/w: o = 50.0 us, w = 2.00 GB/s"), qPrintable(reading));
    QVERIFY2(reading.contains("n_b* = sqrt(s/(w*o))"), qPrintable(reading));
    QVERIFY2(reading.contains("bucket* = s/n_b* = sqrt(s*w*o)"), qPrintable(reading));
    QVERIFY2(reading.contains("bucketed 1 MiB x2: n_b = "), qPrintable(reading));
    QVERIFY2(reading.contains("measured (exposed comm) 800 us"), qPrintable(reading));
    QVERIFY2(reading.contains("bucketed 10 MiB x2: n_b = 1; predicted"), qPrintable(reading));

    // Rows arriving during a run: the DDP table alone keeps the rest.
    auto more = ddp_table();
    more.rows.pop_back();
    view.show_tables({more});
    QCOMPARE(view.model().rowCount(), 3);
    QCOMPARE(view.timeline_selector()->currentText(), QStringLiteral("overlap x2"));
    QVERIFY(view.reading().contains("w = 2.00 GB/s"));

    QTemporaryDir dir;
    for (const auto& chart : view.charts()) {
      QString error;
      QVERIFY2(save_chart_png(*chart.view, dir.filePath(chart.name + ".png"), &error), qPrintable(error));
    }
    view.clear();
    QCOMPARE(view.model().rowCount(), 0);
    QCOMPARE(view.timeline_selector()->count(), 0);
    QVERIFY(view.step_chart().data().labels.isEmpty());
    QVERIFY(view.reading().contains("all-reduce times"));
  }

  void namesTablesAndCharts() {
    DistributedView view;
    const auto tables = view.tables();
    QCOMPARE(tables.size(), size_t{3});
    QCOMPARE(tables[0].name, QStringLiteral("ddp"));
    QCOMPARE(tables[1].name, QStringLiteral("ddp_timeline"));
    QCOMPARE(tables[2].name, QStringLiteral("ddp_memory"));
    // A run's memory table shows under its own tab.
    DdpResult rank;
    rank.rank = 1;
    rank.memory = {profiling::CategoryBytes{}, profiling::CategoryBytes{}, profiling::CategoryBytes{}};
    rank.memory[1][profiling::category_index(profiling::MemoryCategory::optimizer_state)] = 4096;
    view.show_tables({ddp_memory_schema().table(memory_rows(rank))});
    QCOMPARE(view.memory_model().rowCount(), 3);
    QCOMPARE(tables[2].model, static_cast<const QAbstractItemModel*>(&view.memory_model()));
    QCOMPARE(tables[0].model, static_cast<const QAbstractItemModel*>(&view.model()));
    const auto charts = view.charts();
    QCOMPARE(charts.size(), size_t{2});
    QCOMPARE(charts[0].name, QStringLiteral("ddp_step_breakdown"));
    QCOMPARE(charts[1].name, QStringLiteral("ddp_overlap"));
    QVERIFY(qobject_cast<DdpStepChartView*>(charts[0].view));
    QVERIFY(qobject_cast<RankTimelineView*>(charts[1].view));
  }
};

QTEST_MAIN(DistributedViewTest)
#include "test_distributed_view.moc"
