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
  if (!connect(error) || !history_->add_entry(destination_.run, entry, error)) return false;
  RunRecordEntry plain{entry.result, nullptr};
  plain.result.kernel_profile = nullptr;  // not held for the whole run: the digest needs none of them
  plain.result.trace = nullptr;
  plain.result.allocator_snapshot = nullptr;
  plain.result.allocation_log = nullptr;
  plain.result.memory_timeline = nullptr;
  measured_.entries.push_back(std::move(plain));
  // Each digest reads every configuration so far: a long sweep's is brought up to date now and
  // then (the list counts its entries itself), and at the end.
  const size_t n = measured_.entries.size();
  return (n > 64 && n % 64 != 0) || history_->set_digest(destination_.run, digest_record(measured_), error);
}

bool RunWriter::finish(RunState state, QString* error) {
  if (!connect(error)) return false;
  const bool digested =
      measured_.entries.empty() || history_->set_digest(destination_.run, digest_record(measured_), error);
  return digested && history_->finish_run(destination_.run, state, error);
}

}  // namespace stepscope::history
