// Every finished or cancelled run, kept in an SQLite database (Qt SQL) in the user's data
// directory: configuration, environment and all results, as run records (io/run_record_json).
// A run is written as it goes, one transaction per configuration, and marked incomplete until
// it ends, so a crash mid-run loses nothing measured. A file that is not a Stepscope history
// (another SQLite database, a corrupt file, something else) is refused with a message.
#pragma once

#include <QString>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "history/history_layout.h"
#include "io/run_record_digest.h"
#include "io/run_record_json.h"

namespace stepscope::history {

// RunState, its names and how a record's ending maps to it: history_layout.h.
QString to_text(RunState state);

struct RunSummary {
  int64_t id = 0;
  QString started_at;  // ISO 8601, UTC
  QString label;       // "tiny ctx 64 b 4 fp32 train" or "sweep: 12 configurations, 2.7B ..."
  QString device;
  RunState state = RunState::incomplete;
  int configurations = 0;  // that ran (or were cut short), stored so far
  int planned = 0;         // asked for; 0 when not known
  std::vector<KeyFigure> figures;  // its experiment's headline figures
};

// What the history's list says of a run: its rows, device and headline figures, by the
// experiment the record names (or, for records that name none, by what they hold).
RunDigest digest_record(const RunRecord& record, size_t planned = 0);

class RunHistory {
 public:
  RunHistory();
  ~RunHistory();
  RunHistory(const RunHistory&) = delete;
  RunHistory& operator=(const RunHistory&) = delete;

  // Opens, creating it when missing; false with `error` saying why the file cannot be used.
  bool open(const QString& path, QString* error);
  // A second connection to a history this process opened and checked (with open), for a
  // thread of its own: no checks, since a full check of a large history takes seconds.
  bool attach(const QString& path, QString* error);
  bool is_open() const;
  QString path() const { return path_; }
  // Why runs cannot be kept: what the last open said, or that none was opened; empty when open.
  QString why_closed() const;

  // A new run, incomplete until finish_run; 0 with `error` on failure. `inputs`: what it was
  // asked, so that it reopens and runs again with them.
  // `planned`: how many configurations it was asked to run (0: not known).
  int64_t begin_run(const RunEnvironment& environment, const QString& label, const QString& device, QString* error,
                    const RunInputs& inputs = {}, size_t planned = 0);
  bool add_entry(int64_t run, const RunRecordEntry& entry, QString* error);
  bool finish_run(int64_t run, RunState state, QString* error);
  // What the list shows of the run (configurations ran, device, key figures), as it goes.
  bool set_digest(int64_t run, const RunDigest& digest, QString* error);
  // Result tables of experiments other than the step benchmark, kept with the run.
  bool set_tables(int64_t run, const std::vector<schema::Table>& tables, QString* error);
  // What other Stepscope runs ran during `run` (RunEnvironment::concurrent_runs), known at its end.
  bool set_concurrent_runs(int64_t run, const std::string& text, QString* error);

  // Newest first; `filter` matches the label, device or state (case-insensitive substring).
  std::vector<RunSummary> runs(const QString& filter = {}) const;
  // One run's line of that list; none when it is gone or `filter` leaves it out.
  std::optional<RunSummary> run_summary(int64_t run, const QString& filter = {}) const;
  // The whole run; nothing with `error` when it is gone or its data cannot be read.
  std::optional<RunRecord> load(int64_t run, QString* error) const;
  bool remove(int64_t run, QString* error);
  // A run record (a file someone shared, a table experiment's run) becomes a run of this
  // history, kept as it ended (complete where the record does not say); 0 with `error`, and
  // nothing of it left behind, when it cannot.
  int64_t import_record(const RunRecord& record, const QString& label, QString* error);

 private:
  // Rewrites the run's own record (its environment and tables) as `change` makes it.
  bool update_head(int64_t run, const std::function<void(RunRecord&)>& change, QString* error);
  bool connect_to(const QString& path, QString* error);
  bool open_checked(const QString& path, QString* error);
  // Version 1 kept no digests: adds their columns and fills them from every run's record.
  bool upgrade_from_v1(QString* error);

  QString connection_;
  QString path_;
  QString open_error_ = QStringLiteral("no history was opened");
};

// Where the history lives unless the user says otherwise.
QString default_history_path();

}  // namespace stepscope::history
