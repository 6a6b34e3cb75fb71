// Result-view updates run one at a time, each in a turn of the event loop of its own, in the
// order posted. A configuration's outcome reaches every result tab, and each re-lays out its
// charts and tables: done at once, that stalled the window for 50-100 ms on a busy 2-core
// machine as each configuration ended.
#pragma once

#include <QObject>
#include <QTimer>

#include <deque>
#include <functional>

namespace stepscope::gui {

class ViewUpdateQueue : public QObject {
  Q_OBJECT

 public:
  explicit ViewUpdateQueue(QObject* parent = nullptr);
  void post(std::function<void()> work);
  // Runs everything still queued, now: before views are read (export) or replaced (a record
  // opened) by code that expects them current.
  void drain();
  bool empty() const { return queue_.empty(); }

 private:
  void run_one();

  std::deque<std::function<void()>> queue_;
  QTimer timer_;
};

}  // namespace stepscope::gui
