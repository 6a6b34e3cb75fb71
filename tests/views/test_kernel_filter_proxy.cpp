// The kernel table's proxy: numeric and case-insensitive sorting, name and category filters,
// and the budget: 5,000 distinct kernels sorted and filtered in under 50 ms.
#include <cstdint>
#include <limits>
#include <memory>

#include <QStandardItemModel>
#include <QTest>

#include "kernel_fixtures.h"
#include "model_fixtures.h"
#include "models/category_share_model.h"
#include "models/kernel_filter_proxy.h"
#include "models/kernel_table_model.h"
#include "support/process_cpu_time.h"

using namespace stepscope;
using namespace stepscope::views;
using fixtures::KernelCategory;
using fixtures::text;

namespace {

// Instances 9, 10 and 100 sort differently as numbers and as text.
profiling::KernelProfile small_profile() {
  return fixtures::profile({fixtures::range(
      "measured window",
      {fixtures::kernel("void Beta_gemm<float>(float*)", "Beta_gemm", KernelCategory::matrix_multiply, 10, 5'000, 50.0),
       fixtures::kernel("void alpha_add<4>(int)", "alpha_add", KernelCategory::elementwise, 100, 3'000, 30.0),
       fixtures::kernel("void gamma_GEMM_nt<half>(half*)", "gamma_GEMM_nt", KernelCategory::matrix_multiply, 9, 2'000,
                        20.0)})});
}

QStringList names(const QAbstractItemModel& proxy) {
  QStringList shown;
  for (int r = 0; r < proxy.rowCount(); ++r) shown << text(proxy, r, KernelTableModel::Name);
  return shown;
}

// Distinct names, and distinct totals: 1000 + (7 i mod count) ns, a permutation. Every third
// kernel is a GEMM: "GEMM" in its full name, "Gemm" in the short name of half of them.
profiling::KernelProfile many_kernels(int count) {
  std::vector<profiling::KernelStats> kernels;
  for (int i = 0; i < count; ++i) {
    const bool gemm = i % 3 == 0;
    const std::string tag = gemm ? (i % 2 == 0 ? "_Gemm" : "_x") : "_y";
    const std::string full = "void at::native::kernel_" + std::to_string(i) + tag +
                             (gemm ? "<float, GEMM_TILE>" : "<float, 4>") + "(at::TensorIteratorBase&, float*)";
    const int64_t total_ns = 1000 + (static_cast<int64_t>(i) * 7) % count;
    kernels.push_back(fixtures::kernel(full, "kernel_" + std::to_string(i) + tag,
                                       gemm ? KernelCategory::matrix_multiply : KernelCategory::elementwise, 1 + i % 13,
                                       total_ns, 0.0));
  }
  return fixtures::profile({fixtures::range("measured window", std::move(kernels))});
}

}  // namespace

class KernelFilterProxyTest : public QObject {
  Q_OBJECT

 private slots:
  void sortsNumbersNumericallyAndTextIgnoringCase() {
    KernelTableModel model;
    model.set_profile(small_profile());
    KernelFilterProxy proxy;
    proxy.setSourceModel(&model);
    fixtures::tester(&proxy);
    proxy.sort(KernelTableModel::Instances, Qt::AscendingOrder);
    QCOMPARE(names(proxy), QStringList({"gamma_GEMM_nt", "Beta_gemm", "alpha_add"}));  // 9, 10, 100
    proxy.sort(KernelTableModel::TotalTime, Qt::DescendingOrder);
    QCOMPARE(names(proxy), QStringList({"Beta_gemm", "alpha_add", "gamma_GEMM_nt"}));
    proxy.sort(KernelTableModel::Name, Qt::AscendingOrder);
    QCOMPARE(names(proxy), QStringList({"alpha_add", "Beta_gemm", "gamma_GEMM_nt"}));  // not B < a < g
    proxy.sort(KernelTableModel::Category, Qt::AscendingOrder);
    QCOMPARE(text(proxy, 0, KernelTableModel::Category), QStringLiteral("elementwise"));
    proxy.sort(KernelTableModel::Avg, Qt::AscendingOrder);  // 30, 222.2, 500 ns
    QCOMPARE(names(proxy), QStringList({"alpha_add", "gamma_GEMM_nt", "Beta_gemm"}));
  }

  void sortingByNameFollowsTheShownName() {
    KernelTableModel model;
    auto profile = small_profile();
    profile.ranges[0].kernels[1].name = "void zeta_add<4>(int)";  // full name sorts last, short name first
    model.set_profile(profile);
    KernelFilterProxy proxy;
    proxy.setSourceModel(&model);
    proxy.sort(KernelTableModel::Name, Qt::AscendingOrder);
    QCOMPARE(text(proxy, 0, KernelTableModel::Name), QStringLiteral("alpha_add"));
    model.set_short_names(false);
    QCOMPARE(text(proxy, 2, KernelTableModel::Name), QStringLiteral("void zeta_add<4>(int)"));
  }

  void filtersByNameAndCategory() {
    KernelTableModel model;
    model.set_profile(small_profile());
    KernelFilterProxy proxy;
    proxy.setSourceModel(&model);
    fixtures::tester(&proxy);
    proxy.sort(KernelTableModel::TotalTime, Qt::DescendingOrder);

    proxy.set_name_filter("gEmM");
    QCOMPARE(proxy.name_filter(), QStringLiteral("gEmM"));
    QCOMPARE(names(proxy), QStringList({"Beta_gemm", "gamma_GEMM_nt"}));
    proxy.set_name_filter("<half>");  // in the full name only
    QCOMPARE(names(proxy), QStringList({"gamma_GEMM_nt"}));
    proxy.set_name_filter("nothing like it");
    QCOMPARE(proxy.rowCount(), 0);
    proxy.set_name_filter("");
    QCOMPARE(proxy.rowCount(), 3);

    proxy.set_category_filter(KernelCategory::elementwise);
    QCOMPARE(names(proxy), QStringList({"alpha_add"}));
    proxy.set_category_filter(KernelCategory::matrix_multiply);
    proxy.set_name_filter("GAMMA");
    QCOMPARE(names(proxy), QStringList({"gamma_GEMM_nt"}));
    proxy.set_name_filter("alpha");  // right name, wrong category
    QCOMPARE(proxy.rowCount(), 0);
    proxy.set_category_filter(std::nullopt);
    QCOMPARE(names(proxy), QStringList({"alpha_add"}));
    QVERIFY(!proxy.category_filter().has_value());
  }

  void filterHoldsThroughLiveUpdates() {
    KernelTableModel model;
    model.set_profile(small_profile());
    KernelFilterProxy proxy;
    proxy.setSourceModel(&model);
    fixtures::tester(&proxy);
    proxy.sort(KernelTableModel::TotalTime, Qt::DescendingOrder);
    proxy.set_name_filter("gemm");
    auto next = small_profile();
    next.ranges[0].kernels[2].total_ns = 8'000;  // gamma overtakes Beta
    next.ranges[0].kernels.push_back(
        fixtures::kernel("void delta_gemm<8>(int)", "delta_gemm", KernelCategory::matrix_multiply, 1, 1'000, 1.0));
    next.ranges[0].kernels.push_back(
        fixtures::kernel("void epsilon_copy(int)", "epsilon_copy", KernelCategory::memory, 1, 9'000, 1.0));
    model.set_profile(next);
    QCOMPARE(names(proxy), QStringList({"gamma_GEMM_nt", "Beta_gemm", "delta_gemm"}));
  }

  void otherModelsSortByExactValues() {
    // Over another table the proxy falls back to ExactValueRole: 9 < 10 < 100 as numbers.
    CategoryShareModel categories;
    auto profile = fixtures::profile({fixtures::range("measured window", {})});
    auto share = [](KernelCategory c, int64_t instances) {
      profiling::CategoryShare s;
      s.category = c;
      s.instances = instances;
      return s;
    };
    profile.ranges[0].categories = {share(KernelCategory::softmax, 10), share(KernelCategory::attention, 100),
                                    share(KernelCategory::other, 9)};
    categories.set_profile(profile);
    KernelFilterProxy proxy;
    proxy.setSourceModel(&categories);
    fixtures::tester(&proxy);
    proxy.sort(CategoryShareModel::Instances, Qt::AscendingOrder);
    QCOMPARE(text(proxy, 0, CategoryShareModel::Category), QStringLiteral("other"));
    QCOMPARE(text(proxy, 2, CategoryShareModel::Category), QStringLiteral("attention"));
    proxy.set_name_filter("no filter applies here");
    QCOMPARE(proxy.rowCount(), 3);
  }

  void sortsAndFilters5000KernelsUnder50ms() {
    constexpr int kKernels = 5000;
    KernelTableModel model;
    model.set_profile(many_kernels(kKernels));
    QCOMPARE(model.rowCount(), kKernels);
    // Each attempt starts from a fresh, unsorted and unfiltered proxy.
    std::unique_ptr<KernelFilterProxy> proxy_owner;
    int rows = 0;
    const double ms = stepscope::testing::least_cpu_ms(
        3,
        [&] {
          proxy_owner = std::make_unique<KernelFilterProxy>();
          proxy_owner->setSourceModel(&model);
          QCOMPARE(proxy_owner->rowCount(), kKernels);
        },
        [&] {
          proxy_owner->sort(KernelTableModel::TotalTime, Qt::DescendingOrder);
          proxy_owner->set_name_filter("gemm");
          rows = proxy_owner->rowCount();
        });
    KernelFilterProxy& proxy = *proxy_owner;
    qInfo("sort by Total Time + name filter over %d distinct kernels: %.2f ms of CPU (least of 3)", kKernels, ms);

    // Every third kernel, i = 0, 3, ..., 4998; "gemm" is in every one's full name.
    QCOMPARE(rows, (kKernels + 2) / 3);
    int64_t previous = std::numeric_limits<int64_t>::max();
    for (int r = 0; r < rows; ++r) {
      const auto& k = model.kernel(proxy.mapToSource(proxy.index(r, 0)).row());
      QVERIFY(k.total_ns < previous);  // distinct totals, descending
      QVERIFY(QString::fromStdString(k.name).contains("gemm", Qt::CaseInsensitive));
      previous = k.total_ns;
    }
    QVERIFY2(ms < 50.0, qPrintable(QStringLiteral("took %1 ms").arg(ms)));
  }
};

QTEST_MAIN(KernelFilterProxyTest)
#include "test_kernel_filter_proxy.moc"
