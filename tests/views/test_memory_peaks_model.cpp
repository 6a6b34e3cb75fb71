// The memory peaks table: bytes per category in MiB, steps, times since the first event.
#include <QSignalSpy>
#include <QTest>

#include "export/table_export.h"
#include "io/memory_export.h"
#include "model_fixtures.h"
#include "models/memory_peaks_model.h"

using namespace stepscope;
using namespace stepscope::views;
using fixtures::exact;
using fixtures::text;
using profiling::category_index;
using profiling::MemoryCategory;

namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

profiling::MemoryPeak peak(std::string label, int64_t time_ns, int step, bool warmup, int64_t reserved,
                           std::vector<std::pair<MemoryCategory, int64_t>> bytes) {
  profiling::MemoryPeak p;
  p.label = std::move(label);
  p.time_ns = time_ns;
  p.step = step;
  p.warmup = warmup;
  p.reserved_bytes = reserved;
  for (const auto& [category, n] : bytes) {
    p.bytes_by_category[category_index(category)] = n;
    p.allocated_bytes += n;
  }
  return p;
}

profiling::MemoryTimeline timeline(std::vector<profiling::MemoryPeak> peaks) {
  profiling::MemoryTimeline t;
  profiling::MemoryPoint first;
  first.time_ns = 1'000'000;  // the origin of Time
  t.points.push_back(first);
  t.peaks = std::move(peaks);
  return t;
}

profiling::MemoryPeak after_init() {
  return peak("after model initialisation", 3'000'000, -1, false, 128 * kMiB,
              {{MemoryCategory::parameter, 100 * kMiB}, {MemoryCategory::other, kMiB}});
}
profiling::MemoryPeak forward(int64_t activation = 512 * kMiB) {
  return peak("forward", 51'500'000, 0, true, -1,
              {{MemoryCategory::parameter, 100 * kMiB},
               {MemoryCategory::activation, activation},
               {MemoryCategory::temporary, 24 * kMiB},
               {MemoryCategory::input, 4096}});
}
profiling::MemoryPeak overall() {
  return peak("overall", 2'001'000'000, 3, false, 2048 * kMiB,
              {{MemoryCategory::parameter, 100 * kMiB},
               {MemoryCategory::gradient, 100 * kMiB},
               {MemoryCategory::optimizer_state, 200 * kMiB},
               {MemoryCategory::activation, 600 * kMiB}});
}

}  // namespace

class MemoryPeaksModelTest : public QObject {
  Q_OBJECT

 private slots:
  void headersAreTheCliColumns() {
    MemoryPeaksModel model;
    QCOMPARE(fixtures::model_header(model),
             QStringList({"Peak", "Step", "Time (ms)", "parameter (bytes)", "gradient (bytes)",
                          "optimizer state (bytes)", "activation (bytes)", "temporary (bytes)", "input (bytes)",
                          "other (bytes)", "Allocated (bytes)", "Reserved (bytes)"}));
    const QStringList cli = fixtures::cli_header([](std::ostream& out) { write_memory_peaks_csv(out, {}); });
    QCOMPARE(fixtures::missing_from_cli(model, cli), QString());
    QCOMPARE(model.columnCount(), int(MemoryPeaksModel::ColumnCount));
    // On screen the unit is in the cells ("24.0 MiB", "1.25 s"), never a header's other unit.
    QCOMPARE(model.headerData(MemoryPeaksModel::Time, Qt::Horizontal).toString(), QString("Time"));
    QCOMPARE(model.headerData(MemoryPeaksModel::Allocated, Qt::Horizontal).toString(), QString("Allocated"));
  }

  void peakRows() {
    MemoryPeaksModel model;
    fixtures::tester(&model);
    model.set_timeline(timeline({after_init(), forward(), overall()}));
    QCOMPARE(model.rowCount(), 3);
    const QStringList init = {"after model initialisation", "-", "2.00 ms", "100 MiB", "0 B", "0 B", "0 B",
                              "0 B", "0 B", "1.00 MiB", "101 MiB", "128 MiB"};
    for (int c = 0; c < model.columnCount(); ++c) QCOMPARE(text(model, 0, c), init[c]);
    QCOMPARE(exact(model, 0, MemoryPeaksModel::Step).toInt(), -1);  // as the CLI writes it
    QCOMPARE(exact(model, 0, MemoryPeaksModel::Time).toDouble(), 2.0);

    const QStringList fwd = {"forward", "0 (warm-up)", "50.5 ms", "100 MiB", "0 B", "0 B", "512 MiB",
                             "24.0 MiB", "4.00 KiB", "0 B", "636 MiB", "-"};
    for (int c = 0; c < model.columnCount(); ++c) QCOMPARE(text(model, 1, c), fwd[c]);
    QCOMPARE(exact(model, 1, MemoryPeaksModel::FirstCategory + 5).toLongLong(), 4096);  // input
    QCOMPARE(exact(model, 1, MemoryPeaksModel::Allocated).toLongLong(), 636 * kMiB + 4096);
    QVERIFY(!exact(model, 1, MemoryPeaksModel::Reserved).isValid());

    QCOMPARE(text(model, 2, MemoryPeaksModel::Step), QStringLiteral("3"));
    QCOMPARE(text(model, 2, MemoryPeaksModel::Time), QStringLiteral("2.00 s"));
    QCOMPARE(text(model, 2, MemoryPeaksModel::FirstCategory + 2), QStringLiteral("200 MiB"));  // optimizer state
    QCOMPARE(text(model, 2, MemoryPeaksModel::Reserved), QStringLiteral("2.00 GiB"));
  }

  void csvExportHasBytes() {
    MemoryPeaksModel model;
    model.set_timeline(timeline({forward()}));
    QCOMPARE(table_to_csv(model).split(QLatin1Char('\n')).at(1),
             QStringLiteral("forward,0,50.5,104857600,0,0,536870912,25165824,4096,0,666898432,"));
  }

  void newerTimelineUpdatesPeaksByLabel() {
    MemoryPeaksModel model;
    fixtures::tester(&model);
    model.set_timeline(timeline({after_init(), forward()}));
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.set_timeline(timeline({after_init(), forward(700 * kMiB), overall()}));
    QCOMPARE(reset.count(), 0);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(text(model, 1, MemoryPeaksModel::FirstCategory + 3), QStringLiteral("700 MiB"));
    QCOMPARE(text(model, 2, MemoryPeaksModel::Peak), QStringLiteral("overall"));
    model.set_timeline({});
    QCOMPARE(model.rowCount(), 0);
  }
};

QTEST_MAIN(MemoryPeaksModelTest)
#include "test_memory_peaks_model.moc"
