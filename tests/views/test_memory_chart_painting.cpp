// The memory chart's overlays painted onto an image through a hand-made plot mapping: phase
// bands tinted by phase (warm-up hatched, "step end" blank), merged when too dense to tell
// apart, captions where they fit, peak labels and the hover line.
#include <QImage>
#include <QPainter>
#include <QTest>

#include "charts/chart_colors.h"
#include "charts/memory_chart_painting.h"

using namespace stepscope::views;

namespace {

// 400 x 200 pixels for x in [0, 100] ms and y in [0, 1] MiB.
const PlotMapping kMap{QRectF(0, 0, 400, 200), 0, 100, 0, 1};

QImage paint(const std::function<void(QPainter&)>& draw) {
  QImage image(400, 200, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  QPainter painter(&image);
  draw(painter);
  return image;
}

// Lightest and darkest grey of a rectangle of pixels.
std::pair<int, int> gray_range(const QImage& image, const QRect& rect) {
  int lightest = 0, darkest = 255;
  for (int y = rect.top(); y <= rect.bottom(); ++y) {
    for (int x = rect.left(); x <= rect.right(); ++x) {
      const int g = qGray(image.pixel(x, y));
      lightest = std::max(lightest, g);
      darkest = std::min(darkest, g);
    }
  }
  return {lightest, darkest};
}

}  // namespace

class MemoryChartPaintingTest : public QObject {
  Q_OBJECT
 private slots:
  void bandsAreTintedByPhase() {
    const std::vector<MemoryBandSpan> bands = {{0, 40, "forward", 3, false},
                                               {40, 70, "backward", 3, true},
                                               {70, 100, "step end", 3, false}};
    const QImage image = paint([&](QPainter& p) { paint_phase_bands(p, kMap, bands); });
    // Forward: the forward colour over white at low opacity, evenly.
    const QColor forward(image.pixel(100, 150));
    const QColor expected = phase_color("forward");
    QVERIFY2(forward != QColor(Qt::white), qPrintable(forward.name()));
    QVERIFY(forward.blue() > forward.red());  // towards the forward blue
    QVERIFY(std::abs(forward.red() - (255 - (255 - expected.red()) * 38 / 255)) <= 2);
    const auto [forward_light, forward_dark] = gray_range(image, QRect(20, 60, 120, 130));
    QCOMPARE(forward_light, forward_dark);
    // Warm-up backward: hatched, so it is not even.
    const auto [warm_light, warm_dark] = gray_range(image, QRect(170, 60, 100, 130));
    QVERIFY2(warm_light - warm_dark > 15, qPrintable(QStringLiteral("%1 %2").arg(warm_light).arg(warm_dark)));
    // Step end stays blank.
    QCOMPARE(gray_range(image, QRect(290, 60, 100, 130)), std::make_pair(255, 255));
    // The forward caption is written near the top of its band.
    QVERIFY(gray_range(image, QRect(2, 0, 150, 20)).second < 150);
  }

  void denseBandsLeaveOnlyTheWarmupHatched() {
    // 400 bands of 0.25 ms (one pixel each); the first quarter is warm-up.
    std::vector<MemoryBandSpan> bands;
    for (int i = 0; i < 400; ++i) {
      bands.push_back({i * 0.25, (i + 1) * 0.25, i % 2 ? "backward" : "forward", i / 2, i < 100});
    }
    const QImage image = paint([&](QPainter& p) { paint_phase_bands(p, kMap, bands); });
    QCOMPARE(gray_range(image, QRect(150, 30, 240, 160)), std::make_pair(255, 255));  // measured: blank
    QVERIFY(gray_range(image, QRect(0, 30, 95, 160)).second < 240);                  // warm-up: hatched
  }

  void onlyVisibleBandsArePainted() {
    const std::vector<MemoryBandSpan> bands = {{-50, -10, "forward", 0, false}, {150, 200, "backward", 0, false}};
    const QImage image = paint([&](QPainter& p) { paint_phase_bands(p, kMap, bands); });
    QCOMPARE(gray_range(image, QRect(0, 0, 400, 200)), std::make_pair(255, 255));
    paint([&](QPainter& p) { paint_phase_bands(p, kMap, {}); });  // nothing to paint is fine
  }

  void peakLabelsAndHoverLine() {
    const std::vector<MemoryPeakMarker> peaks = {{"overall", 50, 0.5, 512 * 1024}};
    const QImage image = paint([&](QPainter& p) { paint_peak_labels(p, kMap, peaks, 75.0); });
    // The label box stands above the point at (200, 100); the hover line at x = 300.
    QVERIFY(gray_range(image, QRect(170, 70, 60, 20)).second < 150);
    QCOMPARE(gray_range(image, QRect(170, 130, 60, 60)), std::make_pair(255, 255));  // nothing below
    QVERIFY(qGray(image.pixel(300, 150)) < 200);
    const QImage no_hover = paint([&](QPainter& p) { paint_peak_labels(p, kMap, peaks, std::nullopt); });
    QCOMPARE(qGray(no_hover.pixel(300, 150)), 255);
  }
};

QTEST_MAIN(MemoryChartPaintingTest)
#include "test_memory_chart_painting.moc"
