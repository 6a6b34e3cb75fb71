// The Precision tab in the main window: its two experiments, each a tab built from its
// descriptor. A run from its button fills the table off the GUI thread, is kept in the history
// with its inputs, and reopens from there with those inputs in the form.
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <QLabel>

#include "compat/torch_compat.h"
#include "experiments/precision/precision_inputs.h"
#include "gui/main_window.h"
#include "support/experiment_window.h"
#include "models/schema_table_model.h"
#include "widgets/experiment_view.h"
#include "widgets/input_form.h"

using namespace stepscope;
using namespace stepscope::testing_support;

class PrecisionTabTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void accumulationRunsIsKeptAndReopens() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    auto* view = experiment_view(window, "precision.accumulate");
    QVERIFY(view);
    view->findChild<QPushButton*>("run")->click();
    const auto& model = view->table_model(0);
    QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() == 10, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(!view->is_running(), 60000);
    const int result = model.table().column_index("result");
    QCOMPARE(model.data(model.index(1, result)).toString(),
             QStringLiteral("9.953125"));  // what PyTorch prints for the handout's float16 loop
    QVERIFY(!view->reading().isEmpty());

    const auto runs = window.history().runs();
    QCOMPARE(runs.size(), size_t{1});
    QCOMPARE(runs[0].label, QStringLiteral("precision: accumulation"));
    view->clear();
    QString error;
    QVERIFY2(window.open_run(runs[0].id, &error), qPrintable(error));
    QCOMPARE(model.rowCount(), 10);
    QCOMPARE(model.data(model.index(1, result)).toString(), QStringLiteral("9.953125"));
  }

  void anAutocastRunReopensWithItsInputs() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    auto* view = experiment_view(window, "precision.autocast");
    QVERIFY(view);
    schema::InputValues asked(precision::autocast_inputs());
    asked.set("model", "tiny");  // bf16, the default precision
    asked.set("context", "8");
    asked.set("batch", "2");
    view->set_values(asked);
    QVERIFY(view->request_run());
    QTRY_VERIFY_WITH_TIMEOUT(!view->is_running(), 60000);
    const auto runs = window.history().runs();
    if (runs.empty()) QSKIP("bf16 autocast of the tiny model does not run with this LibTorch on the CPU");
    view->set_values(schema::InputValues(precision::autocast_inputs()));  // the form changed since
    QString error;
    QVERIFY2(window.open_run(runs[0].id, &error), qPrintable(error));
    QCOMPARE(view->form()->values(), asked);
    QVERIFY(view->table_model(0).rowCount() > 0);
  }

  void anAutocastTheDeviceCannotDoSaysWhy() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    auto* view = experiment_view(window, "precision.autocast");
    auto* status = window.findChild<QLabel*>("statusText");
    QVERIFY(view && status);
    // fp16 autocast on the CPU: LibTorch 1.13 has none, 2.x has it.
    schema::InputValues fp16(precision::autocast_inputs());
    fp16.set("model", "tiny");
    fp16.set("precision", "fp16");
    view->set_values(fp16);
    QVERIFY(view->request_run());
    QTRY_VERIFY_WITH_TIMEOUT(!view->is_running(), 60000);
    if (compat::autocast_supported(c10::kCPU, c10::kHalf)) {
      QVERIFY(view->table_model(0).rowCount() > 0);
      QCOMPARE(window.history().runs().size(), size_t{1});
    } else {
      QCOMPARE(view->table_model(0).rowCount(), 0);
      QVERIFY(window.history().runs().empty());
      QVERIFY2(status->text().contains("fp16 autocast is not available on cpu"), qPrintable(status->text()));
    }
  }
};

QTEST_MAIN(PrecisionTabTest)
#include "test_precision_tab.moc"
