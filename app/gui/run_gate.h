// One experiment runs at a time across the window: the run panel's benchmark and every
// experiment tab ask the gate before they start. A run asked for while another runs waits in
// line (shown, and cancellable before it starts) and starts when the one before it ends, so no
// two of our runs ever measure beside each other.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <deque>
#include <functional>

namespace stepscope::gui {

class RunGate : public QObject {
  Q_OBJECT

 public:
  using Ticket = int;

  explicit RunGate(QObject* parent = nullptr) : QObject(parent) {}

  // Starts `start` now when nothing runs, else when the runs before it have ended; `label`
  // names it in the queue ("Benchmark tiny ..."). The runner calls finished(ticket) when its
  // run ends.
  Ticket request(const QString& label, std::function<void()> start);
  // The run of `ticket` ended: the next in line starts.
  void finished(Ticket ticket);
  // Takes a queued run out of the line before it starts; false when it is not queued.
  bool withdraw(Ticket ticket);

  bool is_running(Ticket ticket) const { return ticket != 0 && ticket == running_; }
  bool is_queued(Ticket ticket) const;
  bool is_busy() const { return running_ != 0; }
  QString running_label() const { return running_label_; }
  // What `ticket` waits behind: the run in progress, then those queued before it.
  QStringList ahead_of(Ticket ticket) const;
  // The labels of the runs waiting, first in line first.
  QStringList queued_labels() const;

 signals:
  // A run started, ended, was queued or withdrawn.
  void changed();

 private:
  struct Waiting {
    Ticket ticket;
    QString label;
    std::function<void()> start;
  };
  void start_next();

  std::deque<Waiting> queue_;
  Ticket running_ = 0;
  QString running_label_;
  Ticket next_ticket_ = 1;
};

}  // namespace stepscope::gui
