// The category roll-up of one range.
#include <QSignalSpy>
#include <QTest>

#include "io/kernel_summary_export.h"
#include "kernel_fixtures.h"
#include "model_fixtures.h"
#include "models/category_share_model.h"

using namespace stepscope;
using namespace stepscope::views;
using fixtures::exact;
using fixtures::KernelCategory;
using fixtures::text;

namespace {

profiling::CategoryShare share(KernelCategory category, int64_t total_ns, int64_t instances, double percent) {
  profiling::CategoryShare s;
  s.category = category;
  s.total_ns = total_ns;
  s.instances = instances;
  s.percent = percent;
  return s;
}

profiling::KernelProfile profile(std::vector<profiling::CategoryShare> window) {
  auto p = fixtures::profile({fixtures::range("measured window", {}), fixtures::range("softmax", {})});
  p.ranges[0].categories = std::move(window);
  p.ranges[1].categories = {share(KernelCategory::softmax, 40'000, 4, 100.0)};
  return p;
}

}  // namespace

class CategoryShareModelTest : public QObject {
  Q_OBJECT

 private slots:
  void headersAreTheCliColumns() {
    CategoryShareModel model;
    QCOMPARE(fixtures::model_header(model), QStringList({"Category", "Total Time (ns)", "Instances", "Time (%)"}));
    const QStringList cli = fixtures::cli_header([](std::ostream& out) { write_category_csv(out, {}); });
    QCOMPARE(fixtures::missing_from_cli(model, cli), QString());
  }

  void rowsOfTheRange() {
    CategoryShareModel model;
    fixtures::tester(&model);
    model.set_profile(profile({share(KernelCategory::matrix_multiply, 7'500'000, 120, 75.0),
                               share(KernelCategory::memory, 2'500'000, 30, 25.0)}));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(text(model, 0, CategoryShareModel::Category), QStringLiteral("matrix multiply"));
    QCOMPARE(text(model, 0, CategoryShareModel::TotalTime), QStringLiteral("7.50 ms"));
    QCOMPARE(exact(model, 0, CategoryShareModel::TotalTime).toLongLong(), 7'500'000);
    QCOMPARE(text(model, 0, CategoryShareModel::Instances), QStringLiteral("120"));
    QCOMPARE(text(model, 0, CategoryShareModel::Share), QStringLiteral("75.0%"));
    QCOMPARE(exact(model, 0, CategoryShareModel::Share).toDouble(), 75.0);
    QCOMPARE(text(model, 1, CategoryShareModel::Category), QStringLiteral("memory copy/set"));
    QCOMPARE(text(model, 1, CategoryShareModel::TotalTime), QStringLiteral("2.50 ms"));

    model.set_range("softmax");
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(text(model, 0, CategoryShareModel::TotalTime), QStringLiteral("40.0 \u00b5s"));
    QCOMPARE(model.ranges(), QStringList({"measured window", "softmax"}));
  }

  void newerProfileUpdatesInPlace() {
    CategoryShareModel model;
    fixtures::tester(&model);
    model.set_profile(profile({share(KernelCategory::matrix_multiply, 7'500'000, 120, 75.0),
                               share(KernelCategory::memory, 2'500'000, 30, 25.0)}));
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.set_profile(profile({share(KernelCategory::memory, 5'000'000, 60, 40.0),
                               share(KernelCategory::matrix_multiply, 6'000'000, 100, 48.0),
                               share(KernelCategory::softmax, 1'500'000, 10, 12.0)}));
    QCOMPARE(reset.count(), 0);
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(text(model, 0, CategoryShareModel::Category), QStringLiteral("matrix multiply"));  // kept its row
    QCOMPARE(text(model, 0, CategoryShareModel::Share), QStringLiteral("48.0%"));
    QCOMPARE(text(model, 1, CategoryShareModel::Instances), QStringLiteral("60"));
    QCOMPARE(text(model, 2, CategoryShareModel::Category), QStringLiteral("softmax"));
  }
};

QTEST_MAIN(CategoryShareModelTest)
#include "test_category_share_model.moc"
