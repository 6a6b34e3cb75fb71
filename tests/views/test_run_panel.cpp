// The run panel: the step benchmark's declared inputs as a form, the estimate under it, a
// sweep from its lists, run and cancel.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include "experiments/bench/bench_inputs.h"
#include "model/flops.h"
#include "runners/memory_estimate.h"
#include "schema/value_format.h"
#include "widgets/input_form.h"
#include "widgets/run_panel.h"

using namespace stepscope;
using namespace stepscope::views;

namespace {

// The step benchmark as the app declares it, less what needs LibTorch (whether this machine
// can run it): the form, the sweep and the estimate are the engine's plain types.
const ExperimentDescriptor& bench() {
  static const ExperimentDescriptor d = [] {
    ExperimentDescriptor out;
    out.id = "bench";
    out.name = "Step benchmark";
    out.inputs = &bench_inputs();
    out.check = [](const schema::InputValues& values) { expand(bench_spec(values)); };
    return out;
  }();
  return d;
}

bool framed(const RunPanel& panel, const std::string& key) {
  return panel.form().form()->field(key)->property("invalid").toBool();
}

QPushButton* run_button(const RunPanel& panel) { return panel.findChild<QPushButton*>("run"); }

}  // namespace

class RunPanelTest : public QObject {
  Q_OBJECT

 private slots:
  void startsOnTheTinyCpuModel() {
    RunPanel panel(bench());
    const auto configs = panel.configs();
    QCOMPARE(configs.size(), size_t{1});
    QCOMPARE(QString::fromStdString(configs.front().model.name), QStringLiteral("tiny"));
    QCOMPARE(QString::fromStdString(to_string(configs.front().device)), QStringLiteral("cpu"));
    QVERIFY(panel.error_text().isEmpty());
    // tiny: its parameter count as the engine counts it, in millions.
    const double millions = static_cast<double>(parameter_count(model_preset("tiny"))) / 1e6;
    QVERIFY2(panel.estimate_text().contains(QString::number(millions, 'f', 2) + "M</b> parameters"),
             qPrintable(panel.estimate_text()));
    // What only names the command line's CSV files has no field here.
    QVERIFY(panel.form().form()->field("memory-points") == nullptr);
    QVERIFY(panel.form().form()->field("short-names") == nullptr);
  }

  void invalidShapeIsFlaggedAndRunIsDisabled() {
    RunPanel panel(bench());
    BenchConfig c;
    c.model = model_preset("tiny");
    c.model.name = "custom";
    c.model.d_model = 66;  // not a multiple of 4 heads
    panel.set_config(c);
    QVERIFY(panel.configs().empty());
    QVERIFY2(panel.error_text().contains("head"), qPrintable(panel.error_text()));
    QVERIFY(panel.estimate_text().isEmpty());
    QVERIFY(!run_button(panel)->isEnabled());
    // The field the error names is framed; the others are not.
    QVERIFY(framed(panel, "heads"));
    QVERIFY(!framed(panel, "d-model"));
    QVERIFY(!framed(panel, "context"));
    c.model.d_model = 64;
    panel.set_config(c);
    QVERIFY(!framed(panel, "heads"));
    QCOMPARE(panel.configs().size(), size_t{1});
    QCOMPARE(panel.configs().front().model.d_model, int64_t{64});
    QVERIFY(run_button(panel)->isEnabled());
  }

  void aPresetAndACustomShapeAreRefusedTogether() {
    RunPanel panel(bench());  // tiny is ticked
    panel.form().form()->findChild<QLineEdit*>("d-model")->setText("128");
    QVERIFY(panel.configs().empty());
    QVERIFY2(panel.error_text().contains("cannot be combined"), qPrintable(panel.error_text()));
    QVERIFY(framed(panel, "model"));
  }

  void listsMakeASweepSaidByItsLargestConfiguration() {
    RunPanel panel(bench());
    panel.form().form()->findChild<QLineEdit*>("context")->setText("64,128");
    panel.form().form()->findChild<QCheckBox*>("mode:forward")->setChecked(true);  // beside train
    const auto configs = panel.configs();
    QCOMPARE(configs.size(), size_t{4});
    QCOMPARE(configs.back().context, int64_t{128});
    QVERIFY2(panel.estimate_text().contains("<b>4</b> configurations"), qPrintable(panel.estimate_text()));
    QVERIFY2(panel.estimate_text().contains("ctx 128") || panel.estimate_text().contains("context 128"),
             qPrintable(panel.estimate_text()));
  }

  void aRangeMakesASweepAndItsDurationFollowsTheLastPace() {
    RunPanel panel(bench());
    panel.form().form()->findChild<QLineEdit*>("context")->setText("32..128 x2");
    const auto configs = panel.configs();
    QCOMPARE(configs.size(), size_t{3});
    QCOMPARE(configs[1].context, int64_t{64});
    QVERIFY2(panel.estimate_text().contains("known after a first run on cpu"), qPrintable(panel.estimate_text()));
    // 1 GFLOP/s: each configuration's steps' FLOPs, counted by the engine's formula, in seconds.
    double flops = 0;
    for (const auto& c : configs) {
      flops += (c.warmup_steps + c.measured_steps) * step_matmul_flops(c.model, c.batch, c.context, true);
    }
    panel.set_paces({{"cpu", 1e9}});
    const QString expected = QString::fromStdString(schema::duration_ns_text(flops));
    QVERIFY2(panel.estimate_text().contains("takes about <b>" + expected + "</b>"), qPrintable(panel.estimate_text()));
    panel.form().form()->findChild<QLineEdit*>("context")->setText("128..32 x2");
    QVERIFY(framed(panel, "context"));
    QVERIFY(panel.configs().empty());
  }

  void warnsWhenTheEstimateExceedsTheDevice() {
    RunPanel panel(bench());
    panel.set_devices({{"cpu", "CPU", -1}, {"cuda:0", "Small GPU", int64_t{1} << 30}});
    BenchConfig c;
    c.model = model_preset("2.7B");
    c.device = Device{DeviceKind::cuda, -1};  // "cuda": the first GPU
    panel.set_config(c);
    QCOMPARE(panel.configs().size(), size_t{1});
    QCOMPARE(QString::fromStdString(to_string(panel.configs().front().device)), QStringLiteral("cuda"));
    QVERIFY(!panel.fits_device());
    QVERIFY2(panel.estimate_text().contains("will not fit Small GPU"), qPrintable(panel.estimate_text()));
    c.device = Device{};
    panel.set_config(c);
    QVERIFY(panel.fits_device());  // CPU memory is not known: no warning
  }

  void theModelsAttentionIsAFieldAndSurvivesARoundTrip() {
    RunPanel panel(bench());
    QCOMPARE(panel.configs().front().model.attention, AttentionImpl::naive);
    BenchConfig c = panel.configs().front();
    c.model.attention = AttentionImpl::flash;
    panel.set_config(c);
    QCOMPARE(panel.configs().front().model.attention, AttentionImpl::flash);
    auto* flash = panel.form().form()->findChild<QCheckBox*>("attention:flash");
    QVERIFY(flash && flash->isChecked());
    panel.set_running(true);
    QVERIFY(!flash->isEnabled());
  }

  void runEmitsTheInputsAndCancelWhileRunning() {
    RunPanel panel(bench());
    QSignalSpy runs(&panel, &RunPanel::run_requested);
    QSignalSpy cancels(&panel, &RunPanel::cancel_requested);
    QPushButton* run = run_button(panel);
    QTest::mouseClick(run, Qt::LeftButton);
    QCOMPARE(runs.count(), 1);
    const auto values = runs.front().front().value<schema::InputValues>();
    QCOMPARE(QString::fromStdString(values.text("model")), QStringLiteral("tiny"));
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
