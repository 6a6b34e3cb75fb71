#include "cli/history_record.h"

#include <algorithm>
#include <memory>
#include <vector>

#include <sys/stat.h>

#ifdef STEPSCOPE_HAVE_SQLITE
#include <sqlite3.h>
#endif

#include "cli/cli_options.h"
#include "history/history_layout.h"

namespace stepscope::cli {

namespace {

constexpr const char* kPrefix = "history:";

#ifdef STEPSCOPE_HAVE_SQLITE
// One prepared statement; every return code is checked through `check`.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql, const std::string& path) : db_(db), path_(path) {
    check(sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr), sql);
  }
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int index, int64_t value) { check(sqlite3_bind_int64(statement_, index, value), "bind"); }
  // True while a row is there.
  bool step() {
    const int rc = sqlite3_step(statement_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) check(rc, "step");
    return false;
  }
  std::string text(int column) const {
    const auto* p = sqlite3_column_text(statement_, column);
    return p == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(p),
                                                      static_cast<size_t>(sqlite3_column_bytes(statement_, column)));
  }
  int64_t integer(int column) const { return sqlite3_column_int64(statement_, column); }

 private:
  void check(int rc, const char* what) const {
    if (rc == SQLITE_OK) return;
    throw CliError(path_ + " is not a Stepscope run history (" + what + ": " + sqlite3_errmsg(db_) + ")");
  }
  sqlite3* db_;
  std::string path_;
  sqlite3_stmt* statement_ = nullptr;
};
#endif

}  // namespace

std::optional<int64_t> history_run_id(const std::string& argument) {
  const std::string prefix = kPrefix;
  if (argument.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const std::string id = argument.substr(prefix.size());
  if (id.empty() || id.size() > 18 || id.find_first_not_of("0123456789") != std::string::npos || std::stoll(id) <= 0) {
    throw CliError("'" + argument + "': a History run is history:ID, ID a run's number in the app's History");
  }
  return std::stoll(id);
}

RunRecord read_history_run(const std::string& path, int64_t run) {
#ifndef STEPSCOPE_HAVE_SQLITE
  (void)run;
  throw CliError("history:ID needs SQLite 3, and this build has none (install libsqlite3-dev and rebuild); save the "
                 "run from the app's History instead (" + path + ")");
#else
  struct stat info {};
  if (path.empty()) throw CliError("no History database: give --history DB (HOME is not set)");
  if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    throw CliError(path + ": no such History database (the app keeps one once it ran or opened something; "
                          "--history names another)");
  }
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  const std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, sqlite3_close);
  if (rc != SQLITE_OK) throw CliError(path + ": cannot be opened (" + sqlite3_errstr(rc) + ")");
  sqlite3_busy_timeout(db.get(), 5000);  // the app may be writing a run
  std::string format, version;
  {
    Statement meta(db.get(), "SELECT key, value FROM meta", path);
    while (meta.step()) {
      if (meta.text(0) == "format") format = meta.text(1);
      if (meta.text(0) == "version") version = meta.text(1);
    }
  }
  if (format != history::kHistoryFormat) throw CliError(path + " is not a Stepscope run history (its format is '" + format + "')");
  if (version.empty() || version.find_first_not_of("0123456789") != std::string::npos || version.size() > 9 ||
      std::stoi(version) > history::kHistoryVersion) {
    throw CliError(path + ": History version " + version + " is newer than this build reads (" +
                   std::to_string(history::kHistoryVersion) + ")");
  }
  Statement head(db.get(), "SELECT environment, state, planned FROM runs WHERE id = ?", path);
  head.bind(1, run);
  if (!head.step()) throw CliError(path + ": the History has no run " + std::to_string(run));
  const std::string environment = head.text(0);
  const history::RunState state = history::state_from_name(head.text(1));
  const int64_t planned = head.integer(2);
  std::vector<std::string> entries;
  Statement rows(db.get(), "SELECT record FROM entries WHERE run_id = ? ORDER BY position", path);
  rows.bind(1, run);
  while (rows.step()) entries.push_back(rows.text(0));
  try {
    return history::stored_run_record(environment, state, static_cast<size_t>(std::max<int64_t>(0, planned)), entries);
  } catch (const RunRecordError& e) {
    throw CliError(path + ": run " + std::to_string(run) + " cannot be read: " + e.what());
  }
#endif
}

}  // namespace stepscope::cli
