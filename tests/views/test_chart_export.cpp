// Chart export: a PNG of the chart as laid out at the requested size, on white, and clear
// errors for a chart without size or an unwritable path.
#include <QChartView>
#include <QImageReader>
#include <QLineSeries>
#include <QTemporaryDir>
#include <QTest>

#include "charts/chart_export.h"
#include "charts/chart_style.h"

using namespace stepscope::views;

namespace {

// A titled line chart; its title is drawn in the middle of the top edge.
QChartView* line_chart() {
  auto* chart = new QChart;
  style_chart(*chart, QStringLiteral("Export test chart with a long title"));
  auto* series = new QLineSeries;
  series->append({{0, 1}, {1, 3}, {2, 2}});
  series->setName(QStringLiteral("series"));
  chart->addSeries(series);
  chart->createDefaultAxes();
  auto* view = new QChartView(chart);
  view->resize(640, 360);
  return view;
}

// Whether any pixel of `rect` is darker than light grey.
bool has_ink(const QImage& image, const QRect& rect) {
  for (int y = rect.top(); y <= rect.bottom(); ++y) {
    for (int x = rect.left(); x <= rect.right(); ++x) {
      if (qGray(image.pixel(x, y)) < 160) return true;
    }
  }
  return false;
}

}  // namespace

class ChartExportTest : public QObject {
  Q_OBJECT
 private slots:
  void writesAPngOfTheViewsSizeOnWhite() {
    std::unique_ptr<QChartView> view(line_chart());
    QTemporaryDir dir;
    const QString path = dir.filePath("chart.png");
    QString error;
    QVERIFY2(save_chart_png(*view, path, &error), qPrintable(error));
    QVERIFY(QFileInfo(path).size() > 0);
    QImageReader reader(path);
    QCOMPARE(reader.format(), QByteArray("png"));
    const QImage image = reader.read();
    QCOMPARE(image.size(), QSize(640, 360));
    QCOMPARE(QColor(image.pixel(0, 0)), QColor(Qt::white));
    QCOMPARE(QColor(image.pixel(639, 359)), QColor(Qt::white));
    QVERIFY(has_ink(image, QRect(0, 0, 640, 40)));  // the title
  }

  void aGivenSizeLaysTheChartOutAgain() {
    std::unique_ptr<QChartView> view(line_chart());
    QTemporaryDir dir;
    const QString path = dir.filePath("big.png");
    QString error;
    QVERIFY2(save_chart_png(*view, path, &error, QSize(1600, 900)), qPrintable(error));
    const QImage image(path);
    QCOMPARE(image.size(), QSize(1600, 900));
    // Laid out at 1600 x 900, not a 640 x 360 drawing on a larger canvas: the title is
    // centred near x = 800 and the plot reaches the right and bottom parts.
    QVERIFY(has_ink(image, QRect(700, 0, 200, 40)));
    QVERIFY(!has_ink(image, QRect(0, 0, 200, 30)));
    QVERIFY(has_ink(image, QRect(1300, 600, 280, 250)));
    QCOMPARE(view->size(), QSize(640, 360));  // restored
  }

  void reportsWhatWentWrong() {
    std::unique_ptr<QChartView> view(line_chart());
    QTemporaryDir dir;
    QString error;
    QVERIFY(!save_chart_png(*view, dir.filePath("no/such/dir/chart.png"), &error));
    QVERIFY2(error.contains("no/such/dir/chart.png"), qPrintable(error));
    error.clear();
    QVERIFY(!save_chart_png(*view, dir.filePath("flat.png"), &error, QSize(300, 0)));
    QVERIFY2(error.contains("empty"), qPrintable(error));
    QVERIFY(!QFileInfo::exists(dir.filePath("flat.png")));
    QVERIFY(!save_chart_png(*view, dir.filePath("no/such/dir/chart.png"), nullptr));  // no error text wanted
  }
};

QTEST_MAIN(ChartExportTest)
#include "test_chart_export.moc"
