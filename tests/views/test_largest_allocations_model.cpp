// The largest allocations table and its size threshold.
#include <QSignalSpy>
#include <QTest>

#include "export/table_export.h"
#include "io/memory_export.h"
#include "model_fixtures.h"
#include "models/largest_allocations_model.h"

using namespace stepscope;
using namespace stepscope::views;
using fixtures::exact;
using fixtures::text;
using profiling::MemoryCategory;

namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

profiling::LargeAllocation group(int64_t bytes, int64_t count, MemoryCategory category, std::string phase) {
  profiling::LargeAllocation a;
  a.bytes = bytes;
  a.count = count;
  a.category = category;
  a.phase = std::move(phase);
  return a;
}

profiling::MemoryTimeline timeline(std::vector<profiling::LargeAllocation> largest) {
  profiling::MemoryTimeline t;
  t.largest = std::move(largest);
  return t;
}

profiling::MemoryTimeline four_groups() {
  return timeline({group(256 * kMiB, 2, MemoryCategory::activation, "attention"),
                   group(64 * kMiB, 12, MemoryCategory::activation, "mlp"),
                   group(64 * kMiB, 1, MemoryCategory::parameter, ""),
                   group(4096, 100, MemoryCategory::temporary, "softmax")});
}

QStringList column(const QAbstractItemModel& model, int c) {
  QStringList cells;
  for (int r = 0; r < model.rowCount(); ++r) cells << text(model, r, c);
  return cells;
}

}  // namespace

class LargestAllocationsModelTest : public QObject {
  Q_OBJECT

 private slots:
  void headersAreTheCliColumns() {
    LargestAllocationsModel model;
    QCOMPARE(fixtures::model_header(model), QStringList({"Bytes", "Count", "Category", "Phase"}));
    const QStringList cli = fixtures::cli_header([](std::ostream& out) { write_largest_allocations_csv(out, {}); });
    QCOMPARE(fixtures::missing_from_cli(model, cli), QString());
  }

  void groupRows() {
    LargestAllocationsModel model;
    fixtures::tester(&model);
    model.set_timeline(four_groups());
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(column(model, LargestAllocationsModel::Bytes),
             QStringList({"256 MiB", "64.0 MiB", "64.0 MiB", "4.00 KiB"}));
    QCOMPARE(column(model, LargestAllocationsModel::Count), QStringList({"2", "12", "1", "100"}));
    QCOMPARE(column(model, LargestAllocationsModel::Category),
             QStringList({"activation", "activation", "parameter", "temporary"}));
    QCOMPARE(column(model, LargestAllocationsModel::Phase), QStringList({"attention", "mlp", "-", "softmax"}));
    QCOMPARE(exact(model, 0, LargestAllocationsModel::Bytes).toLongLong(), 256 * kMiB);
    QCOMPARE(exact(model, 2, LargestAllocationsModel::Phase).toString(), QString());  // outside ranges: empty
    QCOMPARE(table_to_csv(model).split(QLatin1Char('\n')).at(3), QStringLiteral("67108864,1,parameter,"));
  }

  void thresholdHidesSmallGroupsRowByRow() {
    LargestAllocationsModel model;
    fixtures::tester(&model);
    model.set_timeline(four_groups());
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);

    model.set_min_bytes(kMiB);
    QCOMPARE(model.min_bytes(), kMiB);
    QCOMPARE(column(model, LargestAllocationsModel::Count), QStringList({"2", "12", "1"}));
    model.set_min_bytes(64 * kMiB);  // inclusive
    QCOMPARE(model.rowCount(), 3);
    model.set_min_bytes(64 * kMiB + 1);
    QCOMPARE(column(model, LargestAllocationsModel::Count), QStringList({"2"}));
    model.set_min_bytes(0);
    QCOMPARE(column(model, LargestAllocationsModel::Count), QStringList({"2", "12", "1", "100"}));
    QCOMPARE(reset.count(), 0);
    QCOMPARE(removed.count(), 2);
    QCOMPARE(inserted.count(), 1);

    // A newer timeline under a threshold: new large groups come, small ones stay hidden.
    model.set_min_bytes(kMiB);
    auto next = four_groups();
    next.largest[0].count = 3;
    next.largest.insert(next.largest.begin() + 1, group(128 * kMiB, 1, MemoryCategory::gradient, "backward"));
    model.set_timeline(next);
    QCOMPARE(reset.count(), 0);
    QCOMPARE(column(model, LargestAllocationsModel::Count), QStringList({"3", "12", "1", "1"}));
    QCOMPARE(text(model, 3, LargestAllocationsModel::Category), QStringLiteral("gradient"));
  }
};

QTEST_MAIN(LargestAllocationsModelTest)
#include "test_largest_allocations_model.moc"
