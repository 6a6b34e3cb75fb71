// The main window's layout: it fits a laptop screen (its minimum size, with every tab shown in
// turn, is at most 1280 x 720, with Run in view), and it comes back as the user left it.
#include <QApplication>
#include <QDockWidget>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "gui/main_window.h"

using namespace stepscope;

class WindowLayoutTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();  // a window as a first session opens it
  }

  void everyTabFits1280x720() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    window.show();
    auto* tabs = window.findChild<QTabWidget*>("resultTabs");
    QVERIFY(tabs);
    QStringList wide;
    for (int i = 0; i < tabs->count(); ++i) {
      tabs->setCurrentIndex(i);
      QApplication::processEvents();
      const QSize minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
      qInfo("%s: minimum %d x %d (the tab's own %d x %d)", qPrintable(tabs->tabText(i)), minimum.width(),
            minimum.height(), tabs->widget(i)->minimumSizeHint().width(), tabs->widget(i)->minimumSizeHint().height());
      if (minimum.width() > 1280 || minimum.height() > 720) {
        wide << QStringLiteral("%1 (%2 x %3)").arg(tabs->tabText(i)).arg(minimum.width()).arg(minimum.height());
      }
    }
    for (auto* dock : window.findChildren<QDockWidget*>()) {
      qInfo("dock %s: minimum %d x %d", qPrintable(dock->objectName()), dock->minimumSizeHint().width(),
            dock->minimumSizeHint().height());
    }
    QVERIFY2(wide.isEmpty(), qPrintable("larger than 1280 x 720: " + wide.join(", ")));
  }

  // At its smallest, every Run button is in view: the fields scroll above it, it does not scroll away.
  void everyRunButtonStaysInViewAtTheMinimum() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    window.show();
    window.resize(window.minimumSizeHint().expandedTo(window.minimumSize()));
    auto* tabs = window.findChild<QTabWidget*>("resultTabs");
    QStringList hidden;
    for (int i = 0; i < tabs->count(); ++i) {
      tabs->setCurrentIndex(i);
      QApplication::processEvents();
      for (auto* run : window.findChildren<QPushButton*>("run")) {
        if (!run->isVisible()) continue;  // on another tab, or the dock tabbed behind History
        const QRect in_window(run->mapTo(&window, QPoint(0, 0)), run->size());
        if (!window.rect().contains(in_window) || run->visibleRegion().boundingRect() != run->rect()) {
          hidden << QStringLiteral("%1 (at %2,%3)").arg(tabs->tabText(i)).arg(in_window.x()).arg(in_window.y());
        }
      }
    }
    QVERIFY2(hidden.isEmpty(), qPrintable("Run cut off or out of view: " + hidden.join(", ")));
  }

  // The splitters as dragged, the tab and the geometry come back in the next session.
  void splittersAndTheTabAreRemembered() {
    QTemporaryDir dir;
    QSettings().clear();
    QList<int> dragged;
    QString path;
    {
      gui::MainWindow window(dir.filePath("history.sqlite"));
      window.show();
      auto* tabs = window.findChild<QTabWidget*>("resultTabs");
      tabs->setCurrentIndex(6);
      QApplication::processEvents();
      // The Collectives tab's form against its results.
      QSplitter* split = nullptr;
      for (auto* s : tabs->widget(6)->findChildren<QSplitter*>()) {
        if (s->orientation() == Qt::Horizontal) split = s;
      }
      QVERIFY(split);
      const int total = split->sizes()[0] + split->sizes()[1];
      split->setSizes({total / 2 + 37, total - total / 2 - 37});
      QApplication::processEvents();
      dragged = split->sizes();
      window.close();
    }
    gui::MainWindow again(dir.filePath("history.sqlite"));
    again.show();
    QTest::qWait(200);
    auto* tabs = again.findChild<QTabWidget*>("resultTabs");
    QCOMPARE(tabs->currentIndex(), 6);
    QSplitter* split = nullptr;
    for (auto* s : tabs->widget(6)->findChildren<QSplitter*>()) {
      if (s->orientation() == Qt::Horizontal) split = s;
    }
    QVERIFY(split);
    QCOMPARE(split->sizes(), dragged);
  }
};

QTEST_MAIN(WindowLayoutTest)
#include "test_window_layout.moc"
