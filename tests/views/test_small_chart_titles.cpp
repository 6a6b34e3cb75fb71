// Every chart at the smallest size its view allows (chart_style's allow_small, 280 x 200):
// axis titles are drawn whole, never cut to "...", so the unit they name stays readable.
#include <QAbstractAxis>
#include <QChart>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QTest>

#include "charts/bench_bar_chart_view.h"
#include "charts/ddp_step_chart_view.h"
#include "charts/kernel_chart_view.h"
#include "charts/memory_chart_view.h"
#include "charts/rank_timeline_view.h"
#include "charts/step_time_chart_view.h"
#include "charts/sweep_chart_view.h"
#include "widgets/attention_charts_view.h"
#include "widgets/collective_charts_view.h"

using namespace stepscope::views;

namespace {

// The axis titles of `view` drawn cut short: a visible axis with a title that no text item of
// the scene shows whole.
QStringList cut_titles(QChartView& view) {
  QStringList drawn;
  for (QGraphicsItem* item : view.scene()->items()) {
    if (auto* text = dynamic_cast<QGraphicsTextItem*>(item); text && text->isVisible()) drawn << text->toPlainText();
  }
  QStringList cut;
  for (QAbstractAxis* axis : view.chart()->axes()) {
    if (!axis->isVisible() || axis->titleText().isEmpty()) continue;
    if (!drawn.contains(axis->titleText())) cut << axis->titleText();
  }
  return cut;
}

}  // namespace

class SmallChartTitlesTest : public QObject {
  Q_OBJECT
 private slots:
  void axisTitlesFitTheSmallestCharts() {
    QWidget holder;
    std::vector<QChartView*> views = {new BenchBarChartView, new DdpStepChartView, new KernelChartView,
                                      new MemoryChartView,   new RankTimelineView, new StepTimeChartView,
                                      new SweepChartView};
    auto* attention = new AttentionChartsView;
    auto* collectives = new CollectiveChartsView;
    for (const auto& chart : attention->charts()) views.push_back(chart.view);
    for (const auto& chart : collectives->charts()) views.push_back(chart.view);
    for (QChartView* view : views) {
      view->setParent(nullptr);
      view->resize(view->minimumSize());
      QCOMPARE(view->minimumSize(), QSize(280, 200));
      view->show();
      QVERIFY(QTest::qWaitForWindowExposed(view));
      QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
      QTest::qWait(10);
      const QStringList cut = cut_titles(*view);
      QVERIFY2(cut.isEmpty(), qPrintable(view->chart()->title() + ": cut " + cut.join(" | ")));
      view->hide();
    }
    for (QChartView* view : views) delete view;
    delete attention;
    delete collectives;
  }
};

QTEST_MAIN(SmallChartTitlesTest)
#include "test_small_chart_titles.moc"
