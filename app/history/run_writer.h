// Writes one history run from the thread that measures it, so the GUI thread does no disk work
// during a run: a profiled configuration's record is about a megabyte, and its commit (with the
// log's occasional checkpoint) took 5-60 ms. Made, used and destroyed on that one thread (Qt SQL
// connections belong to the thread that opened them).
#pragma once

#include <QString>

#include <cstdint>
#include <memory>

#include "history/run_history.h"

namespace stepscope::history {

// Where a run goes: a history file the GUI opened and checked, and the run begun in it.
struct RunDestination {
  QString path;
  int64_t run = 0;
};

class RunWriter {
 public:
  explicit RunWriter(RunDestination destination) : destination_(std::move(destination)) {}

  // Each is false with `error` when it could not be kept; the connection opens on first use
  // (and is tried again on the next call when it could not). `add` also brings the history's
  // line of the run (configurations, key figures) up to date.
  bool add(const RunRecordEntry& entry, QString* error);
  bool finish(RunState state, QString* error);

 private:
  bool connect(QString* error);

  RunDestination destination_;
  // The configurations so far, without their profiles and timelines: the run's digest is
  // brought up to date with each one.
  RunRecord measured_;
  std::unique_ptr<RunHistory> history_;
};

}  // namespace stepscope::history
