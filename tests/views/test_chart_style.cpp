// Shared chart looks: nice tick steps and label formats, the nice value axis (including a
// range change by nine orders of magnitude that must not lay out billions of ticks), and
// the fixed, distinct category colours.
#include <QChart>
#include <QChartView>
#include <QElapsedTimer>
#include <QLineSeries>
#include <QSet>
#include <QTest>

#include "charts/chart_colors.h"
#include "charts/chart_style.h"
#include "charts/nice_value_axis.h"

using namespace stepscope::views;
using namespace stepscope::profiling;

class ChartStyleTest : public QObject {
  Q_OBJECT
 private slots:
  void tickStepsAreNiceAndNearTheTarget() {
    QCOMPARE(nice_tick_interval(10, 5), 2.0);
    QCOMPARE(nice_tick_interval(100, 5), 20.0);
    QCOMPARE(nice_tick_interval(1.54, 6), 0.25);
    QCOMPARE(nice_tick_interval(3e6, 6), 5e5);
    QCOMPARE(nice_tick_interval(7, 7), 1.0);
    QCOMPARE(nice_tick_interval(40, 6), 10.0);  // 4 or 8 ticks: the tie goes to fewer labels
    QCOMPARE(nice_tick_interval(0, 5), 1.0);
    QCOMPARE(nice_tick_interval(-3, 5), 1.0);
  }

  void labelsHaveJustEnoughDecimals() {
    QCOMPARE(tick_label_format(5), QStringLiteral("%.0f"));
    QCOMPARE(tick_label_format(20000), QStringLiteral("%.0f"));
    QCOMPARE(tick_label_format(0.5), QStringLiteral("%.1f"));
    QCOMPARE(tick_label_format(2.5), QStringLiteral("%.1f"));
    QCOMPARE(tick_label_format(0.25), QStringLiteral("%.2f"));
    QCOMPARE(tick_label_format(0.001), QStringLiteral("%.3f"));
  }

  void ceilingsLandOnATick() {
    QCOMPARE(nice_ceiling(1.54, 6), 1.75);
    QCOMPARE(nice_ceiling(40, 6), 40.0);
    QCOMPARE(nice_ceiling(41, 6), 50.0);
    QCOMPARE(nice_ceiling(0, 6), 1.0);
  }

  void axisFollowsItsRange() {
    NiceValueAxis axis(QStringLiteral("time (ms)"), 5);
    QCOMPARE(axis.titleText(), QStringLiteral("time (ms)"));
    axis.setNiceRange(0, 100);
    QCOMPARE(axis.tickInterval(), 20.0);
    QCOMPARE(axis.labelFormat(), QStringLiteral("%.0f"));
    axis.setRange(3.3, 3.8);  // as Qt's rubber-band zoom does
    QCOMPARE(axis.tickInterval(), 0.1);
    QVERIFY(axis.tickAnchor() <= 3.3 && axis.tickAnchor() >= 3.2 - 1e-9);  // a multiple of the step
    QCOMPARE(axis.labelFormat(), QStringLiteral("%.1f"));
    axis.setZeroBasedRange(41);
    QCOMPARE(axis.max(), 50.0);
    axis.setZeroBasedRange(0);
    QCOMPARE(axis.max(), 1.0);
    NiceValueAxis steps(QStringLiteral("step"), 8, 1);
    steps.setNiceRange(0, 3);
    QCOMPARE(steps.tickInterval(), 1.0);  // never between steps
  }

  void hugeRangeChangesStayFast() {
    auto* chart = new QChart;
    auto* x = new NiceValueAxis(QStringLiteral("x"));
    auto* y = new NiceValueAxis(QStringLiteral("y"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    auto* series = new QLineSeries;
    series->append({{0, 0}, {1, 1}});
    chart->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
    QChartView view(chart);
    view.resize(600, 400);
    QElapsedTimer clock;
    clock.start();
    y->setNiceRange(0, 0.001);
    y->setNiceRange(0, 1e9);  // the old step over the new range would be 1e12 ticks
    y->setNiceRange(0, 1e-6);
    QVERIFY(!view.grab().isNull());
    QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
    QCOMPARE(y->tickInterval(), 2e-7);
  }

  void categoryColoursAreFixedAndDistinct() {
    QSet<QRgb> memory;
    for (auto c : all_memory_categories()) memory.insert(memory_category_color(c).rgb());
    QCOMPARE(memory.size(), qsizetype{7});
    QSet<QRgb> kernels;
    for (auto c : all_kernel_categories()) kernels.insert(kernel_category_color(c).rgb());
    QCOMPARE(kernels.size(), qsizetype{10});
    QCOMPARE(memory_category_color(MemoryCategory::parameter), QColor(0x0072B2));
    QVERIFY(phase_color("forward") != phase_color("backward"));
    QVERIFY(phase_color("backward") != phase_color("optimizer step"));
    QCOMPARE(phase_color("step end"), phase_color("measured window"));  // neutral grey
    QSet<QRgb> series;
    for (int i = 0; i < 8; ++i) series.insert(series_color(i).rgb());
    QCOMPARE(series.size(), qsizetype{8});
    QCOMPARE(series_color(8), series_color(0));
    QCOMPARE(series_color(-1), series_color(7));
  }
};

QTEST_MAIN(ChartStyleTest)
#include "test_chart_style.moc"
