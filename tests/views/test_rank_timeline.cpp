// The overlap picture: a ddp.timeline table becomes two lanes per rank for one DDP row and
// step, spans in their lane by start, overlapping spans merged for drawing; empty or malformed
// tables give a note, not a crash; the view draws a few series for many spans and exports PNG.
#include <QAreaSeries>
#include <QElapsedTimer>
#include <QGraphicsTextItem>
#include <QImageReader>
#include <QTemporaryDir>
#include <QApplication>
#include <QTest>
#include <QWheelEvent>

#include "charts/chart_export.h"
#include "charts/rank_timeline_data.h"
#include "charts/rank_timeline_view.h"
#include "experiments/ddp/ddp_timeline_schema.h"

using namespace stepscope;
using namespace stepscope::views;

namespace {

DdpConfig row_config(distributed::DdpVariant variant, double bucket_mb = 25) {
  DdpConfig c;
  c.variant = variant;
  c.bucket_mb = bucket_mb;
  c.ranks = 2;
  return c;
}

TimelineSpan span(TimelineLane lane, const char* name, double start, double end) { return {lane, name, start, end}; }

void add(std::vector<TimelineRow>& rows, const DdpConfig& c, int rank, int step, std::vector<TimelineSpan> spans) {
  for (const auto& row : timeline_rows({c, rank, step, std::move(spans)})) rows.push_back(row);
}

constexpr auto kCompute = TimelineLane::compute;
constexpr auto kComm = TimelineLane::communication;

schema::Table two_rows_table() {
  std::vector<TimelineRow> rows;
  const auto overlap = row_config(distributed::DdpVariant::overlap), bucketed = row_config(distributed::DdpVariant::bucketed, 10);
  // Rank 1 first and spans out of order: the picture sorts.
  add(rows, overlap, 1, 0,
      {span(kComm, "all_reduce 1", 6, 9), span(kCompute, "backward", 3, 8), span(kCompute, "forward", 0, 3),
       span(kComm, "all_reduce 0", 5, 7), span(kCompute, "optimizer", 9, 10)});
  add(rows, overlap, 0, 0,
      {span(kCompute, "forward", 0, 2.5), span(kCompute, "backward", 2.5, 7), span(kComm, "all_reduce 0", 4, 6),
       span(kCompute, "optimizer step", 8, 9.5)});
  add(rows, overlap, 0, 1, {span(kCompute, "forward", 0, 50)});  // another step: not drawn
  add(rows, bucketed, 0, 0, {span(kCompute, "forward", 0, 4), span(kCompute, "elementwise_kernel", 4, 5)});
  return ddp_timeline_schema().table(rows);
}

}  // namespace

class RankTimelineTest : public QObject {
  Q_OBJECT

 private slots:
  void keysNameTheDdpRows() {
    const auto keys = timeline_row_keys(two_rows_table());
    QCOMPARE(keys.size(), size_t{2});
    QCOMPARE(keys[0].label, QStringLiteral("overlap x2"));
    QCOMPARE(keys[1].label, QStringLiteral("bucketed 10 MiB x2"));
  }

  void optimizersOfOneVariantAreTwoRows() {
    std::vector<TimelineRow> rows;
    auto zero1 = row_config(distributed::DdpVariant::overlap);
    zero1.optimizer = distributed::OptimizerSharding::zero1;
    add(rows, row_config(distributed::DdpVariant::overlap), 0, 0, {span(kCompute, "forward", 0, 1)});
    add(rows, zero1, 0, 0, {span(kCompute, "forward", 0, 2)});
    const auto table = ddp_timeline_schema().table(rows);
    const auto keys = timeline_row_keys(table);
    QCOMPARE(keys.size(), size_t{2});
    QCOMPARE(keys[1].label, QStringLiteral("overlap zero1 x2"));
    QCOMPARE(build_rank_timeline(table, keys[1]).end_ms, 2.0);
  }

  void spansGoToTheirLaneInOrder() {
    const auto table = two_rows_table();
    const auto data = build_rank_timeline(table, timeline_row_keys(table)[0]);
    QVERIFY(data.message.isEmpty());
    QCOMPARE(data.lanes, (QStringList{"rank 0 compute", "rank 0 comm", "rank 1 compute", "rank 1 comm"}));
    QCOMPARE(data.title, QStringLiteral("overlap x2, step 0 (recorded after the measured ones)"));
    QCOMPARE(data.spans.size(), size_t{9});  // step 1 left out
    QCOMPARE(data.end_ms, 10.0);
    QStringList order;
    for (const auto& s : data.spans) order << QStringLiteral("%1:%2").arg(s.lane).arg(s.name);
    QCOMPARE(order, (QStringList{"0:forward", "0:backward", "0:optimizer step", "1:all_reduce 0", "2:forward",
                                 "2:backward", "2:optimizer", "3:all_reduce 0", "3:all_reduce 1"}));
    QCOMPARE(data.spans[0].category, TimelineCategory::forward);
    QCOMPARE(data.spans[2].category, TimelineCategory::optimizer);
    QCOMPARE(data.spans[3].category, TimelineCategory::communication);
    QCOMPARE(data.spans[6].category, TimelineCategory::optimizer);
    // Rank 1's two all-reduces overlap: one band from 5 to 9.
    for (const auto& band : timeline_bands(data)) {
      if (band.lane != 3) continue;
      QCOMPARE(band.intervals.size(), size_t{1});
      QCOMPARE(band.intervals[0], std::make_pair(5.0, 9.0));
    }
    QCOMPARE(spans_at(data, 3, 6.5).size(), 2);
    QVERIFY(spans_at(data, 3, 6.5)[0].startsWith("all_reduce 0"));
    QVERIFY(spans_at(data, 1, 8).isEmpty());

    const auto bucketed = build_rank_timeline(table, timeline_row_keys(table)[1]);
    QCOMPARE(bucketed.lanes.size(), 2);
    QCOMPARE(bucketed.spans[1].category, TimelineCategory::other);
    QCOMPARE(compute_category("backward"), TimelineCategory::backward);
    // GPU pictures name each kernel after the phase it ran in.
    QCOMPARE(compute_category("backward: sm90_xmma_gemm_bf16"), TimelineCategory::backward);
    QCOMPARE(compute_category("optimizer step: multi_tensor_apply_kernel"), TimelineCategory::optimizer);
    QCOMPARE(compute_category("gradient sync"), TimelineCategory::other);
    QCOMPARE(compute_category("ampere_sgemm_128x64_tn"), TimelineCategory::other);
  }

  void badTablesGiveANoteNotACrash() {
    const TimelineRowKey key{row_config(distributed::DdpVariant::overlap), QStringLiteral("overlap x2")};
    auto empty = build_rank_timeline(ddp_timeline_schema().table({}), key);
    QVERIFY(empty.spans.empty());
    QVERIFY2(empty.message.contains("No spans recorded for overlap x2"), qPrintable(empty.message));
    schema::Table other{"collective", {}, {}};
    QVERIFY(build_rank_timeline(other, key).message.contains("not a ddp.timeline table"));
    QVERIFY(timeline_row_keys(other).empty());
    // A column missing, and rows that cannot be read (an unknown lane, text for a number).
    auto table = two_rows_table();
    auto broken = table;
    broken.columns.erase(broken.columns.begin() + broken.column_index("lane"));
    for (auto& row : broken.rows) row.erase(row.begin() + table.column_index("lane"));
    QVERIFY(build_rank_timeline(broken, key).message.contains("no 'lane' column"));
    table.rows[0][static_cast<size_t>(table.column_index("lane"))] = std::string("disk");
    table.rows[1][static_cast<size_t>(table.column_index("end_ms"))] = -1.0;  // ends before it starts
    table.rows.push_back({std::string("overlap")});  // a short row
    const auto data = build_rank_timeline(table, key);
    QCOMPARE(data.skipped_rows, 3);
    QCOMPARE(data.spans.size(), size_t{7});
    QVERIFY(data.message.isEmpty());

    RankTimelineView view;
    view.resize(640, 300);
    view.setData(empty);
    QVERIFY(view.chart()->series().isEmpty());
    QVERIFY(!view.message().isEmpty());
    QTemporaryDir dir;
    QString error;
    QVERIFY2(save_chart_png(view, dir.filePath("empty.png"), &error), qPrintable(error));
  }

  void viewDrawsBandsAndExportsPng() {
    const auto table = two_rows_table();
    RankTimelineView view;
    view.resize(800, 360);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setData(build_rank_timeline(table, timeline_row_keys(table)[0]));
    QVERIFY(view.message().isEmpty());
    // Bands: rank 0 compute forward/backward/optimizer, its comm; rank 1 the same.
    QCOMPARE(view.chart()->series().size(), 8);
    QCOMPARE(view.laneAt(3.5), 0);
    QCOMPARE(view.laneAt(0.2), 3);
    QCOMPARE(view.laneAt(4.5), -1);
    QVERIFY(view.lanePosition(0, 1).y() < view.lanePosition(3, 1).y());  // rank 0 at the top
    QTemporaryDir dir;
    const QString path = dir.filePath("overlap.png");
    QString error;
    QVERIFY2(save_chart_png(view, path, &error), qPrintable(error));
    const QImage image = QImageReader(path).read();
    QCOMPARE(image.size(), QSize(800, 360));
    // The forward of rank 0 is filled in its colour in the middle of its lane.
    const QPoint at = view.lanePosition(0, 1).toPoint();
    QCOMPARE(QColor(image.pixel(at)), timeline_category_color(TimelineCategory::forward));
  }

  // Eight ranks' 16 lanes in a laptop's tab are too thin for a label each (Qt would elide every
  // one to "..."): a label a rank; given the height, a label a lane again.
  void eightRanksAreLabelledByRankUntilTheLanesHaveRoom() {
    std::vector<TimelineRow> rows;
    auto eight = row_config(distributed::DdpVariant::overlap);
    eight.ranks = 8;
    for (int r = 0; r < 8; ++r) {
      add(rows, eight, r, 0, {span(kCompute, "forward", 0, 3 + 0.1 * r), span(kComm, "all_reduce 0", 2, 4)});
    }
    const auto table = ddp_timeline_schema().table(rows);
    RankTimelineView view;
    view.resize(600, 320);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setData(build_rank_timeline(table, timeline_row_keys(table)[0]));
    QCoreApplication::processEvents();
    QCOMPARE(view.data().lanes.size(), 16);
    QCOMPARE(view.axisLabels(), (QStringList{"rank 7", "rank 6", "rank 5", "rank 4", "rank 3", "rank 2", "rank 1", "rank 0"}));
    // Whatever the labels, Qt drew each in full (it would elide a label without room to "...").
    const auto elided = [&] {
      int count = 0;
      for (const auto* item : view.scene()->items()) {
        const auto* text = dynamic_cast<const QGraphicsTextItem*>(item);
        if (text && text->isVisible() && text->toPlainText().contains("...")) ++count;
      }
      return count;
    };
    QCOMPARE(elided(), 0);
    QCOMPARE(view.laneAt(15.5), 0);  // the lanes are still two a rank: rank 0's compute on top
    view.resize(900, 900);
    QTRY_COMPARE(view.axisLabels().size(), 16);
    QCOMPARE(view.axisLabels().front(), QStringLiteral("rank 7 comm"));
    QCOMPARE(view.axisLabels().back(), QStringLiteral("rank 0 compute"));
    QTRY_COMPARE(elided(), 0);
    view.resize(600, 225);  // a laptop's DDP tab: two ranks a label
    QTRY_COMPARE(view.axisLabels(), (QStringList{"ranks 6-7", "ranks 4-5", "ranks 2-3", "ranks 0-1"}));
    QTRY_COMPARE(elided(), 0);
    for (int height = 150; height <= 700; height += 25) {  // and at every height between
      view.resize(600, height);
      QCoreApplication::processEvents();
      QTRY_COMPARE(elided(), 0);
    }
  }

  // A step of seconds (a CPU step of a larger model) reads in s, its bands where they were.
  void aLongStepReadsInSeconds() {
    const auto table = two_rows_table();
    auto data = build_rank_timeline(table, timeline_row_keys(table)[0]);
    for (auto& span : data.spans) {
      span.start_ms *= 1000;
      span.end_ms *= 1000;
    }
    data.end_ms *= 1000;
    RankTimelineView view;
    view.resize(800, 360);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setData(data);
    const QString title = view.chart()->axes(Qt::Horizontal).value(0)->titleText();
    QVERIFY2(title.endsWith("(s)"), qPrintable(title));
    QTemporaryDir dir;
    const QString path = dir.filePath("long.png");
    QString error;
    QVERIFY2(save_chart_png(view, path, &error), qPrintable(error));
    const QImage image = QImageReader(path).read();
    QCOMPARE(QColor(image.pixel(view.lanePosition(0, 1000).toPoint())),
             timeline_category_color(TimelineCategory::forward));
  }

  void timeZoomsPansAndResets() {
    const auto table = two_rows_table();
    RankTimelineView view;
    view.resize(800, 360);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setData(build_rank_timeline(table, timeline_row_keys(table)[0]));
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    const auto whole = view.visibleRange();
    QCOMPARE(whole.first, 0.0);
    QVERIFY(whole.second >= view.data().end_ms);
    // The wheel over the plot's middle: a narrower window, still around the middle.
    const QPoint middle = view.mapFromScene(view.chart()->plotArea().center());
    QWheelEvent wheel(middle, view.mapToGlobal(middle), {}, QPoint(0, 3 * 120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(view.viewport(), &wheel);
    const auto zoomed = view.visibleRange();
    QVERIFY2(zoomed.second - zoomed.first < 0.6 * (whole.second - whole.first),
             qPrintable(QStringLiteral("%1..%2").arg(zoomed.first).arg(zoomed.second)));
    // Keys: Right pans later, + zooms further, 0 shows everything again.
    QTest::keyClick(&view, Qt::Key_Right);
    QVERIFY(view.visibleRange().first > zoomed.first);
    const double span = view.visibleRange().second - view.visibleRange().first;
    QTest::keyClick(&view, Qt::Key_Plus);
    QVERIFY(view.visibleRange().second - view.visibleRange().first < span);
    QTest::keyClick(&view, Qt::Key_0);
    QCOMPARE(view.visibleRange(), whole);
  }

  void manySpansStayFast() {
    std::vector<TimelineRow> rows;
    const auto c = row_config(distributed::DdpVariant::overlap);
    for (int rank = 0; rank < 4; ++rank) {
      std::vector<TimelineSpan> spans;
      for (int i = 0; i < 250; ++i) {
        spans.push_back(span(kCompute, i % 2 ? "backward" : "kernel", i, i + 0.8));
        spans.push_back(span(kComm, "all_reduce", i + 0.5, i + 1.7));
      }
      add(rows, c, rank, 0, spans);
    }
    const auto table = ddp_timeline_schema().table(rows);
    QElapsedTimer timer;
    timer.start();
    RankTimelineView view;
    view.resize(800, 400);
    const auto data = build_rank_timeline(table, timeline_row_keys(table)[0]);
    QCOMPARE(data.spans.size(), size_t{2000});
    view.setData(data);
    QTemporaryDir dir;
    QVERIFY(save_chart_png(view, dir.filePath("many.png"), nullptr));
    QVERIFY(view.chart()->series().size() <= 12);
    QVERIFY2(timer.elapsed() < 3000, qPrintable(QString::number(timer.elapsed())));
  }
};

QTEST_MAIN(RankTimelineTest)
#include "test_rank_timeline.moc"
