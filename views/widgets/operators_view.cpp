#include "widgets/operators_view.h"

#include <QAction>
#include <QCheckBox>
#include <QEvent>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QStackedWidget>
#include <QStyle>
#include <QToolButton>
#include <QScopedValueRollback>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

#include "models/format.h"
#include "models/operator_tree_model.h"
#include "models/operator_tree_proxy.h"
#include "models/profiled_steps_note.h"
#include "models/schema_table_model.h"
#include "profiling/operator_stats_schema.h"
#include "widgets/outcome_selector.h"

namespace stepscope::views {

namespace {

enum Page { kTreePage, kEmptyPage };

// What fills the tab, said where it is empty: the profiler to tick, and the run to start.
QString how_to_profile() {
  return QObject::tr("tick Profile: ops in the run panel and run the step benchmark (F5), or run "
                     "stepscope-cli bench --profile ops");
}
// Where the names and shapes must give way to the numbers, not below these widths.
constexpr int kMinNameWidth = 180;
constexpr int kMinShapesWidth = 120;

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
  table_ = new SchemaTableModel(profiling::operator_stats_schema().columns(), this);
  kernel_table_ = new SchemaTableModel(profiling::operator_kernel_schema().columns(), this);

  view_ = new QTreeView;
  view_->setObjectName("operatorTree");
  view_->setModel(proxy_);
  view_->setSortingEnabled(true);
  view_->setAlternatingRowColors(true);
  view_->setUniformRowHeights(true);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setTextElideMode(Qt::ElideRight);  // names and shapes say most at their start
  view_->setWordWrap(false);
  view_->header()->setStretchLastSection(false);
  view_->header()->setSectionResizeMode(QHeaderView::Interactive);
  view_->header()->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(view_->header(), &QWidget::customContextMenuRequested, this, &OperatorsView::show_column_menu);
  // Columns fit the width as it changes, until the user sizes one: then they are the user's.
  connect(view_->header(), &QHeaderView::sectionResized, this, [this] {
    // Hiding a column resizes it too: only a drag with the mouse is the user's.
    if (!fitting_ && (QGuiApplication::mouseButtons() & Qt::LeftButton)) user_sized_ = true;
  });
  connect(view_->header(), &QHeaderView::sortIndicatorChanged, this, [this] { fit_columns(); });
  connect(view_, &QTreeView::expanded, this, [this] {
    if (!expanding_) fit_columns();  // the opened rows' names may need more room
  });
  view_->viewport()->installEventFilter(this);

  empty_ = new QLabel;
  empty_->setObjectName("operatorsEmpty");
  empty_->setWordWrap(true);
  empty_->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
  empty_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  empty_->setForegroundRole(QPalette::PlaceholderText);
  const int margin = 3 * fontMetrics().height();
  empty_->setContentsMargins(margin, margin, margin, margin);
  // Lines of a readable length on a wide screen, in the middle of the tab.
  empty_->setMaximumWidth(80 * fontMetrics().averageCharWidth() + 2 * margin);
  auto* empty_page = new QWidget;
  auto* empty_layout = new QHBoxLayout(empty_page);
  empty_layout->addStretch();
  empty_layout->addWidget(empty_, 1);
  empty_layout->addStretch();

  pages_ = new QStackedWidget;
  pages_->insertWidget(kTreePage, view_);
  pages_->insertWidget(kEmptyPage, empty_page);

  // What acts on the tree: of no use while the tab says why it has none.
  tree_controls_ = new QWidget;
  auto* tree_controls = new QHBoxLayout(tree_controls_);
  tree_controls->setContentsMargins(0, 0, 0, 0);
  tree_controls->addWidget(filter_, 1);
  tree_controls->addWidget(group_by_shapes_);
  tree_controls->addWidget(expand);
  tree_controls->addWidget(collapse);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Configuration")));
  controls->addWidget(selector_);
  controls->addWidget(tree_controls_, 1);
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
    open_rows();
  });
  connect(group_by_shapes_, &QCheckBox::toggled, this, [this](bool group) {
    tree_->set_group_by_shapes(group);
    open_rows();
  });
  connect(expand, &QToolButton::clicked, this, [this] {
    view_->expandAll();
    fit_columns();
  });
  connect(collapse, &QToolButton::clicked, view_, &QTreeView::collapseAll);
  clear();
}

void OperatorsView::clear() {
  default_sort_ = true;
  run_.end();
  selector_->clear_outcomes();
  show_profile(nullptr);
}

void OperatorsView::add_outcome(const RunOutcome& outcome) {
  run_.config_finished();
  selector_->add_outcome(outcome);
}

void OperatorsView::begin_run(const std::vector<BenchConfig>& configs) {
  run_.begin(configs);
  if (!selector_->selected()) show_profile(nullptr);
}

void OperatorsView::end_run() {
  run_.end();
  if (!selector_->selected()) show_profile(nullptr);
}

bool OperatorsView::shows_empty_state() const { return pages_->currentIndex() == kEmptyPage; }

QString OperatorsView::empty_text() const { return empty_->text(); }

QString OperatorsView::note() const { return note_->text(); }

void OperatorsView::show_empty(const QString& text) {
  empty_->setText(text);
  tree_controls_->setEnabled(false);
  note_->clear();
  note_->setVisible(false);
  pages_->setCurrentIndex(kEmptyPage);
}

void OperatorsView::show_profile(std::shared_ptr<const profiling::OperatorProfile> profile) {
  tree_->set_profile(profile);
  if (profile) {
    table_->set_table(profiling::operator_stats_schema().table(profiling::operator_rows(*profile)));
    kernel_table_->set_table(profiling::operator_kernel_schema().table(profiling::operator_kernel_rows(*profile)));
  } else {
    table_->clear();
    kernel_table_->clear();
  }
  if (!profile && !selector_->selected() && run_.running()) {
    const BenchConfig& running = *run_.running();
    QString text = coming_profile_note(running, StepProfiler::operators);
    if (!running.profile_operators) text += ' ' + tr("To see its operators, tick Profile: ops for a next run.");
    show_empty(text);
    return;
  }
  if (!profile) {
    show_empty(selector_->selected() != nullptr
                   ? tr("This configuration ran without the operator profiler. To see the operators of its step, %1.")
                         .arg(how_to_profile())
                   : tr("No operators profiled yet. To see which PyTorch operators each range of the step (forward, "
                        "attention, feed-forward, backward, optimizer step) calls, with their calls, CPU time and "
                        "input shapes, and on a GPU the kernels each one launched: %1.")
                         .arg(how_to_profile()));
    return;
  }
  if (profile->operators.empty()) {
    const QString why = profile->source_message.empty() ? QString()
                                                         : QStringLiteral(" (%1)").arg(QString::fromStdString(profile->source_message));
    show_empty(tr("The operator profiler recorded no operator calls in the %1 measured step(s)%2.")
                   .arg(profile->measured_steps)
                   .arg(why));
    return;
  }
  pages_->setCurrentIndex(kTreePage);
  tree_controls_->setEnabled(true);
  user_sized_ = false;  // another profile's text: fitted anew
  for (int c = 0; c < OperatorTreeModel::ColumnCount; ++c) {
    view_->setColumnHidden(c, OperatorTreeModel::is_gpu_column(c) && !tree_->has_gpu());
  }
  QStringList parts;
  parts << tr("%1 measured step(s), %2 operator calls").arg(profile->measured_steps).arg(format_count(profile->operator_calls));
  if (const RunOutcome* o = selector_->selected(); o != nullptr && !profiled_steps_note(*o->result).isEmpty()) {
    parts.last() = tr("Operators %1; %2 operator calls")
                       .arg(profiled_steps_note(*o->result), format_count(profile->operator_calls));
  }
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
    parts << tr("%1 kernels launched outside every range")
                 .arg(format_count(static_cast<int64_t>(profile->unattributed_kernels)));
  }
  note_->setText(parts.join(QStringLiteral("; ")) + '.');
  note_->setVisible(true);
  // Where the time goes first: the GPU's when it ran, else the CPU's own.
  // (The user's sort stays from one configuration to the next, unless its column is hidden now.)
  if (default_sort_ || view_->isColumnHidden(view_->header()->sortIndicatorSection())) {
    view_->sortByColumn(tree_->has_gpu() ? OperatorTreeModel::TotalGpu : OperatorTreeModel::SelfCpu, Qt::DescendingOrder);
    default_sort_ = false;
  }
  open_rows();
}

void OperatorsView::open_rows() {
  // A match deep in the tree is what the filter is for: the way to it opens.
  if (filter_->text().isEmpty()) {
    expand_ranges();
  } else {
    view_->expandAll();
  }
  fit_columns();
}

void OperatorsView::expand_ranges() {
  const QScopedValueRollback<bool> batch(expanding_, true);
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
  if (user_sized_ || pages_->currentIndex() != kTreePage) return;
  const QScopedValueRollback<bool> fitting(fitting_, true);
  // The numbers as wide as they need; the names and shapes share what is left.
  int numbers = 0;
  for (int c = OperatorTreeModel::InputShapes + 1; c < OperatorTreeModel::ColumnCount; ++c) {
    if (view_->isColumnHidden(c)) continue;
    const int width = std::max(header_width(c), static_cast<const QAbstractItemView*>(view_)->sizeHintForColumn(c));
    view_->setColumnWidth(c, width);
    numbers += width;
  }
  // What the rows in view and the header need.
  view_->resizeColumnToContents(OperatorTreeModel::Name);
  view_->resizeColumnToContents(OperatorTreeModel::InputShapes);
  const int name_need = view_->columnWidth(OperatorTreeModel::Name);
  const int shapes_need = view_->columnWidth(OperatorTreeModel::InputShapes);
  const int room = view_->viewport()->width() - numbers;
  int name = name_need;
  int shapes = shapes_need;
  if (name_need + shapes_need <= room) {
    // Some slack for rows opened later (deeper ranges, kernel names), but not so much that the
    // numbers drift away from their names on a wide screen.
    const int extra = room - name_need - shapes_need;
    name += std::min(extra / 2, name_need / 2);
    shapes += std::min(extra / 2, shapes_need / 4);
  } else {
    // The names come first (up to most of the room), the shapes take the rest; neither below
    // a readable width (then the table scrolls sideways). A cut text ends in "…"; its
    // tooltip has it whole.
    name = std::max(kMinNameWidth, std::min(name_need, std::max(room - shapes_need, room * 3 / 5)));
    shapes = std::max(kMinShapesWidth, room - name);
  }
  view_->setColumnWidth(OperatorTreeModel::Name, name);
  view_->setColumnWidth(OperatorTreeModel::InputShapes, shapes);
}

// QHeaderView's own size hint reserves room for a sort arrow beside every label, as wide as
// the label is tall: with two-line labels that doubles a number's column. Only the sorted
// column draws the arrow, so only it gets the room.
int OperatorsView::header_width(int column) const {
  const QHeaderView* header = view_->header();
  const int margin = header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
  int width = header->fontMetrics().size(0, tree_->headerData(column, Qt::Horizontal).toString()).width() + 3 * margin;
  if (header->sortIndicatorSection() == column) {
    width += header->style()->pixelMetric(QStyle::PM_HeaderMarkSize, nullptr, header) + margin;
  }
  return width;
}

bool OperatorsView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == view_->viewport() && event->type() == QEvent::Resize) fit_columns();
  return BenchResultsView::eventFilter(watched, event);
}

void OperatorsView::show_column_menu(const QPoint& at) {
  QMenu menu(this);
  for (int c = 0; c < OperatorTreeModel::ColumnCount; ++c) {
    QAction* action = menu.addAction(tree_->headerData(c, Qt::Horizontal).toString().replace('\n', ' '));
    action->setCheckable(true);
    action->setChecked(!view_->isColumnHidden(c));
    connect(action, &QAction::toggled, this, [this, c](bool shown) {
      view_->setColumnHidden(c, !shown);
      fit_columns();
    });
  }
  menu.exec(view_->header()->viewport()->mapToGlobal(at));
}

std::vector<NamedTable> OperatorsView::tables() const {
  return {{"operators", table_}, {"operator_kernels", kernel_table_}};
}

}  // namespace stepscope::views
