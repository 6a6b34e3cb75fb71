// The Operators tab's tree: range → operator → kernel from a hand-built profile, the sums at
// range nodes, shape grouping on and off, sorting within parents, the text filter, and the
// CPU and empty profiles. Every expected value is worked out by hand from operator_fixtures.h.
#include <QFont>
#include <QTest>

#include "model_fixtures.h"
#include "models/operator_tree_model.h"
#include "models/operator_tree_proxy.h"
#include "models/roles.h"
#include "operator_fixtures.h"

using namespace stepscope;
using namespace stepscope::views;
using Col = OperatorTreeModel::Column;

namespace {

QString cell(const QAbstractItemModel& model, const QModelIndex& row, int column) {
  return model.index(row.row(), column, row.parent()).data(Qt::DisplayRole).toString();
}

QVariant exact(const QAbstractItemModel& model, const QModelIndex& row, int column) {
  return model.index(row.row(), column, row.parent()).data(ExactValueRole);
}

// The names of the children of `parent`, in the model's order.
QStringList names(const QAbstractItemModel& model, const QModelIndex& parent = {}) {
  QStringList names;
  for (int r = 0; r < model.rowCount(parent); ++r) names << model.index(r, 0, parent).data().toString();
  return names;
}

// The child of `parent` named `name` (with `shapes` when given); invalid when there is none.
QModelIndex child(const QAbstractItemModel& model, const QModelIndex& parent, const QString& name,
                  const QString& shapes = {}) {
  for (int r = 0; r < model.rowCount(parent); ++r) {
    const QModelIndex i = model.index(r, 0, parent);
    if (i.data().toString() != name) continue;
    if (!shapes.isEmpty() && model.index(r, Col::InputShapes, parent).data().toString() != shapes) continue;
    return i;
  }
  return {};
}

// A path of names from the top: {"forward", "attention", "softmax"}.
QModelIndex at(const QAbstractItemModel& model, const QStringList& path) {
  QModelIndex i;
  for (const QString& name : path) {
    i = child(model, i, name);
    if (!i.isValid()) return {};
  }
  return i;
}

}  // namespace

class OperatorTreeModelTest : public QObject {
  Q_OBJECT

 private slots:
  void rangesHoldTheirOperatorsAndOperatorsTheirKernels() {
    OperatorTreeModel model;
    fixtures::tester(&model);
    model.set_profile(fixtures::shared(fixtures::gpu_profile()));
    // In the order each first appears: forward, backward, then the copy called outside every range.
    QCOMPARE(names(model), QStringList({"forward", "backward", "aten::copy_"}));
    const QModelIndex forward = at(model, {"forward"});
    QCOMPARE(names(model, forward), QStringList({"attention", "aten::mm", "aten::mm", "(outside operators)"}));
    const QModelIndex attention = at(model, {"forward", "attention"});
    QCOMPARE(names(model, attention), QStringList({"aten::linear", "aten::addmm", "softmax"}));
    QCOMPARE(names(model, at(model, {"forward", "attention", "softmax"})), QStringList({"aten::softmax"}));
    // aten::linear launched nothing itself: its GPU time is addmm's, a row of its own.
    QCOMPARE(names(model, child(model, attention, "aten::linear")), QStringList());
    const QModelIndex mm = child(model, forward, "aten::mm", "[[4, 64], [64, 256]]");
    QVERIFY(mm.isValid());
    QCOMPARE(names(model, mm), QStringList({"gemm_kernel", "vectorized_elementwise_kernel"}));
    // The kernel's own figures: launches, and GPU time in both GPU columns.
    const QModelIndex gemm = child(model, mm, "gemm_kernel");
    QCOMPARE(cell(model, gemm, Col::Calls), QStringLiteral("2"));
    QCOMPARE(exact(model, gemm, Col::SelfGpu).toLongLong(), 300'000LL);
    QCOMPARE(cell(model, gemm, Col::TotalGpu), QStringLiteral("300 µs"));
    QCOMPARE(cell(model, gemm, Col::GpuPerStep), QStringLiteral("150 µs"));  // 300 µs over 2 steps
    // No CPU time is a kernel's: the CPU cells are blank, not zero.
    QCOMPARE(cell(model, gemm, Col::SelfCpu), QString());
    QVERIFY(!exact(model, gemm, Col::TotalCpu).isValid());
    QVERIFY(model.data(gemm, Qt::ToolTipRole).toString().contains(fixtures::kGemm));
    // The operator row: its figures as the profile holds them.
    QCOMPARE(cell(model, mm, Col::Calls), QStringLiteral("2"));
    QCOMPARE(cell(model, mm, Col::TotalCpu), QStringLiteral("500 µs"));
    QCOMPARE(cell(model, mm, Col::SelfGpu), QStringLiteral("400 µs"));
    QCOMPARE(cell(model, mm, Col::SelfCpuPercent), QStringLiteral("5.0%"));  // 0.5 ms of 10 ms
    // 0.4 ms of the 2.05 ms every kernel took (0.6 + 0.2 + 0.4 + 0.25 + 0.5 + 0.03 + 0.07): 19.51...%
    QCOMPARE(cell(model, mm, Col::SelfGpuPercent), QStringLiteral("19.5%"));
    QCOMPARE(exact(model, mm, Col::SelfGpuPercent).toDouble(), 100.0 * 400'000 / 2'050'000);
  }

  void rangesSumTheSelfTimesOfEverythingInside() {
    OperatorTreeModel model;
    model.set_profile(fixtures::shared(fixtures::gpu_profile()));
    // softmax: aten::softmax alone.
    const QModelIndex softmax = at(model, {"forward", "attention", "softmax"});
    QCOMPARE(exact(model, softmax, Col::SelfCpu).toLongLong(), 300'000LL);
    QCOMPARE(exact(model, softmax, Col::Calls).toLongLong(), 2LL);
    // attention: linear 0.1 + addmm 0.9 + softmax 0.3 = 1.3 ms self; 4 + 4 + 2 calls; GPU 0 + 0.6 + 0.2.
    const QModelIndex attention = at(model, {"forward", "attention"});
    QCOMPARE(exact(model, attention, Col::SelfCpu).toLongLong(), 1'300'000LL);
    QCOMPARE(exact(model, attention, Col::Calls).toLongLong(), 10LL);
    QCOMPARE(exact(model, attention, Col::SelfGpu).toLongLong(), 800'000LL);
    // Its total is the same 1.3 ms, not linear's 1.0 + addmm's 0.9 + softmax's 0.3 = 2.2 ms:
    // addmm runs inside linear, and its time would count twice.
    QCOMPARE(exact(model, attention, Col::TotalCpu).toLongLong(), 1'300'000LL);
    QCOMPARE(exact(model, attention, Col::TotalGpu).toLongLong(), 800'000LL);
    // forward: attention 1.3 + mm 0.5 + mm 0.4 = 2.2 ms; calls 10 + 2 + 2 (the kernels launched
    // outside every operator are no calls); GPU 0.8 + 0.4 + 0.25 + 0.07 outside operators = 1.52 ms.
    const QModelIndex forward = at(model, {"forward"});
    QCOMPARE(exact(model, forward, Col::SelfCpu).toLongLong(), 2'200'000LL);
    QCOMPARE(exact(model, forward, Col::TotalCpu).toLongLong(), 2'200'000LL);
    QCOMPARE(exact(model, forward, Col::Calls).toLongLong(), 14LL);
    QCOMPARE(exact(model, forward, Col::SelfGpu).toLongLong(), 1'520'000LL);
    QCOMPARE(cell(model, forward, Col::TotalCpu), QStringLiteral("2.20 ms"));
    QCOMPARE(cell(model, forward, Col::SelfCpuPercent), QStringLiteral("22.0%"));  // of 10 ms
    QCOMPARE(cell(model, forward, Col::CpuPerStep), QStringLiteral("1.10 ms"));    // over 2 steps
    QCOMPARE(cell(model, forward, Col::SelfGpuPercent), QStringLiteral("74.1%"));  // 1.52 of 2.05 ms
    QCOMPARE(cell(model, forward, Col::GpuPerStep), QStringLiteral("760 µs"));
    // The kernels launched outside every operator: their launches, GPU time, and no CPU figures.
    const QModelIndex outside = child(model, forward, "(outside operators)");
    QCOMPARE(cell(model, outside, Col::Calls), QStringLiteral("1"));
    QCOMPARE(cell(model, outside, Col::SelfGpu), QStringLiteral("70.0 µs"));
    QCOMPARE(cell(model, outside, Col::SelfCpu), QString());
    QCOMPARE(cell(model, outside, Col::InputShapes), QStringLiteral("[]"));
    // A range's rows are bold; operators are not.
    QVERIFY(model.data(forward, Qt::FontRole).value<QFont>().bold());
    QVERIFY(!model.data(outside, Qt::FontRole).isValid());
  }

  void mergingShapesSumsTheOperatorAndItsKernels() {
    OperatorTreeModel model;
    fixtures::tester(&model);
    model.set_profile(fixtures::shared(fixtures::gpu_profile()));
    model.set_group_by_shapes(false);
    QVERIFY(!model.group_by_shapes());
    const QModelIndex forward = at(model, {"forward"});
    QCOMPARE(names(model, forward), QStringList({"attention", "aten::mm", "(outside operators)"}));
    // forward's two aten::mm signatures: calls 2 + 2, CPU 0.5 + 0.4, GPU 0.4 + 0.25.
    const QModelIndex mm = child(model, forward, "aten::mm");
    QCOMPARE(cell(model, mm, Col::InputShapes), QStringLiteral("2 shapes"));
    QCOMPARE(exact(model, mm, Col::Calls).toLongLong(), 4LL);
    QCOMPARE(exact(model, mm, Col::TotalCpu).toLongLong(), 900'000LL);
    QCOMPARE(exact(model, mm, Col::SelfCpu).toLongLong(), 900'000LL);
    QCOMPARE(exact(model, mm, Col::SelfGpu).toLongLong(), 650'000LL);
    QCOMPARE(exact(model, mm, Col::TotalGpu).toLongLong(), 650'000LL);
    QVERIFY(model.data(mm, Qt::ToolTipRole).toString().contains("[[4, 256], [256, 64]]"));
    // gemm of both: 2 + 2 launches, 0.3 + 0.25 ms, first; the add kernel after it.
    QCOMPARE(names(model, mm), QStringList({"gemm_kernel", "vectorized_elementwise_kernel"}));
    const QModelIndex gemm = child(model, mm, "gemm_kernel");
    QCOMPARE(exact(model, gemm, Col::Calls).toLongLong(), 4LL);
    QCOMPARE(exact(model, gemm, Col::TotalGpu).toLongLong(), 550'000LL);
    // The same operator in another range stays apart; a single signature shows itself.
    const QModelIndex backward_mm = at(model, {"backward", "aten::mm"});
    QCOMPARE(exact(model, backward_mm, Col::Calls).toLongLong(), 2LL);
    QCOMPARE(cell(model, backward_mm, Col::InputShapes), QStringLiteral("[[4, 64], [64, 256]]"));
    // Ranges sum the same either way.
    QCOMPARE(exact(model, forward, Col::SelfCpu).toLongLong(), 2'200'000LL);
    QCOMPARE(exact(model, forward, Col::SelfGpu).toLongLong(), 1'520'000LL);
    // And back: one row per signature again.
    model.set_group_by_shapes(true);
    QCOMPARE(names(model, forward), QStringList({"attention", "aten::mm", "aten::mm", "(outside operators)"}));
  }

  void sortsChildrenWithinTheirParents() {
    OperatorTreeModel model;
    model.set_profile(fixtures::shared(fixtures::gpu_profile()));
    OperatorTreeProxy proxy;
    fixtures::tester(&proxy);
    proxy.setSourceModel(&model);
    proxy.sort(Col::SelfCpu, Qt::DescendingOrder);
    // forward 2.2 ms, backward 0.7 ms, copy_ 50 µs.
    QCOMPARE(names(proxy), QStringList({"forward", "backward", "aten::copy_"}));
    // attention 1.3, mm 0.5, mm 0.4; the kernels outside operators have no CPU time: last.
    // Persistent: the rows move as the proxy sorts.
    const QPersistentModelIndex forward = at(proxy, {"forward"});
    QCOMPARE(names(proxy, forward), QStringList({"attention", "aten::mm", "aten::mm", "(outside operators)"}));
    QCOMPARE(cell(proxy, proxy.index(1, 0, forward), Col::InputShapes), QStringLiteral("[[4, 64], [64, 256]]"));
    // addmm 0.9, softmax 0.3, linear 0.1.
    QCOMPARE(names(proxy, at(proxy, {"forward", "attention"})), QStringList({"aten::addmm", "softmax", "aten::linear"}));
    proxy.sort(Col::SelfCpu, Qt::AscendingOrder);
    QCOMPARE(names(proxy), QStringList({"aten::copy_", "backward", "forward"}));
    QCOMPARE(names(proxy, forward), QStringList({"aten::mm", "aten::mm", "attention", "(outside operators)"}));
    // By GPU: attention 0.8, mm 0.4, mm 0.25, outside operators 70 µs.
    proxy.sort(Col::TotalGpu, Qt::DescendingOrder);
    QCOMPARE(names(proxy, forward), QStringList({"attention", "aten::mm", "aten::mm", "(outside operators)"}));
    QCOMPARE(cell(proxy, proxy.index(2, 0, forward), Col::InputShapes), QStringLiteral("[[4, 256], [256, 64]]"));
    // Kernels sort among themselves: add 0.1 ms before gemm 0.3 ms ascending.
    proxy.sort(Col::TotalGpu, Qt::AscendingOrder);
    const QModelIndex mm = child(proxy, forward, "aten::mm", "[[4, 64], [64, 256]]");
    QCOMPARE(names(proxy, mm), QStringList({"vectorized_elementwise_kernel", "gemm_kernel"}));
    // By name, case-insensitively, at every level.
    proxy.sort(Col::Name, Qt::AscendingOrder);
    QCOMPARE(names(proxy), QStringList({"aten::copy_", "backward", "forward"}));
    QCOMPARE(names(proxy, at(proxy, {"forward", "attention"})), QStringList({"aten::addmm", "aten::linear", "softmax"}));
  }

  void filterKeepsMatchesWithTheirAncestorsAndContents() {
    OperatorTreeModel model;
    model.set_profile(fixtures::shared(fixtures::gpu_profile()));
    OperatorTreeProxy proxy;
    fixtures::tester(&proxy);
    proxy.setSourceModel(&model);
    // A range (and the operator and kernel of the same name), case-insensitively: the path to it.
    proxy.set_text_filter("SOFTMAX");
    QCOMPARE(proxy.text_filter(), QStringLiteral("SOFTMAX"));
    QCOMPARE(names(proxy), QStringList({"forward"}));
    QCOMPARE(names(proxy, at(proxy, {"forward"})), QStringList({"attention"}));
    QCOMPARE(names(proxy, at(proxy, {"forward", "attention"})), QStringList({"softmax"}));
    QCOMPARE(names(proxy, at(proxy, {"forward", "attention", "softmax", "aten::softmax"})),
             QStringList({"softmax_warp_forward"}));
    // Input shapes: only forward's second aten::mm has [256, 64]; its kernel comes with it.
    proxy.set_text_filter("256, 64]]");
    QCOMPARE(names(proxy), QStringList({"forward"}));
    const QModelIndex forward = at(proxy, {"forward"});
    QCOMPARE(names(proxy, forward), QStringList({"aten::mm"}));
    QCOMPARE(cell(proxy, proxy.index(0, 0, forward), Col::InputShapes), QStringLiteral("[[4, 256], [256, 64]]"));
    QCOMPARE(names(proxy, proxy.index(0, 0, forward)), QStringList({"gemm_kernel"}));
    // A kernel's full name: the operator that launched it, outside every range.
    proxy.set_text_filter("memcpy htod");
    QCOMPARE(names(proxy), QStringList({"aten::copy_"}));
    // A kernel by a part of its full name only (the template arguments).
    proxy.set_text_filter("AddFunctor");
    QCOMPARE(names(proxy), QStringList({"forward"}));
    QCOMPARE(names(proxy, forward), QStringList({"aten::mm"}));
    QCOMPARE(names(proxy, proxy.index(0, 0, forward)), QStringList({"vectorized_elementwise_kernel"}));
    // A matching range shows whole.
    proxy.set_text_filter("backward");
    QCOMPARE(names(proxy), QStringList({"backward"}));
    QCOMPARE(names(proxy, at(proxy, {"backward", "aten::mm"})), QStringList({"gemm_kernel"}));
    proxy.set_text_filter("no such operator");
    QCOMPARE(proxy.rowCount(), 0);
    proxy.set_text_filter("");
    QCOMPARE(names(proxy), QStringList({"forward", "backward", "aten::copy_"}));
  }

  void aCpuProfileSaysNoGpuInsteadOfZeros() {
    OperatorTreeModel model;
    fixtures::tester(&model);
    model.set_profile(fixtures::shared(fixtures::cpu_profile()));
    QVERIFY(!model.has_gpu());
    const QModelIndex forward = at(model, {"forward"});
    // bmm 1.2 + linear 0.3 + addmm 2.7 = 4.2 ms of 6 ms: 70%; 1.4 ms per each of 3 steps. The
    // operators' totals would give 1.2 + 3.0 + 2.7 = 6.9 ms, more than the steps took.
    QCOMPARE(exact(model, forward, Col::TotalCpu).toLongLong(), 4'200'000LL);
    QCOMPARE(cell(model, forward, Col::SelfCpuPercent), QStringLiteral("70.0%"));
    QCOMPARE(cell(model, forward, Col::CpuPerStep), QStringLiteral("1.40 ms"));
    const QModelIndex linear = child(model, forward, "aten::linear");
    QCOMPARE(cell(model, linear, Col::TotalCpu), QStringLiteral("3.00 ms"));
    QCOMPARE(cell(model, linear, Col::SelfCpu), QStringLiteral("300 µs"));
    for (int column : {Col::SelfGpu, Col::TotalGpu, Col::SelfGpuPercent, Col::GpuPerStep}) {
      QVERIFY(OperatorTreeModel::is_gpu_column(column));
      QCOMPARE(cell(model, linear, column), QStringLiteral("no GPU"));
      QVERIFY(!exact(model, linear, column).isValid());
      // Exports write nothing there, not the words.
      QCOMPARE(model.index(linear.row(), column, linear.parent()).data(CsvTextRole).toString(), QString());
      QVERIFY(model.index(linear.row(), column, linear.parent()).data(Qt::ToolTipRole).toString().contains("CPU: no kernels"));
    }
    QVERIFY(!OperatorTreeModel::is_gpu_column(Col::SelfCpu));
    QCOMPARE(names(model, linear), QStringList());
  }

  void anEmptyOrMissingProfileHasNoRows() {
    OperatorTreeModel model;
    fixtures::tester(&model);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), static_cast<int>(Col::ColumnCount));
    model.set_profile(fixtures::shared(fixtures::gpu_profile()));
    QCOMPARE(model.rowCount(), 3);
    model.set_profile(fixtures::shared(fixtures::OperatorProfile{}));
    QCOMPARE(model.rowCount(), 0);
    model.set_profile(nullptr);
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.has_gpu());
  }

  void headersNameTheExportedColumns() {
    OperatorTreeModel model;
    QCOMPARE(fixtures::model_header(model),
             QStringList({"name", "input_shapes", "calls", "total_cpu_ns", "self_cpu_ns", "self_cpu_percent",
                          "total_cpu_ns_per_step", "self_gpu_ns", "total_gpu_ns", "self_gpu_percent",
                          "total_gpu_ns_per_step"}));
    QCOMPARE(model.headerData(Col::SelfCpuPercent, Qt::Horizontal).toString(), QStringLiteral("Self CPU\n% of step"));
  }
};

QTEST_MAIN(OperatorTreeModelTest)
#include "test_operator_tree_model.moc"
