#include "gui/splitter_state.h"

#include <QEvent>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStringList>
#include <QTimer>

namespace stepscope::gui {

namespace {

// "resultTabs/qt_tabwidget_stackedwidget/ExperimentView@5/QSplitter.0": object names where
// they are set, else the class and the place: a stacked widget's page or a splitter's part by
// its index there (raise() reorders siblings as tabs change), anything else among its
// siblings of that class.
QString path_of(const QWidget& window, const QObject* object) {
  QStringList parts;
  for (; object != nullptr && object != &window; object = object->parent()) {
    QString part = object->objectName();
    if (part.isEmpty()) {
      const QString type = QString::fromLatin1(object->metaObject()->className());
      const QObject* parent = object->parent();
      const auto* widget = qobject_cast<const QWidget*>(object);
      if (const auto* stack = qobject_cast<const QStackedWidget*>(parent); stack && widget) {
        part = QStringLiteral("%1@%2").arg(type).arg(stack->indexOf(const_cast<QWidget*>(widget)));
      } else if (const auto* split = qobject_cast<const QSplitter*>(parent); split && widget) {
        part = QStringLiteral("%1@%2").arg(type).arg(split->indexOf(const_cast<QWidget*>(widget)));
      } else {
        int index = 0;
        for (const QObject* sibling : parent != nullptr ? parent->children() : QObjectList()) {
          if (sibling == object) break;
          if (qstrcmp(sibling->metaObject()->className(), object->metaObject()->className()) == 0) ++index;
        }
        part = QStringLiteral("%1.%2").arg(type).arg(index);
      }
    }
    parts.prepend(part);
  }
  return parts.join(QLatin1Char('/'));
}

const QString kGroup = QStringLiteral("splitters/");

// The sizes are pixels: given before the splitter has its size, they would be scaled to the
// size it has then. So they wait for its first showing (a tab's page is sized by then).
class RestoreOnShow : public QObject {
 public:
  RestoreOnShow(QSplitter* splitter, QByteArray state) : QObject(splitter), state_(std::move(state)) {
    splitter->installEventFilter(this);
  }

  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Show) {
      // After the layout requests the showing posted: the window's docks and tabs settle first.
      watched->removeEventFilter(this);
      QTimer::singleShot(0, this, [this] {
        static_cast<QSplitter*>(parent())->restoreState(state_);
        deleteLater();
      });
    }
    return false;
  }

 private:
  QByteArray state_;
};

}  // namespace

void save_splitters(const QWidget& window, QSettings& settings) {
  for (const QSplitter* splitter : window.findChildren<QSplitter*>()) {
    settings.setValue(kGroup + path_of(window, splitter), splitter->saveState());
  }
}

void restore_splitters(QWidget& window, const QSettings& settings) {
  for (QSplitter* splitter : window.findChildren<QSplitter*>()) {
    const QByteArray state = settings.value(kGroup + path_of(window, splitter)).toByteArray();
    if (!state.isEmpty()) new RestoreOnShow(splitter, state);
  }
}

}  // namespace stepscope::gui
