// The Collectives tab: an ExperimentView of a collective benchmark descriptor made here
// (the app's is the registry's, which views do not link) with the bus-bandwidth chart. Its
// form takes world sizes and sizes with units as comma lists and names a bad field; the chart
// draws one line per collective and world size from the table it is given; tables and charts
// carry the names exports use.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "charts/chart_export.h"
#include "charts/sweep_chart_view.h"
#include "experiments/collectives/collective_inputs.h"
#include "experiments/collectives/collective_schema.h"
#include "models/schema_table_model.h"
#include "widgets/collective_charts_view.h"
#include "widgets/experiment_view.h"
#include "widgets/input_form.h"

using namespace stepscope;
using namespace stepscope::views;

namespace {

// The collective benchmark as the registry declares it, minus the run (stepscope-cli's workers).
ExperimentDescriptor collectives() {
  ExperimentDescriptor d;
  d.id = "collectives";
  d.command = {"allreduce"};
  d.name = "Collectives";
  d.inputs = &collective_inputs();
  d.tables = {collective_schema().table({})};
  d.runs_as_ranks = true;
  d.check = [](const schema::InputValues& values) {
    const CollectiveSweepSpec spec = collective_spec(values);
    for (int64_t n : values.integers("nproc")) {
      for (const auto& c : expand(spec, static_cast<int>(n))) validate(c);
    }
  };
  return d;
}

// nccl-tests' rows: two sizes at 2 and at 3 ranks, the 3-rank 1 MB one failed.
schema::Table collective_table() {
  std::vector<CollectiveResult> rows;
  for (int ranks : {2, 3}) {
    for (int64_t bytes : {int64_t{4000}, int64_t{1000000}}) {
      CollectiveResult r;
      r.config.ranks = ranks;
      r.config.size_bytes = bytes;
      r.count = bytes / 4;
      r.time_us = 10 + static_cast<double>(bytes) / 1e3;
      r.algbw_gbps = static_cast<double>(bytes) / (r.time_us * 1e3);
      r.busbw_gbps = r.algbw_gbps * 2 * (ranks - 1) / ranks;
      r.wrong = 0;
      if (ranks == 3 && bytes == 1000000) r.status = RunStatus::failed;
      rows.push_back(r);
    }
  }
  return collective_schema().table(rows);
}

QPushButton* run_button(ExperimentView& view) { return view.findChild<QPushButton*>("run"); }
QLineEdit* line(ExperimentView& view, const char* key) { return qobject_cast<QLineEdit*>(view.form()->field(key)); }

}  // namespace

class CollectiveChartsViewTest : public QObject {
  Q_OBJECT

 private slots:
  void worldSizesAndSizesWithUnitsMakeTheRun() {
    const ExperimentDescriptor d = collectives();
    ExperimentView view(d, new CollectiveChartsView);
    QSignalSpy requested(&view, &ExperimentView::run_requested);
    line(view, "nproc")->setText("2, 3");
    line(view, "sizes")->setText("4KB,256KiB, 1MB");
    line(view, "iters")->setText("2");
    view.findChild<QCheckBox*>("op:allgather")->setChecked(true);
    view.findChild<QCheckBox*>("dtype:bf16")->setChecked(true);
    QVERIFY(view.request_run());
    QCOMPARE(requested.size(), 1);
    const auto values = requested[0][0].value<schema::InputValues>();
    QCOMPARE(values.integers("nproc"), (std::vector<int64_t>{2, 3}));
    const CollectiveSweepSpec spec = collective_spec(values);
    QCOMPARE(spec.sizes_bytes, (std::vector<int64_t>{4000, 256 * 1024, 1000000}));
    QCOMPARE(spec.ops, (std::vector<CollectiveOp>{CollectiveOp::all_reduce, CollectiveOp::all_gather}));
    QCOMPARE(spec.dtypes, (std::vector<Precision>{Precision::fp32, Precision::bf16}));
    QCOMPARE(spec.base.iters, 2);
    QCOMPARE(spec.base.backend, CommBackend::gloo);
    // What a reopened run shows: its sizes as typed.
    view.set_values(schema::InputValues(collective_inputs()));
    QVERIFY(line(view, "sizes")->text().isEmpty());
    view.set_values(values);
    QCOMPARE(line(view, "sizes")->text(), QStringLiteral("4KB,256KiB,1MB"));
    QCOMPARE(line(view, "nproc")->text(), QStringLiteral("2,3"));
    QCOMPARE(view.form()->values(), values);
  }

  void badFieldsAreNamed() {
    const ExperimentDescriptor d = collectives();
    ExperimentView view(d);
    line(view, "sizes")->setText("1MB,huge");
    QVERIFY(line(view, "sizes")->property("invalid").toBool());
    QVERIFY2(view.form()->error_text().startsWith("Sizes: 'huge' is not a size"), qPrintable(view.form()->error_text()));
    QVERIFY(!run_button(view)->isEnabled());
    line(view, "sizes")->setText("1MB");
    QVERIFY(run_button(view)->isEnabled());

    for (const char* op : {"op:allreduce", "op:reducescatter", "op:allgather", "op:broadcast"}) {
      view.findChild<QCheckBox*>(op)->setChecked(false);
    }
    QVERIFY(view.form()->field("op")->property("invalid").toBool());
    QVERIFY(!run_button(view)->isEnabled());
    view.findChild<QCheckBox*>("op:broadcast")->setChecked(true);
    QVERIFY(run_button(view)->isEnabled());

    qobject_cast<QComboBox*>(view.form()->field("backend"))->setCurrentText("nccl");
    QVERIFY(view.form()->field("backend")->property("invalid").toBool());
    QVERIFY2(view.form()->error_text().contains("nccl runs on GPUs"), qPrintable(view.form()->error_text()));
    QVERIFY(!view.request_run());
  }

  void theChartDrawsTheTableItIsGiven() {
    const ExperimentDescriptor d = collectives();
    auto* charts = new CollectiveChartsView;
    ExperimentView view(d, charts);
    view.resize(1200, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(charts->chart().data().lines.empty());
    view.show_tables({collective_table()});
    QCOMPARE(view.table_model(0).rowCount(), 4);
    const auto& data = charts->chart().data();
    QCOMPARE(data.lines.size(), size_t{2});  // allreduce x2 and x3
    QCOMPARE(data.lines[0].name, QStringLiteral("allreduce x2"));
    QCOMPARE(data.lines[1].name, QStringLiteral("allreduce x3"));
    QCOMPARE(data.lines[0].points.size(), 2);
    QCOMPARE(data.lines[0].points[1].x(), 1e6 / 1024);  // 1 MB in KiB: the largest size reads in KiB
    QCOMPARE(data.lines[1].points.size(), 1);
    QCOMPARE(data.failures.size(), size_t{1});
    QCOMPARE(data.failures[0].line, QStringLiteral("allreduce x3"));
    QCOMPARE(data.x_title, QStringLiteral("size (KiB)"));

    QTemporaryDir dir;
    for (const auto& chart : view.charts()) {
      QString error;
      QVERIFY2(save_chart_png(*chart.view, dir.filePath(chart.name + ".png"), &error), qPrintable(error));
    }
    view.clear();
    QCOMPARE(view.table_model(0).rowCount(), 0);
    QVERIFY(charts->chart().data().lines.empty());
  }

  void namesTablesAndCharts() {
    const ExperimentDescriptor d = collectives();
    ExperimentView view(d, new CollectiveChartsView);
    const auto tables = view.tables();
    QCOMPARE(tables.size(), size_t{1});
    QCOMPARE(tables[0].name, QStringLiteral("collective"));
    const auto charts = view.charts();
    QCOMPARE(charts.size(), size_t{1});
    QCOMPARE(charts[0].name, QStringLiteral("communication_busbw"));
    QVERIFY(qobject_cast<SweepChartView*>(charts[0].view));
  }
};

QTEST_MAIN(CollectiveChartsViewTest)
#include "test_collective_charts_view.moc"
