// Which configuration of the run a tab shows: the one in progress (live) or any finished one.
#pragma once

#include <QComboBox>

#include <vector>

#include "widgets/run_outcome.h"

namespace stepscope::views {

class OutcomeSelector : public QComboBox {
  Q_OBJECT

 public:
  explicit OutcomeSelector(QWidget* parent = nullptr);
  void clear_outcomes();
  // Adds a finished configuration and selects it when the selection followed the newest.
  void add_outcome(const RunOutcome& outcome);
  // The selected configuration; nullptr for "in progress".
  const RunOutcome* selected() const;
  bool follows_newest() const;

 signals:
  void selection_changed();

 private:
  std::vector<RunOutcome> outcomes_;
};

}  // namespace stepscope::views
