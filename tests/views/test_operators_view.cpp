// The Operators tab: what it says before and without an operator profile (how to get one),
// the tree of a GPU profile with its ranges open, a CPU profile's hidden GPU columns, the
// controls reaching the model, and the exported tables against CSV text written by hand.
#include <QCheckBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QScrollBar>
#include <QTest>
#include <QTreeView>

#include "export/table_export.h"
#include "models/operator_tree_model.h"
#include "models/operator_tree_proxy.h"
#include "operator_fixtures.h"
#include "widgets/operators_view.h"
#include "widgets/run_outcome.h"

using namespace stepscope;
using namespace stepscope::views;
using Col = OperatorTreeModel::Column;

namespace {

RunOutcome outcome(std::shared_ptr<const profiling::OperatorProfile> profile) {
  auto result = std::make_shared<BenchResult>();
  result->config.batch = 2;
  result->config.context = 16;
  result->operator_profile = std::move(profile);
  return RunOutcome{result, nullptr, nullptr};
}

const QAbstractItemModel* table(const OperatorsView& view, const QString& name) {
  for (const auto& t : view.tables()) {
    if (t.name == name) return t.model;
  }
  return nullptr;
}

QModelIndex child(const QAbstractItemModel& model, const QModelIndex& parent, const QString& name) {
  for (int r = 0; r < model.rowCount(parent); ++r) {
    if (model.index(r, 0, parent).data().toString() == name) return model.index(r, 0, parent);
  }
  return {};
}

}  // namespace

class OperatorsViewTest : public QObject {
  Q_OBJECT

 private slots:
  void saysHowToProfileOperatorsBeforeAnyRun() {
    OperatorsView view;
    QVERIFY(view.shows_empty_state());
    QVERIFY2(view.empty_text().contains("Profile: ops"), qPrintable(view.empty_text()));
    QVERIFY2(view.empty_text().contains("--profile ops"), qPrintable(view.empty_text()));
    QCOMPARE(view.tables().size(), size_t{2});
    QCOMPARE(table(view, "operators")->rowCount(), 0);
    QCOMPARE(table(view, "operator_kernels")->rowCount(), 0);
    QVERIFY(view.charts().empty());
    // Nothing to filter or open yet.
    QVERIFY(!view.filter_field().isEnabled());
    QVERIFY(!view.group_by_shapes_box().isEnabled());
  }

  void aConfigurationRunWithoutTheOperatorProfilerSaysSo() {
    OperatorsView view;
    view.add_outcome(outcome(nullptr));
    QVERIFY(view.shows_empty_state());
    QVERIFY2(view.empty_text().contains("ran without the operator profiler"), qPrintable(view.empty_text()));
    QVERIFY2(view.empty_text().contains("--profile ops"), qPrintable(view.empty_text()));
    // A profile that recorded nothing says that, and why where the engine said.
    auto nothing = fixtures::cpu_profile();
    nothing.operators.clear();
    nothing.source_message = "the recorder saw no ATen calls";
    view.add_outcome(outcome(fixtures::shared(nothing)));
    QVERIFY(view.shows_empty_state());
    QCOMPARE(view.empty_text(), QStringLiteral("The operator profiler recorded no operator calls in the 3 measured "
                                               "step(s) (the recorder saw no ATen calls)."));
  }

  void showsAGpuProfileWithItsRangesOpen() {
    OperatorsView view;
    view.add_outcome(outcome(fixtures::shared(fixtures::gpu_profile())));
    QVERIFY(!view.shows_empty_state());
    QVERIFY(view.filter_field().isEnabled());
    // 10 ms over 2 steps.
    QVERIFY2(view.note().startsWith("2 measured step(s), 17 operator calls; 5.00 ms of CPU time per step"),
             qPrintable(view.note()));
    QTreeView& tree = view.tree_view();
    for (int c = 0; c < Col::ColumnCount; ++c) QVERIFY(!tree.isColumnHidden(c));
    // The GPU's time first: forward 1.52 ms, backward 0.5 ms, copy_ 30 µs.
    QCOMPARE(tree.header()->sortIndicatorSection(), static_cast<int>(Col::TotalGpu));
    QCOMPARE(tree.header()->sortIndicatorOrder(), Qt::DescendingOrder);
    const QAbstractItemModel& shown = *tree.model();
    QCOMPARE(shown.index(0, 0).data().toString(), QStringLiteral("forward"));
    QCOMPARE(shown.index(1, 0).data().toString(), QStringLiteral("backward"));
    // Every range open, no operator: its kernels are a click away.
    const QModelIndex forward = child(shown, {}, "forward");
    const QModelIndex attention = child(shown, forward, "attention");
    const QModelIndex softmax = child(shown, attention, "softmax");
    QVERIFY(tree.isExpanded(forward) && tree.isExpanded(attention) && tree.isExpanded(softmax));
    QVERIFY(tree.isExpanded(child(shown, {}, "backward")));
    QVERIFY(!tree.isExpanded(child(shown, forward, "aten::mm")));
    QVERIFY(!tree.isExpanded(child(shown, softmax, "aten::softmax")));
  }

  // On a GPU the profilers trace steps of their own after the measured ones: the note says so,
  // with what tracing cost (8 ms a traced step against 5 ms measured: 1.6x).
  void saysTheProfiledStepsWereTheirOwnAndWhatTracingCost() {
    auto result = std::make_shared<BenchResult>();
    result->operator_profile = fixtures::shared(fixtures::gpu_profile());
    result->total = summarize_ns({5000000, 5000000});
    result->profiled = summarize_ns({7000000, 9000000});
    OperatorsView view;
    view.add_outcome(RunOutcome{result, nullptr, nullptr});
    QVERIFY2(view.note().startsWith("Operators traced in 2 step(s) of their own after the 2 measured one(s), which "
                                    "ran untraced: 8.00 ms a step traced, 1.60x the measured step; 17 operator calls"),
             qPrintable(view.note()));
  }

  void theControlsFilterAndRegroup() {
    OperatorsView view;
    view.add_outcome(outcome(fixtures::shared(fixtures::gpu_profile())));
    QTest::keyClicks(&view.filter_field(), "memcpy");
    QCOMPARE(view.tree_proxy().text_filter(), QStringLiteral("memcpy"));
    const QAbstractItemModel& shown = *view.tree_view().model();
    QCOMPARE(shown.rowCount(), 1);
    QCOMPARE(shown.index(0, 0).data().toString(), QStringLiteral("aten::copy_"));
    // The match is opened to: the operator shows its kernel.
    QVERIFY(view.tree_view().isExpanded(shown.index(0, 0)));
    view.filter_field().clear();
    QCOMPARE(shown.rowCount(), 3);
    QVERIFY(view.group_by_shapes_box().isChecked());
    view.group_by_shapes_box().setChecked(false);
    QVERIFY(!view.tree_model().group_by_shapes());
    const QModelIndex forward = child(shown, {}, "forward");
    QCOMPARE(shown.rowCount(forward), 3);  // attention, aten::mm over 2 shapes, outside operators
    QVERIFY(view.tree_view().isExpanded(forward));
  }

  void aCpuProfileHidesTheGpuColumns() {
    OperatorsView view;
    view.add_outcome(outcome(fixtures::shared(fixtures::cpu_profile())));
    QVERIFY(!view.shows_empty_state());
    QVERIFY2(view.note().contains("no GPU kernels (CPU: no kernels): the GPU columns are hidden"), qPrintable(view.note()));
    QTreeView& tree = view.tree_view();
    for (int c = 0; c < Col::ColumnCount; ++c) QCOMPARE(tree.isColumnHidden(c), OperatorTreeModel::is_gpu_column(c));
    QCOMPARE(tree.header()->sortIndicatorSection(), static_cast<int>(Col::SelfCpu));
    // A GPU profile after it shows them again; the user's sort stays.
    view.add_outcome(outcome(fixtures::shared(fixtures::gpu_profile())));
    for (int c = 0; c < Col::ColumnCount; ++c) QVERIFY(!tree.isColumnHidden(c));
    QCOMPARE(tree.header()->sortIndicatorSection(), static_cast<int>(Col::SelfCpu));
    tree.sortByColumn(Col::SelfGpu, Qt::AscendingOrder);
    view.add_outcome(outcome(fixtures::shared(fixtures::gpu_profile())));
    QCOMPARE(tree.header()->sortIndicatorSection(), static_cast<int>(Col::SelfGpu));
    // Unless a CPU profile hides its column: then the CPU's own time, largest first.
    view.add_outcome(outcome(fixtures::shared(fixtures::cpu_profile())));
    QCOMPARE(tree.header()->sortIndicatorSection(), static_cast<int>(Col::SelfCpu));
    QCOMPARE(tree.header()->sortIndicatorOrder(), Qt::DescendingOrder);
  }

  // The tab's width in a 1280 x 720 window beside the run panel: every number shows whole,
  // the names and shapes of this profile too, and nothing scrolls sideways.
  void fitsEveryColumnInALaptopWindow_data() {
    QTest::addColumn<bool>("gpu");
    QTest::newRow("GPU") << true;
    QTest::newRow("CPU") << false;
  }
  void fitsEveryColumnInALaptopWindow() {
    QFETCH(bool, gpu);
    OperatorsView view;
    view.resize(950, 600);
    view.add_outcome(outcome(fixtures::shared(gpu ? fixtures::gpu_profile() : fixtures::cpu_profile())));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTreeView& tree = view.tree_view();
    const QFontMetrics header(tree.header()->font());
    QStringList cut;
    for (int c = 0; c < Col::ColumnCount; ++c) {
      if (tree.isColumnHidden(c)) continue;
      const int content = static_cast<const QAbstractItemView&>(tree).sizeHintForColumn(c);
      const int label = header.size(0, tree.model()->headerData(c, Qt::Horizontal).toString()).width();
      if (tree.columnWidth(c) < std::max(content, label)) {
        cut << QStringLiteral("%1 (%2 < %3)").arg(c).arg(tree.columnWidth(c)).arg(std::max(content, label));
      }
    }
    QVERIFY2(cut.isEmpty(), qPrintable("columns narrower than their text: " + cut.join(", ")));
    QCOMPARE(tree.horizontalScrollBar()->maximum(), 0);
    // A narrower window: the names and shapes give way, the numbers stay as wide as they need.
    const int self_cpu = tree.columnWidth(Col::SelfCpu);
    const int texts = tree.columnWidth(Col::Name) + tree.columnWidth(Col::InputShapes);
    view.resize(700, 600);
    QTRY_VERIFY(tree.columnWidth(Col::Name) + tree.columnWidth(Col::InputShapes) < texts);
    QCOMPARE(tree.columnWidth(Col::SelfCpu), self_cpu);
  }

  void exportsTheOperatorsAndTheirKernelsWhole() {
    OperatorsView view;
    view.add_outcome(outcome(fixtures::shared(fixtures::cpu_profile())));
    // As the CLI's operators.csv (the engine's schema), per step over the 3 measured steps;
    // nothing measured on the GPU exports empty, not 0; no kernels, no kernel rows.
    QCOMPARE(table_to_csv(*table(view, "operators")),
             QStringLiteral("Range,Operator,Input Shapes,Calls,Calls/Step,Self CPU (ns),Total CPU (ns),Self GPU (ns),"
                            "Total GPU (ns),Self CPU/Step (ns),Total CPU/Step (ns),Self GPU/Step (ns),"
                            "Total GPU/Step (ns),Kernels\n"
                            "forward/attention,aten::bmm,\"[[8, 16, 16], [8, 16, 16]]\",6,2,1200000,1200000,,,400000.0,"
                            "400000.0,,,\n"
                            "forward,aten::linear,\"[[4, 64], [256, 64]]\",3,1,300000,3000000,,,100000.0,1000000.0,,,\n"
                            "forward,aten::addmm,\"[[256], [4, 64], [64, 256]]\",3,1,2700000,2700000,,,900000.0,900000.0,,,"
                            "\n"));
    QCOMPARE(table(view, "operator_kernels")->rowCount(), 0);
    // The filter leaves exports whole.
    QTest::keyClicks(&view.filter_field(), "bmm");
    QCOMPARE(table(view, "operators")->rowCount(), 3);

    // The GPU profile's 2 measured steps.
    view.add_outcome(outcome(fixtures::shared(fixtures::gpu_profile())));
    const QString operators = table_to_csv(*table(view, "operators"));
    QVERIFY2(operators.contains("\nforward,aten::mm,\"[[4, 64], [64, 256]]\",2,1,500000,500000,400000,400000,250000.0,"
                                "250000.0,200000.0,200000.0,2\n"),
             qPrintable(operators));
    QVERIFY2(operators.contains("\n,aten::copy_,\"[[4, 64], [4, 64]]\",1,0.5,50000,50000,30000,30000,25000.0,25000.0,15000.0,"
                                "15000.0,1\n"),
             qPrintable(operators));
    QCOMPARE(table(view, "operators")->rowCount(), 8);
    // One row per kernel of each operator row: 1 + 1 + 2 + 1 + 1 + 1 + 1.
    const QAbstractItemModel& kernels = *table(view, "operator_kernels");
    QCOMPARE(kernels.rowCount(), 8);
    const QString csv = table_to_csv(kernels);
    QVERIFY2(csv.startsWith("Range,Operator,Input Shapes,Kernel,Short Name,Category,Launches,Launches/Step,"
                            "Total Time (ns),Avg (ns),Time/Step (ns)\n"),
             qPrintable(csv));
    QVERIFY2(csv.contains("\nforward,aten::mm,\"[[4, 64], [64, 256]]\",\"void vectorized_elementwise_kernel<4, "
                          "AddFunctor>(int)\",vectorized_elementwise_kernel,elementwise,2,1,100000,50000.0,50000.0\n"),
             qPrintable(csv));
    QVERIFY2(csv.contains("\nforward,(outside operators),[],void stepscope_fused_bias_gelu(float*),"
                          "stepscope_fused_bias_gelu,elementwise,1,0.5,70000,70000.0,35000.0\n"),
             qPrintable(csv));
  }
};

QTEST_MAIN(OperatorsViewTest)
#include "test_operators_view.moc"
