#include "widgets/operators_view.h"

#include <QAction>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QStackedWidget>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

#include "models/format.h"
#include "models/operator_kernel_table_model.h"
#include "models/operator_table_model.h"
#include "models/operator_tree_model.h"
#include "models/operator_tree_proxy.h"
#include "widgets/outcome_selector.h"

namespace stepscope::views {

namespace {

enum Page { kTreePage, kEmptyPage };

// What fills the tab, said where it is empty: the profiler to tick, and the run to start.
QString how_to_profile() {
  return QObject::tr("Tick Profile: ops in the run panel and run the step benchmark (F5); on the command line, "
                     "stepscope-cli bench --profile ops");
}

// The names and shapes columns take what their text needs up to these shares of the width,
// and elide in the middle beyond (the tooltip has the whole text).
constexpr double kNameShare = 0.34;
constexpr double kShapesShare = 0.22;

}  // namespace

OperatorsView::OperatorsView(QWidget* parent) : BenchResultsView(parent) {
  selector_ = new OutcomeSelector;
  filter_ = new QLineEdit;
  filter_->setObjectName("operatorFilter");
  filter_->setPlaceholderText(tr("Filter operators, input shapes, kernels or ranges"));
  filter_->setClearButtonEnabled(true);
  group_by_shapes_ = new QCheckBox(tr("Group by input shapes"));
  group_by_shapes_->setChecked(true);
  group_by_shapes_->setToolTip(tr("One row per operator and input shapes, as key_averages(group_by_input_shape=True); "
                                  "untick to merge the shapes of each operator"));
  auto* expand = new QToolButton;
  expand->setText(tr("Expand all"));
  expand->setToolTip(tr("Show every operator's kernels"));
  auto* collapse = new QToolButton;
  collapse->setText(tr("Collapse all"));
  note_ = new QLabel;
  note_->setObjectName("operatorsNote");
  note_->setWordWrap(true);
  note_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  tree_ = new OperatorTreeModel(this);
  proxy_ = new OperatorTreeProxy(this);
  proxy_->setSourceModel(tree_);
  table_ = new OperatorTableModel(this);
  kernel_table_ = new OperatorKernelTableModel(this);

  view_ = new QTreeView;
  view_->setObjectName("operatorTree");
  view_->setModel(proxy_);
  view_->setSortingEnabled(true);
  view_->setAlternatingRowColors(true);
  view_->setUniformRowHeights(true);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setTextElideMode(Qt::ElideMiddle);
  view_->setWordWrap(false);
  view_->header()->setStretchLastSection(false);
  view_->header()->setSectionResizeMode(QHeaderView::Interactive);
  view_->header()->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(view_->header(), &QWidget::customContextMenuRequested, this, &OperatorsView::show_column_menu);

  empty_ = new QLabel;
  empty_->setObjectName("operatorsEmpty");
  empty_->setWordWrap(true);
  empty_->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
  empty_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  empty_->setForegroundRole(QPalette::PlaceholderText);
  const int margin = 3 * fontMetrics().height();
  empty_->setContentsMargins(margin, margin, margin, margin);

  pages_ = new QStackedWidget;
  pages_->insertWidget(kTreePage, view_);
  pages_->insertWidget(kEmptyPage, empty_);

  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Configuration")));
  controls->addWidget(selector_);
  controls->addWidget(filter_, 1);
  controls->addWidget(group_by_shapes_);
  controls->addWidget(expand);
  controls->addWidget(collapse);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(note_);
  layout->addWidget(pages_, 1);

  connect(selector_, &OutcomeSelector::selection_changed, this, [this] {
    const RunOutcome* o = selector_->selected();
    show_profile(o ? o->result->operator_profile : nullptr);
  });
  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    proxy_->set_text_filter(text);
    // A match deep in the tree is what the filter is for: open the way to it.
    if (text.isEmpty()) {
      expand_ranges();
    } else {
      view_->expandAll();
    }
  });
  connect(group_by_shapes_, &QCheckBox::toggled, this, [this](bool group) {
    tree_->set_group_by_shapes(group);
    if (filter_->text().isEmpty()) {
      expand_ranges();
    } else {
      view_->expandAll();
    }
    fit_columns();
  });
  connect(expand, &QToolButton::clicked, view_, &QTreeView::expandAll);
  connect(collapse, &QToolButton::clicked, view_, &QTreeView::collapseAll);
  clear();
}

void OperatorsView::clear() {
  default_sort_ = true;
  selector_->clear_outcomes();
  show_profile(nullptr);
}

void OperatorsView::add_outcome(const RunOutcome& outcome) { selector_->add_outcome(outcome); }

bool OperatorsView::shows_empty_state() const { return pages_->currentIndex() == kEmptyPage; }

QString OperatorsView::empty_text() const { return empty_->text(); }

QString OperatorsView::note() const { return note_->text(); }

void OperatorsView::show_empty(const QString& text) {
  empty_->setText(text);
  note_->clear();
  note_->setVisible(false);
  pages_->setCurrentIndex(kEmptyPage);
}

void OperatorsView::show_profile(std::shared_ptr<const profiling::OperatorProfile> profile) {
  tree_->set_profile(profile);
  table_->set_profile(profile);
  kernel_table_->set_profile(profile);
  if (!profile) {
    show_empty(selector_->selected() != nullptr
                   ? tr("This configuration ran without the operator profiler. %1 to see the operators of its step.")
                         .arg(how_to_profile())
                   : tr("No operators profiled yet. %1 to see which PyTorch operators each range of the step "
                        "(forward, attention, feed-forward, backward, optimizer step) calls: their calls, CPU time "
                        "and input shapes, and on a GPU the kernels each one launched.")
                         .arg(how_to_profile()));
    return;
  }
  if (profile->operators.empty()) {
    QString text = tr("The operator profiler recorded no operator calls in the %1 measured step(s).")
                       .arg(profile->measured_steps);
    if (!profile->source_message.empty()) text += ' ' + QString::fromStdString(profile->source_message);
    show_empty(text);
    return;
  }
  pages_->setCurrentIndex(kTreePage);
  for (int c = 0; c < OperatorTreeModel::ColumnCount; ++c) {
    view_->setColumnHidden(c, OperatorTreeModel::is_gpu_column(c) && !tree_->has_gpu());
  }
  QStringList parts;
  parts << tr("%1 measured step(s), %2 operator calls").arg(profile->measured_steps).arg(format_count(profile->operator_calls));
  if (profile->measured_steps > 0 && profile->measured_cpu_ns > 0) {
    parts << tr("%1 of CPU time per step")
                 .arg(format_duration_ns(static_cast<double>(profile->measured_cpu_ns) / profile->measured_steps));
  }
  if (!tree_->has_gpu()) {
    const QString why = QString::fromStdString(profile->source_message.empty() ? "no GPU activity was recorded"
                                                                               : profile->source_message);
    parts << tr("no GPU kernels (%1): the GPU columns are hidden").arg(why);
  }
  if (profile->dropped_calls > 0) {
    parts << tr("%1 calls beyond the recorder's bound are left out of every figure")
                 .arg(format_count(static_cast<int64_t>(profile->dropped_calls)));
  }
  if (profile->unattributed_kernels > 0) {
    parts << tr("%1 kernels launched outside every range are not listed")
                 .arg(format_count(static_cast<int64_t>(profile->unattributed_kernels)));
  }
  note_->setText(parts.join(QStringLiteral("; ")) + '.');
  note_->setVisible(true);
  // Where the time goes first: the GPU's when it ran, else the CPU's own.
  if (default_sort_) {
    view_->sortByColumn(tree_->has_gpu() ? OperatorTreeModel::TotalGpu : OperatorTreeModel::SelfCpu, Qt::DescendingOrder);
    default_sort_ = false;
  }
  if (filter_->text().isEmpty()) {
    expand_ranges();
  } else {
    view_->expandAll();
  }
  fit_columns();
}

void OperatorsView::expand_ranges() {
  view_->collapseAll();
  // Depth first through the proxy: only what is shown (filtered, sorted) is walked.
  std::vector<QModelIndex> pending{QModelIndex()};
  while (!pending.empty()) {
    const QModelIndex parent = pending.back();
    pending.pop_back();
    for (int r = 0; r < proxy_->rowCount(parent); ++r) {
      const QModelIndex child = proxy_->index(r, 0, parent);
      if (tree_->node(proxy_->mapToSource(child)).kind != OperatorNodeKind::range) continue;
      view_->expand(child);
      pending.push_back(child);
    }
  }
}

void OperatorsView::fit_columns() {
  const int width = std::max(view_->viewport()->width(), 800);
  for (int c = 0; c < OperatorTreeModel::ColumnCount; ++c) {
    if (view_->isColumnHidden(c)) continue;
    view_->resizeColumnToContents(c);
  }
  const int name_max = static_cast<int>(kNameShare * width);
  const int shapes_max = static_cast<int>(kShapesShare * width);
  if (view_->columnWidth(OperatorTreeModel::Name) > name_max) view_->setColumnWidth(OperatorTreeModel::Name, name_max);
  if (view_->columnWidth(OperatorTreeModel::InputShapes) > shapes_max) {
    view_->setColumnWidth(OperatorTreeModel::InputShapes, shapes_max);
  }
}

void OperatorsView::show_column_menu(const QPoint& at) {
  QMenu menu(this);
  for (int c = 0; c < OperatorTreeModel::ColumnCount; ++c) {
    QAction* action = menu.addAction(tree_->headerData(c, Qt::Horizontal).toString());
    action->setCheckable(true);
    action->setChecked(!view_->isColumnHidden(c));
    connect(action, &QAction::toggled, this, [this, c](bool shown) { view_->setColumnHidden(c, !shown); });
  }
  menu.exec(view_->header()->viewport()->mapToGlobal(at));
}

std::vector<NamedTable> OperatorsView::tables() const {
  return {{"operators", table_}, {"operator_kernels", kernel_table_}};
}

}  // namespace stepscope::views
