// A tab of the main window that presents results: the tables of a run (a record's, or a run's
// just finished), each tab showing those of the schemas it knows; the window exports what each
// names as its tables and charts. Tabs that present the step benchmark's configurations (their
// kernel profiles and memory timelines) are BenchResultsViews as well.
#pragma once

#include <QList>
#include <QString>
#include <QWidget>

#include <memory>
#include <vector>

#include "profiling/kernel_profile.h"
#include "schema/table.h"
#include "widgets/run_outcome.h"

class QAbstractItemModel;
class QAction;
class QChartView;

namespace stepscope::views {

struct NamedTable {
  QString name;  // file-name friendly: "kernels", "memory_peaks"
  const QAbstractItemModel* model;
};

struct NamedChart {
  QString name;
  QChartView* view;
};

class ResultView : public QWidget {
 public:
  using QWidget::QWidget;
  // A new run starts: forget the previous one.
  virtual void clear() = 0;
  // Result tables (a record's, or a run's just finished): each view shows those of the
  // schemas it knows.
  virtual void show_tables(const std::vector<schema::Table>& /*tables*/) {}
  // Brings tables and charts up to date before an export (a hidden tab may draw lazily).
  virtual void prepare_export() {}
  virtual std::vector<NamedTable> tables() const = 0;
  virtual std::vector<NamedChart> charts() const = 0;
  // What the tab adds to the window's File menu (the Kernels tab's trace export).
  virtual QList<QAction*> file_actions() const { return {}; }
};

// A tab that presents the step benchmark's configurations as they finish: results with their
// steps, kernel profiles and memory timelines, which are more than a table holds.
class BenchResultsView : public ResultView {
 public:
  using ResultView::ResultView;
  // A configuration finished (or ran out of memory, or was cancelled).
  virtual void add_outcome(const RunOutcome& outcome) = 0;
  // A stored run's configurations at once: views whose charts redraw per outcome draw once.
  virtual void add_outcomes(const std::vector<RunOutcome>& outcomes) {
    for (const auto& outcome : outcomes) add_outcome(outcome);
  }
  // A run of `configs` starts (after clear()), and ends (complete, cancelled or failed): between
  // the two, tabs whose profile is still to come say what is coming.
  virtual void begin_run(const std::vector<BenchConfig>& /*configs*/) {}
  virtual void end_run() {}
  // The live kernel summary of the configuration in progress.
  virtual void show_live_profile(std::shared_ptr<const profiling::KernelProfile> /*profile*/) {}
  // The run stopped on `message`; what it measured stays shown (the Benchmark tab says so).
  virtual void show_failure(const QString& /*message*/) {}
};

}  // namespace stepscope::views
