// The Attention tab in the main window, on the CPU engine: the attention experiment's generic
// tab. A sweep from its Run button fills the table off the GUI thread, measures naive and flash
// (each checked against naive fp32), is kept in the history with its inputs and reopens from
// there with them in the form; Cancel keeps the rows measured; a sweep that cannot run here
// says which field is at fault.
#include <QCheckBox>
#include <QLabel>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "charts/sweep_chart_view.h"
#include "compat/torch_compat.h"
#include "experiments/attention/attention_inputs.h"
#include "gui/main_window.h"
#include "support/experiment_window.h"
#include "models/roles.h"
#include "models/schema_table_model.h"
#include "widgets/attention_charts_view.h"
#include "widgets/experiment_view.h"
#include "widgets/input_form.h"

using namespace stepscope;
using namespace stepscope::testing_support;

class AttentionTabTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aCpuSweepRunsIsKeptAndReopens() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    auto* view = experiment_view(window, "attention");
    QVERIFY(view);
    auto* charts = view->findChild<views::AttentionChartsView*>();
    QVERIFY(charts);
    schema::InputValues asked(attention_inputs());
    asked.set("impl", "naive,flash");
    asked.set("d", "16");
    asked.set("seq", "32,64");
    asked.set("steps", "2");
    view->set_values(asked);
    QVERIFY2(view->request_run(), qPrintable(view->status_text()));
    QCOMPARE(run_button(view)->text(), QStringLiteral("Cancel"));
    QTRY_VERIFY_WITH_TIMEOUT(!view->is_running(), 120000);
    QCOMPARE(run_button(view)->text(), QStringLiteral("Run"));
    const auto& model = view->table_model(0);
    QCOMPARE(model.rowCount(), 4);  // naive and flash at two lengths
    const int status = model.table().column_index("status");
    const int error = model.table().column_index("max_abs_err");
    const int fwd_bwd = model.table().column_index("fwd_bwd_ms");
    for (int r = 0; r < 4; ++r) {
      QCOMPARE(model.data(model.index(r, status)).toString(), QStringLiteral("ok"));
      QVERIFY(model.data(model.index(r, fwd_bwd), views::ExactValueRole).toDouble() > 0);
      QVERIFY(model.data(model.index(r, error), views::ExactValueRole).toDouble() < 1e-4);  // flash's reference is exact
    }
    QCOMPARE(charts->time_chart().chart()->series().size(), 2);
    QVERIFY2(view->status_text().contains("4 row(s)"), qPrintable(view->status_text()));

    const auto runs = window.history().runs();
    QCOMPARE(runs.size(), size_t{1});
    QVERIFY2(runs[0].label.startsWith("attention: 4 configurations"), qPrintable(runs[0].label));
    QCOMPARE(runs[0].label, QStringLiteral("attention: 4 configurations on cpu"));
    view->clear();
    view->set_values(schema::InputValues(attention_inputs()));  // the form changed since
    QString problem;
    QVERIFY2(window.open_run(runs[0].id, &problem), qPrintable(problem));
    QCOMPARE(view->table_model(0).rowCount(), 4);
    QCOMPARE(charts->time_chart().chart()->series().size(), 2);
    QCOMPARE(view->form()->values(), asked);
  }

  void cancelKeepsTheRowsMeasured() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    auto* view = experiment_view(window, "attention");
    QVERIFY(view);
    schema::InputValues asked(attention_inputs());
    asked.set("impl", "naive,flash");
    asked.set("batch", "1");
    asked.set("d", "16");
    asked.set("seq", "16,32,64,128,256,512,1024,2048,4096");
    asked.set("warmup", "0");
    asked.set("steps", "200");
    view->set_values(asked);
    QVERIFY2(view->request_run(), qPrintable(view->status_text()));
    const auto& model = view->table_model(0);
    QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() >= 2 || !view->is_running(), 120000);
    QVERIFY2(view->is_running(), "the sweep ended before it could be cancelled");
    run_button(view)->click();  // Cancel
    QVERIFY2(view->status_text().startsWith("Cancelling"), qPrintable(view->status_text()));
    QTRY_VERIFY_WITH_TIMEOUT(!view->is_running(), 120000);
    const int rows = model.rowCount();
    QVERIFY2(rows >= 2 && rows < 18, qPrintable(QString::number(rows)));
    const int status = model.table().column_index("status");
    QCOMPARE(model.data(model.index(0, status)).toString(), QStringLiteral("ok"));
    QVERIFY2(view->status_text().contains("cancelled"), qPrintable(view->status_text()));
    // Kept in the history with the rows it measured.
    const auto runs = window.history().runs();
    QCOMPARE(runs.size(), size_t{1});
    QCOMPARE(runs[0].label, QStringLiteral("attention: 18 configurations on cpu"));
    view->clear();
    QString problem;
    QVERIFY2(window.open_run(runs[0].id, &problem), qPrintable(problem));
    QCOMPARE(view->table_model(0).rowCount(), rows);
  }

  void aSweepThatCannotRunHereSaysWhy() {
    if (compat::has_scaled_dot_product_attention()) QSKIP("this LibTorch has scaled_dot_product_attention");
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    auto* view = experiment_view(window, "attention");
    auto* status = window.findChild<QLabel*>("statusText");
    QVERIFY(view && status);
    auto* sdpa = view->form()->field("impl")->findChild<QCheckBox*>("impl:sdpa");
    QVERIFY(sdpa);
    QVERIFY(!sdpa->isChecked());  // not a default where this LibTorch has none
    sdpa->setChecked(true);
    schema::InputValues values = view->form()->values();
    values.set("seq", "32");
    view->set_values(values);
    // The field at fault is framed as it is typed, and Run waits; pressed all the same, it says why.
    QVERIFY(view->form()->field("impl")->property("invalid").toBool());
    QVERIFY(!run_button(view)->isEnabled());
    QVERIFY(!view->request_run());
    QCOMPARE(run_button(view)->text(), QStringLiteral("Run"));
    QVERIFY2(view->status_text().startsWith("Cannot run:") && view->status_text().contains("sdpa"),
             qPrintable(view->status_text()));
    QVERIFY2(status->text().startsWith("Cannot run:") && status->text().contains("sdpa"), qPrintable(status->text()));
    QVERIFY(window.history().runs().empty());
  }
};

QTEST_MAIN(AttentionTabTest)
#include "test_attention_tab.moc"
