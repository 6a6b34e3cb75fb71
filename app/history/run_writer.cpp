#include "history/run_writer.h"

namespace stepscope::history {

bool RunWriter::connect(QString* error) {
  if (history_) return true;
  auto history = std::make_unique<RunHistory>();
  if (!history->attach(destination_.path, error)) return false;
  history_ = std::move(history);
  return true;
}

bool RunWriter::add(const RunRecordEntry& entry, QString* error) {
  return connect(error) && history_->add_entry(destination_.run, entry, error);
}

bool RunWriter::finish(RunState state, QString* error) {
  return connect(error) && history_->finish_run(destination_.run, state, error);
}

}  // namespace stepscope::history
