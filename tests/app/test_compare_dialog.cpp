// The comparison window over two stored runs: the tables it fills and the configuration picker.
#include <QComboBox>
#include <QTest>

#include "gui/compare_dialog.h"
#include "models/comparison_model.h"
#include "models/roles.h"

using namespace stepscope;

namespace {

RunRecord record(double step_ms, int64_t gemm_ns) {
  RunRecordEntry e;
  e.result.config.model = model_preset("tiny");
  e.result.config.context = 64;
  e.result.total.mean_ms = step_ms;
  e.result.total.count = 3;
  e.result.steps = {{0, 0, 0, static_cast<int64_t>(step_ms * 1e6)}};
  auto profile = std::make_shared<profiling::KernelProfile>();
  profiling::RangeKernelSummary window;
  window.range = "measured window";
  profiling::KernelStats gemm;
  gemm.name = gemm.short_name = "gemm";
  gemm.total_ns = gemm_ns;
  window.kernels = {gemm};
  profile->ranges = {window};
  e.result.kernel_profile = profile;
  return {{}, {e}};
}

}  // namespace

class CompareDialogTest : public QObject {
  Q_OBJECT

 private slots:
  void fillsEveryTableForTheMatchedConfiguration() {
    gui::CompareDialog dialog(record(10.0, 400), record(12.0, 600), "run 1", "run 2");
    const auto& bench = dialog.benchmark_model();
    int step_row = -1;
    for (int r = 0; r < bench.rowCount(); ++r) {
      if (bench.rows()[static_cast<size_t>(r)].measure == "Step") step_row = r;
    }
    QVERIFY(step_row >= 0);
    QCOMPARE(bench.data(bench.index(step_row, views::ComparisonModel::Ratio), views::ExactValueRole).toDouble(), 1.2);
    auto* picker = dialog.findChild<QComboBox*>();
    QVERIFY(picker);
    QCOMPARE(picker->count(), 1);
    QCOMPARE(picker->currentText(), QStringLiteral("tiny ctx 64 b 4 fp32 train"));
    const auto models = dialog.findChildren<views::ComparisonModel*>();
    bool kernel_rows = false;
    for (const auto* m : models) {
      for (const auto& row : m->rows()) kernel_rows = kernel_rows || (row.item == "gemm" && *row.b == 600.0);
    }
    QVERIFY2(kernel_rows, "the kernel table compares gemm for the configuration");
  }
};

QTEST_MAIN(CompareDialogTest)
#include "test_compare_dialog.moc"
