#include "gui/run_gate.h"

#include <algorithm>

namespace stepscope::gui {

RunGate::Ticket RunGate::request(const QString& label, std::function<void()> start) {
  const Ticket ticket = next_ticket_++;
  queue_.push_back({ticket, label, std::move(start)});
  if (running_ == 0) {
    start_next();
  } else {
    emit changed();
  }
  return ticket;
}

void RunGate::finished(Ticket ticket) {
  if (ticket == 0 || ticket != running_) return;
  running_ = 0;
  running_label_.clear();
  start_next();
}

bool RunGate::withdraw(Ticket ticket) {
  const auto it = std::find_if(queue_.begin(), queue_.end(), [&](const Waiting& w) { return w.ticket == ticket; });
  if (it == queue_.end()) return false;
  queue_.erase(it);
  emit changed();
  return true;
}

bool RunGate::is_queued(Ticket ticket) const {
  return std::any_of(queue_.begin(), queue_.end(), [&](const Waiting& w) { return w.ticket == ticket; });
}

QStringList RunGate::ahead_of(Ticket ticket) const {
  QStringList ahead;
  if (running_ != 0) ahead << running_label_;
  for (const Waiting& w : queue_) {
    if (w.ticket == ticket) break;
    ahead << w.label;
  }
  return ahead;
}

QStringList RunGate::queued_labels() const {
  QStringList labels;
  for (const Waiting& w : queue_) labels << w.label;
  return labels;
}

void RunGate::start_next() {
  if (queue_.empty()) {
    emit changed();
    return;
  }
  Waiting next = std::move(queue_.front());
  queue_.pop_front();
  running_ = next.ticket;
  running_label_ = next.label;
  emit changed();
  // The start may end at once (a refusal): it calls finished(), which starts the one after.
  next.start();
}

}  // namespace stepscope::gui
