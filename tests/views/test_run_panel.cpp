// The run panel: validation at the fields, the estimate, run and cancel.
#include <QComboBox>
#include <QPushButton>
#include <QSpinBox>
#include <QSignalSpy>
#include <QTest>

#include "runners/memory_estimate.h"
#include "widgets/run_panel.h"

using namespace stepscope;
using namespace stepscope::views;

class RunPanelTest : public QObject {
  Q_OBJECT

 private slots:
  void startsOnTheTinyCpuModel() {
    RunPanel panel;
    QString error;
    const auto c = panel.config(&error);
    QVERIFY2(c.has_value(), qPrintable(error));
    QCOMPARE(QString::fromStdString(c->model.name), QStringLiteral("tiny"));
    QCOMPARE(QString::fromStdString(to_string(c->device)), QStringLiteral("cpu"));
    QVERIFY(panel.error_text().isEmpty());
    // tiny: its parameter count as the engine counts it, in millions.
    const double millions = static_cast<double>(parameter_count(model_preset("tiny"))) / 1e6;
    QVERIFY2(panel.estimate_text().contains(QString::number(millions, 'f', 2) + "M parameters") ||
                 panel.estimate_text().contains(QString::number(millions, 'f', 2) + "M</b> parameters"),
             qPrintable(panel.estimate_text()));
  }

  void invalidShapeIsFlaggedAndRunIsDisabled() {
    RunPanel panel;
    BenchConfig c;
    c.model = model_preset("tiny");
    c.model.name = "custom";
    c.model.d_model = 66;  // not a multiple of 4 heads
    panel.set_config(c);
    QVERIFY(!panel.config().has_value());
    QVERIFY2(panel.error_text().contains("head"), qPrintable(panel.error_text()));
    auto* run = panel.findChild<QPushButton*>("runButton");
    QVERIFY(run);
    QVERIFY(!run->isEnabled());
    // The fields at fault are marked; the others are not.
    int marked = 0;
    for (auto* box : panel.findChildren<QSpinBox*>()) marked += box->property("invalid").toBool();
    QCOMPARE(marked, 2);  // d_model and heads
    c.model.d_model = 64;
    panel.set_config(c);
    marked = 0;
    for (auto* box : panel.findChildren<QSpinBox*>()) marked += box->property("invalid").toBool();
    QCOMPARE(marked, 0);
    QVERIFY(run->isEnabled());
  }

  void warnsWhenTheEstimateExceedsTheDevice() {
    RunPanel panel;
    panel.set_devices({{"cpu", "CPU", -1}, {"cuda:0", "Small GPU", int64_t{1} << 30}});
    BenchConfig c;
    c.model = model_preset("2.7B");
    c.device = Device{DeviceKind::cuda, -1};  // "cuda": the first GPU
    panel.set_config(c);
    QCOMPARE(QString::fromStdString(to_string(panel.config()->device)), QStringLiteral("cuda:0"));
    QVERIFY(!panel.fits_device());
    QVERIFY2(panel.estimate_text().contains("will not fit Small GPU"), qPrintable(panel.estimate_text()));
    c.device = Device{};
    panel.set_config(c);
    QVERIFY(panel.fits_device());  // CPU memory is not known: no warning
  }

  void theModelsAttentionIsAFieldAndSurvivesARoundTrip() {
    RunPanel panel;
    QCOMPARE(panel.config()->model.attention, AttentionImpl::naive);
    BenchConfig c = *panel.config();
    c.model.attention = AttentionImpl::flash;
    panel.set_config(c);
    QCOMPARE(panel.config()->model.attention, AttentionImpl::flash);
    auto* box = panel.findChild<QComboBox*>("attentionBox");
    QVERIFY(box);
    QCOMPARE(box->currentText(), QStringLiteral("flash (Stepscope's FlashAttention-2)"));
    box->setCurrentIndex(box->findData(static_cast<int>(AttentionImpl::sdpa)));
    QCOMPARE(panel.config()->model.attention, AttentionImpl::sdpa);
    panel.set_running(true);
    QVERIFY(!box->isEnabled());
  }

  void runEmitsTheConfigurationAndCancelWhileRunning() {
    RunPanel panel;
    QSignalSpy runs(&panel, &RunPanel::run_requested);
    QSignalSpy cancels(&panel, &RunPanel::cancel_requested);
    auto* run = panel.findChild<QPushButton*>("runButton");
    QTest::mouseClick(run, Qt::LeftButton);
    QCOMPARE(runs.count(), 1);
    panel.set_running(true);
    QCOMPARE(run->text(), QStringLiteral("Cancel"));
    QTest::mouseClick(run, Qt::LeftButton);
    QCOMPARE(cancels.count(), 1);
    QCOMPARE(runs.count(), 1);
    panel.set_running(false);
    QCOMPARE(run->text(), QStringLiteral("Run"));
  }
};

QTEST_MAIN(RunPanelTest)
#include "test_run_panel.moc"
