#include "gui/view_update_queue.h"

#include <utility>

namespace stepscope::gui {

ViewUpdateQueue::ViewUpdateQueue(QObject* parent) : QObject(parent) {
  timer_.setSingleShot(true);
  timer_.setInterval(0);
  connect(&timer_, &QTimer::timeout, this, &ViewUpdateQueue::run_one);
}

void ViewUpdateQueue::post(std::function<void()> work) {
  queue_.push_back(std::move(work));
  if (!timer_.isActive()) timer_.start();
}

void ViewUpdateQueue::drain() {
  timer_.stop();
  while (!queue_.empty()) {
    // Taken off first: the work may post more, or drain again.
    auto work = std::move(queue_.front());
    queue_.pop_front();
    work();
  }
}

void ViewUpdateQueue::run_one() {
  if (queue_.empty()) return;
  auto work = std::move(queue_.front());
  queue_.pop_front();
  if (!queue_.empty()) timer_.start();
  work();
}

}  // namespace stepscope::gui
