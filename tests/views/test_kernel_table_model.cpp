// The kernel table: nsys columns, short/full names, range switching and live updates that
// keep the view's rows and selection.
#include <memory>

#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTest>

#include "export/table_export.h"
#include "io/kernel_summary_export.h"
#include "kernel_fixtures.h"
#include "model_fixtures.h"
#include "models/kernel_filter_proxy.h"
#include "models/kernel_table_model.h"

using namespace stepscope;
using namespace stepscope::views;
using fixtures::exact;
using fixtures::KernelCategory;
using fixtures::text;

namespace {

const char* const kGemm = "void gemm_kernel<float, 128>(float const*, float*)";
const char* const kAdd = "void at::native::vectorized_elementwise_kernel<4, AddFunctor>(int)";
const char* const kMemset = "Memset (Device)";
const char* const kSoftmax = "void softmax_kernel<float>(float*)";
const char* const kFlash = "void flash_fwd_kernel<Params>(Params)";

profiling::KernelStats gemm(int64_t total_ns = 6'000'000) {
  auto k = fixtures::kernel(kGemm, "gemm_kernel", KernelCategory::matrix_multiply, 20, total_ns, 60.0);
  k.median_ns = 299'999.5;
  k.stddev_ns = 12'345.6;
  k.instances_per_step = 1.0 / 3.0;
  return k;
}
profiling::KernelStats add(int64_t total_ns = 3'000'000) {
  return fixtures::kernel(kAdd, "vectorized_elementwise_kernel", KernelCategory::elementwise, 40, total_ns, 30.0);
}
profiling::KernelStats memset_kernel() {
  return fixtures::kernel(kMemset, "", KernelCategory::memory, 3, 1'000'000, 10.0);  // no short name
}
profiling::KernelStats softmax() {
  return fixtures::kernel(kSoftmax, "softmax_kernel", KernelCategory::softmax, 5, 500'000, 3.0);
}
profiling::RangeKernelSummary attention() {
  return fixtures::range("attention", {fixtures::kernel(kFlash, "flash_fwd_kernel", KernelCategory::attention, 8,
                                                        2'400'000, 100.0)});
}

profiling::KernelProfile first_snapshot() {
  return fixtures::profile({fixtures::range("measured window", {gemm(), add(), memset_kernel()}), attention()});
}

QString tooltip(const QAbstractItemModel& model, int row, int column) {
  return model.data(model.index(row, column), Qt::ToolTipRole).toString();
}

}  // namespace

class KernelTableModelTest : public QObject {
  Q_OBJECT

 private slots:
  void headersAreTheCliColumns() {
    KernelTableModel model;
    QCOMPARE(fixtures::model_header(model),
             QStringList({"Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
                          "StdDev (ns)", "Instances/Step", "Category", "Name"}));
    const QStringList cli = fixtures::cli_header([](std::ostream& out) { write_kernel_summary_csv(out, {}); });
    QCOMPARE(fixtures::missing_from_cli(model, cli), QString());
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.range(), std::string("measured window"));
  }

  void showsTheMeasuredWindowWithAdaptiveUnits() {
    KernelTableModel model;
    fixtures::tester(&model);
    model.set_profile(first_snapshot());
    QCOMPARE(model.rowCount(), 3);
    const QStringList expected = {"60.0%",  "6.00 ms", "20",    "300 \u00b5s",          "300 \u00b5s",     "150 \u00b5s",
                                  "600 \u00b5s", "12.3 \u00b5s", "0.333", "matrix multiply", "gemm_kernel"};
    for (int c = 0; c < model.columnCount(); ++c) QCOMPARE(text(model, 0, c), expected[c]);
    QCOMPARE(exact(model, 0, KernelTableModel::TotalTime).toLongLong(), 6'000'000);
    QCOMPARE(exact(model, 0, KernelTableModel::Med).toDouble(), 299'999.5);
    QCOMPARE(exact(model, 0, KernelTableModel::StdDev).toDouble(), 12'345.6);
    QCOMPARE(exact(model, 0, KernelTableModel::Min).toLongLong(), 150'000);
    QCOMPARE(exact(model, 0, KernelTableModel::TimePercent).toDouble(), 60.0);
    QCOMPARE(text(model, 1, KernelTableModel::Avg), QStringLiteral("75.0 \u00b5s"));
    QCOMPARE(text(model, 2, KernelTableModel::Avg), QStringLiteral("333 \u00b5s"));
    QCOMPARE(text(model, 2, KernelTableModel::InstancesPerStep), QStringLiteral("1.5"));
    QCOMPARE(text(model, 2, KernelTableModel::Category), QStringLiteral("memory copy/set"));
    QCOMPARE(model.kernel(1).name, std::string(kAdd));
  }

  void csvExportHasNanosecondsAndTheShownName() {
    KernelTableModel model;
    model.set_profile(first_snapshot());
    const QStringList lines = table_to_csv(model).split(QLatin1Char('\n'));
    QCOMPARE(lines.at(0), QStringLiteral("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),"
                                         "StdDev (ns),Instances/Step,Category,Name"));
    QCOMPARE(lines.at(1), QStringLiteral("60,6000000,20,300000,299999.5,150000,600000,12345.6,0.3333333333333333,"
                                         "matrix multiply,\"void gemm_kernel<float, 128>(float const*, float*)\""));
  }

  void shortAndFullNames() {
    KernelTableModel model;
    fixtures::tester(&model);
    model.set_profile(first_snapshot());
    QVERIFY(model.short_names());
    QCOMPARE(text(model, 1, KernelTableModel::Name), QStringLiteral("vectorized_elementwise_kernel"));
    QCOMPARE(tooltip(model, 1, KernelTableModel::Name), QString::fromLatin1(kAdd));
    QCOMPARE(text(model, 2, KernelTableModel::Name), QString::fromLatin1(kMemset));  // no short name
    QVERIFY(tooltip(model, 1, KernelTableModel::TotalTime).isEmpty());

    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.set_short_names(false);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(0).toModelIndex(), model.index(0, KernelTableModel::Name));
    QCOMPARE(changed.at(0).at(1).toModelIndex(), model.index(2, KernelTableModel::Name));
    QCOMPARE(text(model, 0, KernelTableModel::Name), QString::fromLatin1(kGemm));
    QCOMPARE(text(model, 1, KernelTableModel::Name), QString::fromLatin1(kAdd));
    QCOMPARE(tooltip(model, 1, KernelTableModel::Name), QString::fromLatin1(kAdd));
    model.set_short_names(false);
    QCOMPARE(changed.count(), 1);  // nothing changed
  }

  void rangesAndRangeSwitching() {
    KernelTableModel model;
    fixtures::tester(&model);
    QSignalSpy ranges_changed(&model, &RangeSummaryModel::ranges_changed);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QVERIFY(model.ranges().isEmpty());
    model.set_profile(first_snapshot());
    QCOMPARE(model.ranges(), QStringList({"measured window", "attention"}));
    QCOMPARE(ranges_changed.count(), 1);

    model.set_range("attention");
    QCOMPARE(reset.count(), 1);
    QCOMPARE(model.range(), std::string("attention"));
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(text(model, 0, KernelTableModel::Name), QStringLiteral("flash_fwd_kernel"));
    QCOMPARE(text(model, 0, KernelTableModel::TimePercent), QStringLiteral("100.0%"));
    model.set_range("attention");
    QCOMPARE(reset.count(), 1);  // the same range: nothing to do

    model.set_range("no such range");
    QCOMPARE(model.rowCount(), 0);
    model.set_range("measured window");
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(ranges_changed.count(), 1);

    // A newer snapshot with a new range announces it; the same names do not.
    auto next = first_snapshot();
    model.set_profile(next);
    QCOMPARE(ranges_changed.count(), 1);
    next.ranges.push_back(fixtures::range("backward", {add()}));
    model.set_profile(next);
    QCOMPARE(ranges_changed.count(), 2);
    QCOMPARE(model.ranges(), QStringList({"measured window", "attention", "backward"}));

    model.set_profile(std::shared_ptr<const profiling::KernelProfile>());
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(model.ranges().isEmpty());
    QCOMPARE(ranges_changed.count(), 3);
  }

  void liveUpdateKeepsRowsSelectionAndSort() {
    KernelTableModel model;
    fixtures::tester(&model);
    KernelFilterProxy proxy;
    proxy.setSourceModel(&model);
    fixtures::tester(&proxy);
    model.set_profile(std::make_shared<const profiling::KernelProfile>(first_snapshot()));
    proxy.sort(KernelTableModel::TotalTime, Qt::DescendingOrder);
    QItemSelectionModel selection(&model);
    selection.select(model.index(1, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);  // the add kernel

    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

    // The add kernel grew past gemm, the memset is gone, a softmax kernel is new.
    model.set_profile(fixtures::profile(
        {fixtures::range("measured window", {add(9'000'000), softmax(), gemm(6'100'000)}), attention()}));
    QCOMPARE(reset.count(), 0);
    QCOMPARE(removed.count(), 1);
    QCOMPARE(removed.at(0).at(1).toInt(), 2);  // the memset's row
    QCOMPARE(removed.at(0).at(2).toInt(), 2);
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(inserted.at(0).at(1).toInt(), 2);  // the softmax, appended
    QCOMPARE(inserted.at(0).at(2).toInt(), 2);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(model.rowCount(), 3);
    // Surviving kernels keep their rows, with the new numbers.
    QCOMPARE(model.kernel(0).name, std::string(kGemm));
    QCOMPARE(text(model, 0, KernelTableModel::TotalTime), QStringLiteral("6.10 ms"));
    QCOMPARE(model.kernel(1).name, std::string(kAdd));
    QCOMPARE(text(model, 1, KernelTableModel::TotalTime), QStringLiteral("9.00 ms"));
    QCOMPARE(model.kernel(2).name, std::string(kSoftmax));
    QCOMPARE(selection.selectedRows(), QModelIndexList({model.index(1, 0)}));
    // The proxy re-sorted by the new totals.
    QCOMPARE(proxy.rowCount(), 3);
    QCOMPARE(text(proxy, 0, KernelTableModel::Name), QStringLiteral("vectorized_elementwise_kernel"));
    QCOMPARE(text(proxy, 1, KernelTableModel::Name), QStringLiteral("gemm_kernel"));
    QCOMPARE(text(proxy, 2, KernelTableModel::Name), QStringLiteral("softmax_kernel"));

    // gemm goes: the selected add kernel moves up a row and stays selected.
    model.set_profile(fixtures::profile({fixtures::range("measured window", {add(9'500'000), softmax()})}));
    QCOMPARE(reset.count(), 0);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.kernel(0).name, std::string(kAdd));
    QCOMPARE(model.kernel(1).name, std::string(kSoftmax));
    QCOMPARE(selection.selectedRows(), QModelIndexList({model.index(0, 0)}));
    QCOMPARE(proxy.rowCount(), 2);
    QCOMPARE(text(proxy, 0, KernelTableModel::TotalTime), QStringLiteral("9.50 ms"));

    // A snapshot without the range empties the table, the next fills it again.
    model.set_profile(fixtures::profile({attention()}));
    QCOMPARE(model.rowCount(), 0);
    model.set_profile(first_snapshot());
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(reset.count(), 0);
  }

  void repeatedNamesFallBackToAReset() {
    KernelTableModel model;
    fixtures::tester(&model);
    model.set_profile(first_snapshot());
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    auto twin = add(1'000);
    twin.short_name = "twin";
    model.set_profile(fixtures::profile({fixtures::range("measured window", {add(), twin})}));
    QCOMPARE(reset.count(), 1);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(text(model, 1, KernelTableModel::Name), QStringLiteral("twin"));
    // Rows that cannot be told apart are not matched by name either.
    model.set_profile(first_snapshot());
    QCOMPARE(reset.count(), 2);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(text(model, 0, KernelTableModel::Name), QStringLiteral("gemm_kernel"));
  }
};

QTEST_MAIN(KernelTableModelTest)
#include "test_kernel_table_model.moc"
