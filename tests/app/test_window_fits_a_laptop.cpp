// The main window fits a laptop screen: its minimum size, with every tab shown in turn, is at
// most 1280 x 720, so that nothing is cut off or out of reach there.
#include <QApplication>
#include <QDockWidget>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "gui/main_window.h"

using namespace stepscope;

class WindowFitsALaptopTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

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
};

QTEST_MAIN(WindowFitsALaptopTest)
#include "test_window_fits_a_laptop.moc"
