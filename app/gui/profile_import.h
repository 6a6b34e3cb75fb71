// Opens a profile PyTorch wrote (a torch.profiler trace, a CUDA memory snapshot:
// imports/import_record.h) on the app's worker thread (gui/worker_thread.h): the file read with
// progress and Cancel, the record kept in the History from that thread (no disk work on the GUI
// thread) and the views' outcomes derived there too, as a run's are. One import at a time.
#pragma once

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

#include "gui/worker_thread.h"
#include "imports/import_record.h"
#include "widgets/run_outcome.h"

namespace stepscope::gui {

struct ImportResult {
  QString path;
  RunRecord record;
  std::vector<views::RunOutcome> outcomes;  // one per entry, as the bench views take them
  int64_t history_run = 0;                  // where the History keeps it; 0 when it does not
  QString unkept;                           // why the History does not keep it ("" when it does)
  QString error;                            // why the file could not be imported ("" when it was)
  bool cancelled = false;
};

class ProfileImport : public QObject {
  Q_OBJECT

 public:
  explicit ProfileImport(QObject* parent = nullptr);

  bool is_running() const { return worker_.is_running(); }
  // Imports `path` (of `kind`, imports::sniff_profile's) and, with a `history` file the app opened
  // and checked, keeps it there as a run labelled `label`. Ignored while an import runs.
  void start(const QString& path, imports::ProfileKind kind, const QString& history, const QString& label);
  // The import stops at its next check; nothing of it is kept.
  void cancel() { worker_.cancel(); }

 signals:
  void progress(double fraction);
  void finished(std::shared_ptr<const stepscope::gui::ImportResult> result);

 private:
  WorkerThread worker_;  // cancels an import in progress and waits for it when destroyed
};

// "import: trace_cuda.json.gz": how the History lists an import.
QString import_label(const QString& path);

}  // namespace stepscope::gui

Q_DECLARE_METATYPE(std::shared_ptr<const stepscope::gui::ImportResult>)
