#include "widgets/experiment_form.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>

#include <algorithm>

#include "core/config_error.h"

namespace stepscope::views {

std::string input_key(const schema::InputSchema& inputs, std::string field) {
  if (inputs.find(field) != nullptr) return field;
  for (char& c : field) c = c == '_' ? '-' : c;
  return inputs.find(field) != nullptr ? field : std::string();
}

namespace {

constexpr int kLeastFormWidth = 280;

// The fields as wide as they would be on their own (QScrollArea's own hint stops at 36
// characters and squeezes a reading beside an empty form).
class FormScroll : public QScrollArea {
 public:
  QSize sizeHint() const override {
    if (widget() == nullptr) return QScrollArea::sizeHint();
    return widget()->sizeHint() + QSize(verticalScrollBar()->sizeHint().width(), 0);
  }
};

// The items of a choice list's default that this build or machine cannot run (sdpa where
// LibTorch has none): each asked alone, the rest at their defaults, of the descriptor's check;
// one it refuses naming that input is left out of the default the form ticks, with the reason.
void mark_unavailable_defaults(const ExperimentDescriptor& d, InputForm& form) {
  if (!d.check) return;
  for (const schema::InputField& input : d.inputs->fields) {
    if (input.hidden || input.kind != schema::InputKind::choice || !input.list || input.default_text.empty()) continue;
    for (const std::string& choice : schema::split_input_list(input.key, input.default_text)) {
      schema::InputValues alone(*d.inputs);
      try {
        alone.set(input.key, choice);
        d.check(alone);
      } catch (const ConfigError& e) {
        if (input_key(*d.inputs, e.field()) == input.key) {
          form.set_unavailable_choice(input.key, choice, QString::fromStdString(e.what()));
        }
      } catch (const std::exception&) {
        // Not about this choice: the form's check says what is wrong once it is ticked.
      }
    }
  }
}

}  // namespace

ExperimentForm::ExperimentForm(const ExperimentDescriptor& descriptor, Options options, QWidget* parent)
    : QWidget(parent), descriptor_(descriptor) {
  form_ = new InputForm(*descriptor.inputs, nullptr, options.left_out, options.columns);
  mark_unavailable_defaults(descriptor, *form_);
  status_ = new QLabel;
  status_->setObjectName("experimentStatus");
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* body = new QWidget;
  auto* body_layout = new QVBoxLayout(body);
  body_layout->setContentsMargins(0, 0, 0, 0);
  body_layout->addWidget(form_);
  below_ = new QVBoxLayout;
  body_layout->addLayout(below_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  if (options.run_button) {
    // Run/Cancel and the status stay in view under fields that scroll where the window is short.
    body_layout->addStretch(1);
    auto* scroll = new FormScroll;
    scroll->setObjectName("formScroll");
    scroll->setWidget(body);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Wide enough for a reading added under few fields (the precision lab's have none).
    scroll->setMinimumWidth(std::max(body->minimumSizeHint().width(), kLeastFormWidth) +
                            scroll->verticalScrollBar()->sizeHint().width());
    layout->addWidget(scroll, 1);
  } else {
    layout->addWidget(body);
  }
  auto* controls = new QHBoxLayout;
  if (options.run_button) {
    run_ = new QPushButton(tr("Run"));
    run_->setObjectName("run");
    run_->setDefault(true);
    controls->addWidget(run_);
    connect(run_, &QPushButton::clicked, this, [this] {
      if (running_) {
        emit cancel_requested();
      } else {
        request_run();
      }
    });
  }
  controls->addWidget(status_, 1);
  layout->addLayout(controls);
  connect(form_, &InputForm::submitted, this, [this] {
    if (run_ != nullptr && !running_) request_run();  // refused with the reason when the form cannot run
  });
  connect(form_, &InputForm::changed, this, [this] {
    const bool ok = checked_values().has_value();
    if (run_ != nullptr && !running_) run_->setEnabled(ok);
    emit changed();
  });
  if (run_ != nullptr) run_->setEnabled(checked_values().has_value());
}

void ExperimentForm::set_extra_check(std::function<void(const schema::InputValues&)> check) {
  extra_check_ = std::move(check);
  if (run_ != nullptr && !running_) run_->setEnabled(checked_values().has_value());
}

void ExperimentForm::add_widget(QWidget* widget) { below_->addWidget(widget); }

std::optional<schema::InputValues> ExperimentForm::checked_values() {
  try {
    schema::InputValues values = form_->values();
    try {
      if (descriptor_.check) descriptor_.check(values);
      if (extra_check_) extra_check_(values);
    } catch (const ConfigError& e) {
      form_->show_error(input_key(*descriptor_.inputs, e.field()), QString::fromStdString(e.what()));
      return std::nullopt;
    }
    form_->show_error("", {});
    return values;
  } catch (const ConfigError&) {
    return std::nullopt;  // the form frames the field it read
  }
}

bool ExperimentForm::request_run() {
  if (running_) return false;
  const auto values = checked_values();
  if (!values) {
    const QString why = tr("Cannot run: %1").arg(form_->error_text());
    show_status(why);
    emit run_refused(why);
    return false;
  }
  emit run_requested(*values);
  return true;
}

void ExperimentForm::set_devices(const std::vector<DeviceChoice>& devices) {
  QStringList ids, names;
  for (const auto& d : devices) {
    ids << QString::fromStdString(d.id);
    names << QString::fromStdString(d.name);
  }
  form_->set_device_choices(ids, names);
  if (run_ != nullptr && !running_) run_->setEnabled(checked_values().has_value());
  emit changed();
}

void ExperimentForm::set_values(const schema::InputValues& values) { form_->set_values(values); }

void ExperimentForm::set_running(bool running) {
  running_ = running;
  form_->set_running(running);
  if (run_ == nullptr) return;
  run_->setText(running ? tr("Cancel") : tr("Run"));
  run_->setToolTip(running ? cancel_hint_ : run_hint_);
  run_->setEnabled(running || checked_values().has_value());
}

void ExperimentForm::set_shortcut_hints(const QString& run, const QString& cancel) {
  run_hint_ = run;
  cancel_hint_ = cancel;
  if (run_ != nullptr) run_->setToolTip(running_ ? cancel_hint_ : run_hint_);
}

void ExperimentForm::show_status(const QString& text) { status_->setText(text); }

QString ExperimentForm::status_text() const { return status_->text(); }

}  // namespace stepscope::views
