// The Precision tab in the main window: a run from its button fills the table off the GUI
// thread, is kept in the history as a run with its table, and reopens from there.
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <QLabel>

#include "compat/torch_compat.h"
#include "gui/main_window.h"
#include "models/schema_table_model.h"
#include "widgets/precision_view.h"

using namespace stepscope;

class PrecisionTabTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void accumulationRunsIsKeptAndReopens() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    auto* view = window.findChild<views::PrecisionView*>();
    QVERIFY(view);
    view->findChild<QPushButton*>("accumulateButton")->click();
    QTRY_VERIFY_WITH_TIMEOUT(view->accumulation_model().rowCount() == 10, 60000);
    const int result = view->accumulation_model().table().column_index("result");
    QCOMPARE(view->accumulation_model().data(view->accumulation_model().index(1, result)).toString(),
             QStringLiteral("9.953125"));  // what PyTorch prints for the handout's float16 loop
    QVERIFY(!view->accumulation_reading().isEmpty());

    const auto runs = window.history().runs();
    QCOMPARE(runs.size(), size_t{1});
    QCOMPARE(runs[0].label, QStringLiteral("precision accumulate"));
    view->clear();
    QString error;
    QVERIFY2(window.open_run(runs[0].id, &error), qPrintable(error));
    QCOMPARE(view->accumulation_model().rowCount(), 10);
    QCOMPARE(view->accumulation_model().data(view->accumulation_model().index(1, result)).toString(),
             QStringLiteral("9.953125"));
  }

  void anAutocastTheDeviceCannotDoSaysWhy() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    auto* view = window.findChild<views::PrecisionView*>();
    auto* status = window.findChild<QLabel*>("statusText");
    QVERIFY(view && status);
    // fp16 autocast on the CPU: LibTorch 1.13 has none, 2.x has it.
    emit view->autocast_requested("tiny", "fp16", "cpu");
    QTRY_VERIFY_WITH_TIMEOUT(view->findChild<QPushButton*>("autocastButton")->isEnabled(), 60000);
    if (compat::autocast_supported(c10::kCPU, c10::kHalf)) {
      QVERIFY(view->autocast_model().rowCount() > 0);
      QCOMPARE(window.history().runs().size(), size_t{1});
    } else {
      QCOMPARE(view->autocast_model().rowCount(), 0);
      QVERIFY(window.history().runs().empty());
      QVERIFY2(status->text().contains("fp16 autocast is not available on cpu"), qPrintable(status->text()));
    }
  }
};

QTEST_MAIN(PrecisionTabTest)
#include "test_precision_tab.moc"
