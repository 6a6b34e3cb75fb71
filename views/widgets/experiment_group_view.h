// One main-window tab for experiments that belong together (the precision lab's accumulate
// and autocast): each experiment's own view in a sub-tab, the window's calls passed to all.
#pragma once

#include <QString>

#include <utility>
#include <vector>

#include "widgets/experiment_view.h"

class QTabWidget;

namespace stepscope::views {

class ExperimentGroupView : public ResultView {
  Q_OBJECT

 public:
  // Takes ownership of the views; each sub-tab is titled with its experiment's name.
  explicit ExperimentGroupView(std::vector<ExperimentView*> views, QWidget* parent = nullptr);

  const std::vector<ExperimentView*>& views() const { return views_; }
  // Brings the sub-tab of `view` forward (a reopened run of it).
  void show_view(ExperimentView* view);

  void clear() override;
  void show_tables(const std::vector<schema::Table>& tables) override;
  std::vector<NamedTable> tables() const override;
  std::vector<NamedChart> charts() const override;

 private:
  std::vector<ExperimentView*> views_;
  QTabWidget* tabs_;
};

}  // namespace stepscope::views
