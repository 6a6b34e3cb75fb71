// The comparison window over two stored runs: configurations paired also across a changed
// setting, B - A and B / A, tables of any experiment, and why a figure is missing.
#include <QComboBox>
#include <QLabel>
#include <QTest>

#include "gui/compare_dialog.h"
#include "models/comparison_model.h"
#include "models/roles.h"
#include "registry/experiment_registry.h"

using namespace stepscope;

namespace {

RunRecordEntry entry(double step_ms, int64_t gemm_ns, int64_t context = 64) {
  RunRecordEntry e;
  e.result.config.model = model_preset("tiny");
  e.result.config.context = context;
  e.result.config.profile_kernels = true;
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
  return e;
}

RunRecord record(double step_ms, int64_t gemm_ns, int64_t context = 64) {
  return {{}, {entry(step_ms, gemm_ns, context)}};
}

double exact(const views::ComparisonModel& m, size_t row, int column) {
  return m.data(m.index(static_cast<int>(row), column), views::ExactValueRole).toDouble();
}

const views::ComparisonRow* find_row(const views::ComparisonModel& m, const QString& measure, size_t* at = nullptr) {
  for (size_t r = 0; r < m.rows().size(); ++r) {
    if (m.rows()[r].measure != measure) continue;
    if (at) *at = r;
    return &m.rows()[r];
  }
  return nullptr;
}

// A table of `experiment`'s main schema, one row per (identity values, measure value).
schema::Table table_of(const std::string& experiment, const std::vector<std::map<std::string, schema::Value>>& rows) {
  schema::Table t = find_experiment(experiment)->tables.front();
  for (const auto& values : rows) {
    std::vector<schema::Value> row(t.columns.size());
    for (const auto& [key, value] : values) row.at(static_cast<size_t>(t.column_index(key))) = value;
    t.rows.push_back(row);
  }
  return t;
}

}  // namespace

class CompareDialogTest : public QObject {
  Q_OBJECT

 private slots:
  void fillsEveryTableForTheMatchedConfiguration() {
    gui::CompareDialog dialog(record(10.0, 400), record(12.0, 600), "run 1", "run 2");
    QVERIFY(dialog.benchmark_model());
    const auto& bench = *dialog.benchmark_model();
    size_t step_row = 0;
    QVERIFY(find_row(bench, "Step", &step_row));
    QCOMPARE(exact(bench, step_row, views::ComparisonModel::Ratio), 1.2);
    auto* picker = dialog.findChild<QComboBox*>();
    QVERIFY(picker);
    QCOMPARE(picker->count(), 1);
    QCOMPARE(picker->currentText(), QStringLiteral("tiny, Context 64, Batch 4, fp32, train, naive, eager"));
    const auto models = dialog.findChildren<views::ComparisonModel*>();
    bool kernel_rows = false;
    for (const auto* m : models) {
      for (const auto& row : m->rows()) kernel_rows = kernel_rows || (row.item == "gemm" && row.b && *row.b == 600.0);
    }
    QVERIFY2(kernel_rows, "the kernel table compares gemm for the configuration");
    QVERIFY(dialog.changed_settings().isEmpty());
  }

  // The usual question: what did my change do? Context 128 in A, 256 in B: still one pair.
  void benchRunsDifferingInContextPairAndNameTheSetting() {
    gui::CompareDialog dialog(record(10.0, 400, 128), record(25.0, 900, 256), "run 1", "run 2");
    const auto& bench = *dialog.benchmark_model();
    size_t at = 0;
    const auto* step = find_row(bench, "Step", &at);
    QVERIFY(step);
    QVERIFY2(step->item.contains(QStringLiteral("Context 128 → 256")), qPrintable(step->item));
    QCOMPARE(exact(bench, at, views::ComparisonModel::Difference), 15.0);
    QCOMPARE(exact(bench, at, views::ComparisonModel::Ratio), 2.5);
    QCOMPARE(bench.data(bench.index(static_cast<int>(at), views::ComparisonModel::Difference)).toString(),
             QStringLiteral("+15.0 ms"));
    QCOMPARE(dialog.changed_settings(), QStringLiteral("Context 128 → 256"));
    QVERIFY(dialog.findChild<QLabel*>("compareHeader")->text().contains(QStringLiteral("Context 128 → 256")));
    auto* picker = dialog.findChild<QComboBox*>();
    QCOMPARE(picker->count(), 1);
    bool kernels_paired = false;
    for (const auto* m : dialog.findChildren<views::ComparisonModel*>()) {
      for (const auto& row : m->rows()) kernels_paired = kernels_paired || (row.item == "gemm" && row.a && row.b);
    }
    QVERIFY2(kernels_paired, "the pair's kernels are compared although the context differs");
  }

  // Table experiments compare too: attention rows pair by their configuration.
  void attentionRunsPairTheirRows() {
    RunRecord a, b;
    a.tables = {table_of("attention", {{{"impl", std::string("naive")}, {"seq", int64_t{128}}, {"fwd_bwd_ms", 2.0}},
                                       {{"impl", std::string("flash")}, {"seq", int64_t{128}}, {"fwd_bwd_ms", 1.0}}})};
    b.tables = {table_of("attention", {{{"impl", std::string("flash")}, {"seq", int64_t{128}}, {"fwd_bwd_ms", 0.5}},
                                       {{"impl", std::string("naive")}, {"seq", int64_t{128}}, {"fwd_bwd_ms", 3.0}}})};
    gui::CompareDialog dialog(a, b, "run 1", "run 2");
    QVERIFY(!dialog.benchmark_model());
    const auto models = dialog.findChildren<views::ComparisonModel*>();
    QCOMPARE(models.size(), 1);
    const auto& m = *models.front();
    QCOMPARE(m.rows().size(), size_t{2});
    for (size_t r = 0; r < m.rows().size(); ++r) {
      const auto& row = m.rows()[r];
      QCOMPARE(row.measure, QStringLiteral("Fwd+bwd"));
      QCOMPARE(exact(m, r, views::ComparisonModel::Ratio), row.item.startsWith("naive") ? 1.5 : 0.5);
    }
  }

  // A collective sweep run again on 4 ranks instead of 2: each size pairs with its own.
  void collectiveRunsOnAnotherWorldSizePairBySize() {
    const auto row = [](int64_t nproc, int64_t size, double busbw) {
      return std::map<std::string, schema::Value>{{"op", std::string("all_reduce")}, {"backend", std::string("gloo")},
                                                  {"nproc", nproc}, {"size_bytes", size}, {"busbw_gbps", busbw}};
    };
    RunRecord a, b;
    a.tables = {table_of("collectives", {row(2, 4096, 1.0), row(2, 1 << 20, 4.0)})};
    b.tables = {table_of("collectives", {row(4, 4096, 1.5), row(4, 1 << 20, 2.0)})};
    gui::CompareDialog dialog(a, b, "run 1", "run 2");
    const auto& m = *dialog.findChildren<views::ComparisonModel*>().front();
    std::vector<double> ratios;
    for (size_t r = 0; r < m.rows().size(); ++r) {
      if (m.rows()[r].measure.startsWith("busbw")) ratios.push_back(exact(m, r, views::ComparisonModel::Ratio));
    }
    QCOMPARE(ratios, (std::vector<double>{1.5, 0.5}));
    QVERIFY2(dialog.changed_settings().contains(QStringLiteral("2 → 4")), qPrintable(dialog.changed_settings()));
  }

  // A figure left blank says why: B ran without the memory profiler; B ran out of memory.
  void aMissingFigureSaysWhy() {
    RunRecord a = record(10.0, 400), b = record(12.0, 600);
    a.entries[0].result.config.profile_memory = true;
    auto timeline = std::make_shared<profiling::MemoryTimeline>();
    profiling::MemoryPeak peak;
    peak.label = "forward";
    peak.allocated_bytes = 1 << 20;
    timeline->peaks = {peak};
    a.entries[0].timeline = timeline;
    b.entries[0].result.status = RunStatus::out_of_memory;
    b.entries[0].result.total = {};
    b.entries[0].result.steps.clear();
    gui::CompareDialog dialog(a, b, "run 1", "run 2");
    const auto* step = find_row(*dialog.benchmark_model(), "Step");
    QVERIFY(step && step->a && !step->b);
    QCOMPARE(step->note, QStringLiteral("B ran out of memory"));
    bool said = false;
    for (const auto* m : dialog.findChildren<views::ComparisonModel*>()) {
      for (const auto& row : m->rows()) {
        if (row.item == "forward" && row.measure == "allocated") said = row.note == "B ran without the memory profiler";
      }
    }
    QVERIFY2(said, "the memory peak says B ran without the memory profiler");
  }
};

QTEST_MAIN(CompareDialogTest)
#include "test_compare_dialog.moc"
