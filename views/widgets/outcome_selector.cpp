#include "widgets/outcome_selector.h"

namespace stepscope::views {

OutcomeSelector::OutcomeSelector(QWidget* parent) : QComboBox(parent) {
  setSizeAdjustPolicy(QComboBox::AdjustToContents);
  setToolTip(tr("Which configuration of the run to show"));
  clear_outcomes();
  connect(this, &QComboBox::currentIndexChanged, this, [this] { emit selection_changed(); });
}

void OutcomeSelector::clear_outcomes() {
  outcomes_.clear();
  clear();
  addItem(tr("in progress (live)"));
}

void OutcomeSelector::add_outcome(const RunOutcome& outcome) {
  const bool follow = follows_newest();
  outcomes_.push_back(outcome);
  QString label = QString::fromStdString(describe(*outcome.result));
  if (outcome.result->status != RunStatus::ok) label += " (" + QString::fromStdString(to_string(outcome.result->status)) + ")";
  addItem(label);
  if (follow) setCurrentIndex(count() - 1);
}

const RunOutcome* OutcomeSelector::selected() const {
  const int i = currentIndex() - 1;
  return i >= 0 && i < static_cast<int>(outcomes_.size()) ? &outcomes_[static_cast<size_t>(i)] : nullptr;
}

bool OutcomeSelector::follows_newest() const { return currentIndex() <= 0 || currentIndex() == count() - 1; }

}  // namespace stepscope::views
