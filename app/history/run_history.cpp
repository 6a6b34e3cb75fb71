#include "history/run_history.h"

#include <QDir>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QUuid>
#include <QVariant>


namespace stepscope::history {

namespace {

constexpr const char* kFormat = kHistoryFormat;
constexpr int kVersion = kHistoryVersion;

// SQLITE_BUSY or SQLITE_LOCKED: another connection holds the lock past the busy timeout.
bool is_busy(const QSqlQuery& query) {
  const QString code = query.lastError().nativeErrorCode();
  return code == QLatin1String("5") || code == QLatin1String("6");
}

QString sql_error(const QSqlQuery& query) {
  const QString text = query.lastError().text();
  return is_busy(query) ? text + QStringLiteral(" (another process is writing to the history)") : text;
}

// Runs `sql` (with positional values); false with `error` naming what failed.
bool exec(QSqlDatabase db, const QString& sql, const QVariantList& values, QString* error, QSqlQuery* out = nullptr) {
  QSqlQuery query(db);
  if (!query.prepare(sql)) {
    if (error) *error = QStringLiteral("%1: %2").arg(sql.section(' ', 0, 2), sql_error(query));
    return false;
  }
  for (const QVariant& v : values) query.addBindValue(v);
  if (!query.exec()) {
    if (error) *error = QStringLiteral("%1: %2").arg(sql.section(' ', 0, 2), sql_error(query));
    return false;
  }
  if (out) *out = std::move(query);
  return true;
}

// One configuration as the history stores it: a run record holding that entry alone.
std::string entry_record_text(const RunRecordEntry& entry) { return write_run_record(RunRecord{{}, {entry}, {}}); }

// Only for a file known to be ours: a run's entries are written while it goes, and a commit
// then waits for no disk flush; what is committed survives the app being
// killed (the log is replayed on the next open).
void use_write_ahead_log(QSqlDatabase db) {
  QSqlQuery pragma(db);
  pragma.exec("PRAGMA journal_mode=WAL");
  pragma.exec("PRAGMA synchronous=NORMAL");
}

RunState state_from_text(const QString& text) { return state_from_name(text.toStdString()); }

}  // namespace

QString default_history_path() {
  const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
  return QDir(dir).filePath("history.sqlite");
}

RunHistory::RunHistory() : connection_(QUuid::createUuid().toString()) {}

RunHistory::~RunHistory() {
  { QSqlDatabase::database(connection_, false).close(); }
  QSqlDatabase::removeDatabase(connection_);
}

bool RunHistory::is_open() const { return QSqlDatabase::database(connection_, false).isOpen(); }

bool RunHistory::open(const QString& path, QString* error) {
  QString why;
  const bool opened = open_checked(path, &why);
  open_error_ = opened ? QString() : why;
  if (error) *error = why;
  return opened;
}

QString RunHistory::why_closed() const {
  if (is_open()) return {};
  return open_error_.isEmpty() ? QStringLiteral("the history %1 is closed").arg(path_) : open_error_;
}

bool RunHistory::open_checked(const QString& path, QString* error) {
  if (!QSqlDatabase::isDriverAvailable("QSQLITE")) {
    if (error) *error = QStringLiteral("the SQLite driver of Qt SQL is not installed (Debian: libqt6sql6-sqlite)");
    return false;
  }
  const QFileInfo info(path);
  if (!QDir().mkpath(info.absolutePath())) {
    if (error) *error = QStringLiteral("cannot create the folder %1").arg(info.absolutePath());
    return false;
  }
  const bool existed = info.exists() && info.size() > 0;
  if (!connect_to(path, error)) return false;
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  const auto refuse = [&](const QString& why) {
    db.close();
    if (error) *error = QStringLiteral("%1 is not a Stepscope run history: %2").arg(path, why);
    return false;
  };
  QSqlQuery query(db);
  // Reading the schema is the first real access: a file that is not SQLite fails here, and so
  // does one another process holds locked, which is no reason to call it foreign.
  if (!query.exec("SELECT name FROM sqlite_master WHERE type = 'table'")) {
    if (is_busy(query)) {
      db.close();
      if (error) *error = QStringLiteral("%1 is locked by another process: %2").arg(path, sql_error(query));
      return false;
    }
    return refuse(sql_error(query));
  }
  QStringList tables;
  while (query.next()) tables << query.value(0).toString();
  if (existed || !tables.isEmpty()) {
    if (!tables.contains("meta")) return refuse(QStringLiteral("it has no Stepscope metadata"));
    QString format, version;
    if (!query.exec("SELECT key, value FROM meta")) return refuse(sql_error(query));
    while (query.next()) {
      if (query.value(0).toString() == "format") format = query.value(1).toString();
      if (query.value(0).toString() == "version") version = query.value(1).toString();
    }
    if (format != kFormat) return refuse(QStringLiteral("its format is '%1'").arg(format));
    if (version.toInt() > kVersion) {
      return refuse(QStringLiteral("it is version %1, newer than this build reads (%2)").arg(version).arg(kVersion));
    }
    if (!query.exec("PRAGMA quick_check") || !query.next() || query.value(0).toString() != "ok") {
      return refuse(QStringLiteral("the database is damaged (%1)").arg(query.value(0).toString()));
    }
    use_write_ahead_log(db);
    QString why;
    if (version.toInt() < 2 && !upgrade_from_v1(&why)) {
      db.close();
      if (error) {
        *error = QStringLiteral("cannot upgrade the history %1 to version %2: %3").arg(path).arg(kVersion).arg(why);
      }
      return false;
    }
    return true;
  }
  // A new history.
  QString why;
  const bool created =
      db.transaction() && exec(db, "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)", {}, &why) &&
      exec(db, "INSERT INTO meta VALUES ('format', ?), ('version', ?)", {kFormat, QString::number(kVersion)}, &why) &&
      exec(db,
           "CREATE TABLE runs (id INTEGER PRIMARY KEY, started_at TEXT, label TEXT, device TEXT, state TEXT, "
           "environment TEXT, ran INTEGER, planned INTEGER NOT NULL DEFAULT 0, figures TEXT)",
           {}, &why) &&
      exec(db,
           "CREATE TABLE entries (run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE, position INTEGER, "
           "record TEXT, PRIMARY KEY (run_id, position))",
           {}, &why) &&
      db.commit();
  if (!created) {
    db.rollback();
    if (error) *error = QStringLiteral("cannot create the history in %1: %2").arg(path, why);
    return false;
  }
  use_write_ahead_log(db);
  return true;
}

bool RunHistory::upgrade_from_v1(QString* error) {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  if (!db.transaction()) {
    if (error) *error = db.lastError().text();
    return false;
  }
  bool ok = exec(db, "ALTER TABLE runs ADD COLUMN ran INTEGER", {}, error) &&
            exec(db, "ALTER TABLE runs ADD COLUMN planned INTEGER NOT NULL DEFAULT 0", {}, error) &&
            exec(db, "ALTER TABLE runs ADD COLUMN figures TEXT", {}, error);
  std::vector<int64_t> ids;
  QSqlQuery query;
  ok = ok && exec(db, "SELECT id FROM runs", {}, error, &query);
  while (ok && query.next()) ids.push_back(query.value(0).toLongLong());
  for (size_t i = 0; ok && i < ids.size(); ++i) {
    // A run that cannot be read keeps no digest: it is listed as before, and says why on opening.
    if (const auto record = load(ids[i], nullptr)) ok = set_digest(ids[i], digest_record(*record), error);
  }
  ok = ok && exec(db, "UPDATE meta SET value = ? WHERE key = 'version'", {QString::number(kVersion)}, error) &&
       db.commit();
  if (!ok) db.rollback();
  return ok;
}

bool RunHistory::connect_to(const QString& path, QString* error) {
  QSqlDatabase db = QSqlDatabase::contains(connection_) ? QSqlDatabase::database(connection_, false)
                                                         : QSqlDatabase::addDatabase("QSQLITE", connection_);
  db.close();
  db.setDatabaseName(path);
  if (!db.open()) {
    if (error) *error = QStringLiteral("cannot open %1: %2").arg(path, db.lastError().text());
    return false;
  }
  path_ = path;
  return true;
}

bool RunHistory::attach(const QString& path, QString* error) {
  if (!connect_to(path, error)) return false;
  use_write_ahead_log(QSqlDatabase::database(connection_, false));
  return true;
}

int64_t RunHistory::begin_run(const RunEnvironment& environment, const QString& label, const QString& device,
                              QString* error, const RunInputs& inputs, size_t planned) {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  QSqlQuery query;
  const RunRecord empty{environment, {}, {}, inputs};
  if (!exec(db, "INSERT INTO runs (started_at, label, device, state, environment, planned) VALUES (?, ?, ?, ?, ?, ?)",
            {QString::fromStdString(environment.started_at), label, device, to_text(RunState::incomplete),
             QString::fromStdString(write_run_record(empty)), static_cast<qlonglong>(planned)},
            error, &query)) {
    return 0;
  }
  return query.lastInsertId().toLongLong();
}

bool RunHistory::add_entry(int64_t run, const RunRecordEntry& entry, QString* error) {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  QSqlQuery count_query;
  if (!exec(db, "SELECT COUNT(*) FROM entries WHERE run_id = ?", {QVariant::fromValue(run)}, error, &count_query) ||
      !count_query.next()) {
    return false;
  }
  const int position = count_query.value(0).toInt();
  return exec(db, "INSERT INTO entries (run_id, position, record) VALUES (?, ?, ?)",
              {QVariant::fromValue(run), position, QString::fromStdString(entry_record_text(entry))}, error);
}

bool RunHistory::finish_run(int64_t run, RunState state, QString* error) {
  return exec(QSqlDatabase::database(connection_, false), "UPDATE runs SET state = ? WHERE id = ?",
              {to_text(state), QVariant::fromValue(run)}, error);
}

bool RunHistory::set_digest(int64_t run, const RunDigest& digest, QString* error) {
  // A run that names no device keeps the one it was begun with.
  return exec(QSqlDatabase::database(connection_, false),
              "UPDATE runs SET ran = ?, device = CASE WHEN ? = '' THEN device ELSE ? END, figures = ? WHERE id = ?",
              {static_cast<qlonglong>(digest.ran), QString::fromStdString(digest.device),
               QString::fromStdString(digest.device), QString::fromStdString(write_key_figures(digest.figures)),
               QVariant::fromValue(run)},
              error);
}

namespace {

// The list's columns; `where` narrows the runs (its values bound in order).
const char* const kSummarySelect =
    "SELECT r.id, r.started_at, r.label, r.device, r.state, MAX(COALESCE(r.ran, 0), (SELECT COUNT(*) FROM "
    "entries e WHERE e.run_id = r.id)), r.planned, r.figures FROM runs r WHERE ";
const char* const kFilterClause = "(r.label LIKE ? OR r.device LIKE ? OR r.state LIKE ?)";

RunSummary summary_of(const QSqlQuery& query) {
  return {query.value(0).toLongLong(), query.value(1).toString(), query.value(2).toString(),
          query.value(3).toString(), state_from_text(query.value(4).toString()), query.value(5).toInt(),
          query.value(6).toInt(), read_key_figures(query.value(7).toString().toStdString())};
}

}  // namespace

std::vector<RunSummary> RunHistory::runs(const QString& filter) const {
  std::vector<RunSummary> out;
  QSqlQuery query;
  const QString like = "%" + filter + "%";
  if (!exec(QSqlDatabase::database(connection_, false),
            QString(kSummarySelect) + kFilterClause + " ORDER BY r.id DESC", {like, like, like}, nullptr, &query)) {
    return out;
  }
  while (query.next()) out.push_back(summary_of(query));
  return out;
}

std::optional<RunSummary> RunHistory::run_summary(int64_t run, const QString& filter) const {
  QSqlQuery query;
  const QString like = "%" + filter + "%";
  if (!exec(QSqlDatabase::database(connection_, false), QString(kSummarySelect) + "r.id = ? AND " + kFilterClause,
            {QVariant::fromValue(run), like, like, like}, nullptr, &query) ||
      !query.next()) {
    return std::nullopt;
  }
  return summary_of(query);
}

std::optional<RunRecord> RunHistory::load(int64_t run, QString* error) const {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  QSqlQuery query;
  if (!exec(db, "SELECT environment, state, planned FROM runs WHERE id = ?", {QVariant::fromValue(run)}, error,
            &query)) {
    return std::nullopt;
  }
  if (!query.next()) {
    if (error) *error = QStringLiteral("run %1 is not in the history").arg(run);
    return std::nullopt;
  }
  const std::string head = query.value(0).toString().toStdString();
  const RunState state = state_from_text(query.value(1).toString());
  const size_t planned = query.value(2).toULongLong();
  if (!exec(db, "SELECT record FROM entries WHERE run_id = ? ORDER BY position", {QVariant::fromValue(run)}, error,
            &query)) {
    return std::nullopt;
  }
  std::vector<std::string> entries;
  while (query.next()) entries.push_back(query.value(0).toString().toStdString());
  try {
    return stored_run_record(head, state, planned, entries);
  } catch (const RunRecordError& e) {
    if (error) *error = QStringLiteral("run %1 cannot be read: %2").arg(run).arg(QString::fromStdString(e.what()));
    return std::nullopt;
  }
}

bool RunHistory::remove(int64_t run, QString* error) {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  const bool ok = db.transaction() && exec(db, "DELETE FROM entries WHERE run_id = ?", {QVariant::fromValue(run)}, error) &&
                  exec(db, "DELETE FROM runs WHERE id = ?", {QVariant::fromValue(run)}, error) && db.commit();
  if (!ok) db.rollback();
  return ok;
}

bool RunHistory::update_head(int64_t run, const std::function<void(RunRecord&)>& change, QString* error) {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  QSqlQuery query(db);
  if (!exec(db, "SELECT environment FROM runs WHERE id = ?", {QVariant::fromValue(run)}, error, &query)) return false;
  if (!query.next()) {
    if (error) *error = QStringLiteral("run %1 is not in the history").arg(run);
    return false;
  }
  try {
    // The run's own record holds its environment and tables; entries are rows of their own.
    RunRecord head = read_run_record(query.value(0).toString().toStdString());
    change(head);
    return exec(db, "UPDATE runs SET environment = ? WHERE id = ?",
                {QString::fromStdString(write_run_record(head)), QVariant::fromValue(run)}, error);
  } catch (const RunRecordError& e) {
    if (error) *error = QStringLiteral("run %1 cannot be read: %2").arg(run).arg(QString::fromStdString(e.what()));
    return false;
  }
}

bool RunHistory::set_tables(int64_t run, const std::vector<schema::Table>& tables, QString* error) {
  return update_head(run, [&](RunRecord& head) { head.tables = tables; }, error);
}

bool RunHistory::set_concurrent_runs(int64_t run, const std::string& text, QString* error) {
  return update_head(run, [&](RunRecord& head) { head.environment.concurrent_runs = text; }, error);
}

int64_t RunHistory::import_record(const RunRecord& record, const QString& label, QString* error) {
  const size_t planned = record.outcome ? record.outcome->planned : 0;
  const RunDigest digest = digest_record(record, planned);
  const int64_t run = begin_run(record.environment, label, QString::fromStdString(digest.device), error, record.inputs,
                                planned);
  if (run == 0) return 0;
  // One transaction, positions counted here: a file of 50,000 configurations imports in seconds.
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  bool ok = db.transaction();
  for (size_t i = 0; ok && i < record.entries.size(); ++i) {
    ok = exec(db, "INSERT INTO entries (run_id, position, record) VALUES (?, ?, ?)",
              {QVariant::fromValue(run), static_cast<qlonglong>(i),
               QString::fromStdString(entry_record_text(record.entries[i]))},
              error);
  }
  ok = ok && db.commit();
  if (!ok) db.rollback();
  ok = ok && (record.tables.empty() || set_tables(run, record.tables, error)) && set_digest(run, digest, error) &&
       finish_run(run, state_of(record.outcome), error);
  if (!ok) remove(run, nullptr);  // no empty, incomplete run in the list for a file not kept
  return ok ? run : 0;
}

}  // namespace stepscope::history
