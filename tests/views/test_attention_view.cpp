// The Attention tab: its form turns fields into a sweep and names the field at fault; its charts
// draw time and memory against the sequence length on log-log axes with OOM marked; its table
// marks OOM rows; its reading gives the smallest OOM configuration's accounting.
#include <QCheckBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QLogValueAxis>

#include "charts/attention_chart_data.h"
#include "charts/chart_colors.h"
#include "charts/sweep_chart_view.h"
#include "experiments/attention/attention_schema.h"
#include "models/schema_table_model.h"
#include "widgets/attention_view.h"

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
    QCOMPARE(data.y_title, QStringLiteral("memory before backward (MiB)"));
    QCOMPARE(data.lines.size(), size_t{3});
    QCOMPARE(data.lines[0].name, QStringLiteral("naive d16 fp32"));
    QCOMPARE(data.lines[2].name, QStringLiteral("flash d64 bf16"));
    QCOMPARE(data.lines[0].points.front(), QPointF(1024, 40.0));
    QCOMPARE(attention_head_dims(sweep_table()), (std::vector<int64_t>{16, 64}));
    QCOMPARE(attention_precisions(sweep_table()), (std::vector<QString>{"fp32", "bf16"}));
  }

  void viewShowsTableChartsAndReading() {
    AttentionView view;
    view.show_tables({sweep_table()});
    QCOMPARE(view.model().rowCount(), 7);
    const int status = view.model().table().column_index("status");
    QCOMPARE(view.model().data(view.model().index(4, status), Qt::ForegroundRole).value<QColor>(), failure_color());
    QVERIFY(!view.model().data(view.model().index(0, status), Qt::ForegroundRole).isValid());
    // Until someone picks, the first precision and its largest head dim: d16 fp32 here.
    QCOMPARE(view.time_chart().chart()->series().size(), 2);
    QCOMPARE(view.time_chart().data().lines[0].name, QStringLiteral("naive"));
    view.set_chart_filter(0, QString());
    QCOMPARE(view.time_chart().chart()->series().size(), 3);
    // Sequence length on a base-2 log axis, time on a log axis.
    for (QAbstractAxis* axis : view.time_chart().chart()->series().value(0)->attachedAxes()) {
      auto* log_axis = qobject_cast<QLogValueAxis*>(axis);
      QVERIFY2(log_axis && log_axis->isVisible(), "both axes of the time chart are logarithmic");
    }
    view.set_chart_filter(16, QStringLiteral("fp32"));
    QCOMPARE(view.time_chart().chart()->series().size(), 2);
    QCOMPARE(view.memory_chart().data().failures.size(), size_t{1});
    const QString reading = view.reading();
    QVERIFY2(reading.contains("naive b 8 h 1 d 16 seq 16384 fp32"), qPrintable(reading));
    QVERIFY2(reading.contains("b*h*s*d*e + b*h*s^2*e ="), qPrintable(reading));
    QVERIFY2(reading.contains("flash: s^"), qPrintable(reading));  // naive has two measured lengths, too few
    QCOMPARE(view.tables().size(), size_t{1});
    QCOMPARE(view.charts().size(), size_t{2});
    view.clear();
    QCOMPARE(view.model().rowCount(), 0);
    QVERIFY(view.reading().isEmpty());
  }

  void formBuildsTheSweepAndNamesTheFieldAtFault() {
    AttentionSweepForm form;
    QSignalSpy requested(&form, &AttentionSweepForm::run_requested);
    form.head_dims_field()->setText("16, 64");
    form.seqs_field()->setText("128,256");
    form.impl_box(AttentionImpl::naive)->setChecked(false);
    form.precision_box(Precision::bf16)->setChecked(true);
    form.steps_field()->setValue(3);
    QString error;
    auto spec = form.spec(&error);
    QVERIFY2(spec, qPrintable(error));
    QCOMPARE(spec->head_dims, (std::vector<int64_t>{16, 64}));
    QCOMPARE(spec->seqs, (std::vector<int64_t>{128, 256}));
    QCOMPARE(spec->impls, (std::vector<AttentionImpl>{AttentionImpl::flash}));
    QCOMPARE(spec->precisions, (std::vector<Precision>{Precision::fp32, Precision::bf16}));
    QCOMPARE(spec->base.measured_steps, 3);
    QCOMPARE(spec->rounds, 0);  // auto
    QCOMPARE(form.rounds_field()->text(), QStringLiteral("auto"));
    QCOMPARE(spec->base.device, std::string("cpu"));
    form.run_button()->click();
    QCOMPARE(requested.size(), 1);

    std::string field;
    form.rounds_field()->setValue(4);  // more rounds than the 3 passes
    QVERIFY(!form.spec(&error, &field));
    QCOMPARE(field, std::string("rounds"));
    QVERIFY2(form.error_text().contains("4 rounds"), qPrintable(form.error_text()));
    QVERIFY(!form.run_button()->isEnabled());
    form.rounds_field()->setValue(3);
    spec = form.spec(&error);
    QVERIFY2(spec, qPrintable(error));
    QCOMPARE(spec->rounds, 3);

    form.seqs_field()->setText("128,abc");
    QVERIFY(!form.spec(&error, &field));
    QCOMPARE(field, std::string("seq"));
    QVERIFY2(form.error_text().contains("'abc'"), qPrintable(form.error_text()));
    QVERIFY(form.seqs_field()->property("invalid").toBool());
    QVERIFY(!form.run_button()->isEnabled());
    form.seqs_field()->setText("128");
    QVERIFY(!form.seqs_field()->property("invalid").toBool());
    form.impl_box(AttentionImpl::flash)->setChecked(false);
    QVERIFY(!form.spec(&error, &field));
    QCOMPARE(field, std::string("impl"));

    form.impl_box(AttentionImpl::flash)->setChecked(true);
    form.set_running(true);
    QCOMPARE(form.run_button()->text(), QStringLiteral("Cancel"));
    QVERIFY(!form.seqs_field()->isEnabled());
    QSignalSpy cancelled(&form, &AttentionSweepForm::cancel_requested);
    form.run_button()->click();
    QCOMPARE(cancelled.size(), 1);
  }
};

QTEST_MAIN(AttentionViewTest)
#include "test_attention_view.moc"
