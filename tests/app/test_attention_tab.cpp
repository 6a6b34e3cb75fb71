// The Attention tab in the main window, on the CPU engine: a sweep from its Run button fills
// the table off the GUI thread, measures naive and flash, is kept in the history and reopens
// from there; a sweep that cannot run here says which field is at fault.
#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "compat/torch_compat.h"
#include "gui/main_window.h"
#include "charts/sweep_chart_view.h"
#include "models/roles.h"
#include "models/schema_table_model.h"
#include "widgets/attention_view.h"

using namespace stepscope;

class AttentionTabTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aCpuSweepRunsIsKeptAndReopens() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    auto* view = window.findChild<views::AttentionView*>();
    QVERIFY(view);
    views::AttentionSweepForm* form = view->form();
    form->impl_box(AttentionImpl::sdpa)->setChecked(false);
    form->head_dims_field()->setText("16");
    form->seqs_field()->setText("32,64");
    form->steps_field()->setValue(2);
    form->run_button()->click();
    QCOMPARE(form->run_button()->text(), QStringLiteral("Cancel"));
    QTRY_VERIFY_WITH_TIMEOUT(form->run_button()->text() == QStringLiteral("Run"), 120000);
    const auto& model = view->model();
    QCOMPARE(model.rowCount(), 4);  // naive and flash at two lengths
    const int status = model.table().column_index("status");
    const int error = model.table().column_index("max_abs_err");
    const int fwd_bwd = model.table().column_index("fwd_bwd_ms");
    for (int r = 0; r < 4; ++r) {
      QCOMPARE(model.data(model.index(r, status)).toString(), QStringLiteral("ok"));
      QVERIFY(model.data(model.index(r, fwd_bwd), views::ExactValueRole).toDouble() > 0);
      QVERIFY(model.data(model.index(r, error), views::ExactValueRole).toDouble() < 1e-4);  // flash's reference is exact
    }
    QCOMPARE(view->time_chart().chart()->series().size(), 2);

    const auto runs = window.history().runs();
    QCOMPARE(runs.size(), size_t{1});
    QVERIFY2(runs[0].label.startsWith("attention: 4 configurations"), qPrintable(runs[0].label));
    view->clear();
    QString problem;
    QVERIFY2(window.open_run(runs[0].id, &problem), qPrintable(problem));
    QCOMPARE(view->model().rowCount(), 4);
  }

  void aSweepThatCannotRunHereSaysWhy() {
    if (compat::has_scaled_dot_product_attention()) QSKIP("this LibTorch has scaled_dot_product_attention");
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    auto* view = window.findChild<views::AttentionView*>();
    auto* status = window.findChild<QLabel*>("statusText");
    QVERIFY(view && status);
    view->form()->impl_box(AttentionImpl::sdpa)->setChecked(true);
    view->form()->seqs_field()->setText("32");
    view->form()->run_button()->click();
    QCOMPARE(view->form()->run_button()->text(), QStringLiteral("Run"));
    QVERIFY2(status->text().startsWith("Cannot run:") && status->text().contains("sdpa"), qPrintable(status->text()));
    QVERIFY(window.history().runs().empty());
  }
};

QTEST_MAIN(AttentionTabTest)
#include "test_attention_tab.moc"
