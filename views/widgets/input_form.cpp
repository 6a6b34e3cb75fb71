#include "widgets/input_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>
#include <set>

#include "core/config_error.h"
#include "widgets/field_flow_layout.h"
#include "widgets/form_fields.h"
#include "widgets/input_widgets.h"

namespace stepscope::views {

namespace {

using schema::InputField;
using schema::InputKind;

// A choice list's check boxes wrap after this many.
constexpr int kBoxesPerRow = 4;

}  // namespace

InputForm::InputForm(const schema::InputSchema& schema, QWidget* parent, const std::vector<std::string>& left_out,
                     FormColumns columns)
    : QWidget(parent), schema_(&schema) {
  const int column_width = QLineEdit().sizeHint().width();
  for (const InputField& input : schema.fields) {
    const bool left = std::find(left_out.begin(), left_out.end(), input.key) != left_out.end();
    if (!input.hidden && !left) add_field(input, column_width);
  }
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  std::vector<std::string> groups;
  for (const Field& f : fields_) {
    if (std::find(groups.begin(), groups.end(), f.input->group) == groups.end()) groups.push_back(f.input->group);
  }
  for (const std::string& group : groups) {
    auto* box = new QGroupBox(group_title(group));
    box->setObjectName(QString::fromStdString("group:" + group));
    auto* flow = new FieldFlowLayout(column_width, columns.min, columns.preferred, box);
    for (const Field& f : fields_) {
      if (f.input->group == group) flow->addWidget(f.cell);
    }
    layout->addWidget(box);
  }
  error_line_ = make_error_line();
  error_line_->setObjectName(QStringLiteral("inputFormError"));
  layout->addWidget(error_line_);
  layout->addStretch(1);
  for (size_t i = 0; i < fields_.size(); ++i) {
    connect_field(i);
    check(fields_[i]);
  }
  show_errors();
}

void InputForm::add_field(const InputField& input, int column_width) {
  Field f;
  f.input = &input;
  const QString key = QString::fromStdString(input.key);
  const QString tip = tip_of(input);
  f.cell = new QWidget;
  auto* cell = new QVBoxLayout(f.cell);
  cell->setContentsMargins(0, 0, 0, 0);
  cell->setSpacing(3);
  QLabel* label = nullptr;
  if (input.kind == InputKind::flag) {
    // The box says its label; the space above keeps it in line with the other fields.
    cell->addSpacing(QLabel(QStringLiteral("X")).sizeHint().height() + cell->spacing());
    f.flag = new QCheckBox(label_of(input));
    f.flag->setChecked(input.default_text == "1");
    f.flag->setMinimumHeight(QLineEdit().sizeHint().height());
    f.editor = f.flag;
  } else {
    label = new QLabel(label_of(input));
    label->setToolTip(tip);
    cell->addWidget(label);
  }
  const bool choice_list = input.kind == InputKind::choice && input.list && !input.choices.empty();
  const bool choice_box = input.kind == InputKind::choice && !input.list && !input.choices.empty();
  if (choice_list) {
    auto* row = new QWidget;
    auto* grid = new QGridLayout(row);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(10);
    const auto ticked = default_items(input);
    for (const std::string& choice : input.choices) {
      auto* box = new QCheckBox(QString::fromStdString(choice));
      box->setObjectName(QString::fromStdString(input.key + ":" + choice));
      box->setChecked(ticked.count(choice) > 0);
      box->setMinimumHeight(QLineEdit().sizeHint().height());
      // The red frame goes round the row, not round each box in it.
      box->setStyleSheet(QStringLiteral("QCheckBox { border: none; }"));
      const int at = static_cast<int>(f.boxes.size());
      grid->addWidget(box, at / kBoxesPerRow, at % kBoxesPerRow);
      f.boxes.push_back(box);
    }
    grid->setColumnStretch(std::min<int>(kBoxesPerRow, static_cast<int>(f.boxes.size())), 1);
    f.editor = row;
  } else if (choice_box) {
    f.combo = new QComboBox;
    fill_choices(f.combo, input, [](const QString&) { return true; });
    f.combo->setCurrentIndex(std::max(0, f.combo->findData(QString::fromStdString(input.default_text))));
    f.editor = f.combo;
  } else if (is_device(input)) {
    f.combo = new QComboBox;
    f.combo->setEditable(true);
    f.combo->setInsertPolicy(QComboBox::NoInsert);
    f.combo->addItem(QStringLiteral("cpu"), QStringLiteral("cpu"));
    f.combo->setEditText(QString::fromStdString(input.default_text));
    f.combo->lineEdit()->setPlaceholderText(QString::fromStdString(input.default_text));
    f.combo->lineEdit()->setStyleSheet(QStringLiteral("QLineEdit { border: none; }"));  // framed once, outside
    f.editor = f.combo;
  } else if (input.kind != InputKind::flag) {
    f.line = new QLineEdit;
    const QString placeholder = QString::fromStdString(input.default_note.empty() ? input.default_text : input.default_note);
    f.line->setPlaceholderText(placeholder);
    if (!placeholder.isEmpty()) {
      // Wide enough to read the default; a long one makes the field span columns.
      const int wanted = f.line->fontMetrics().horizontalAdvance(placeholder) + 24;
      f.line->setMinimumWidth(std::min(wanted, 3 * column_width));
    }
    f.editor = f.line;
  }
  f.editor->setObjectName(key);
  set_help(f.editor, tip);
  if (label) label->setBuddy(f.editor);
  cell->addWidget(f.editor);
  cell->addStretch(1);
  fields_.push_back(std::move(f));
}

void InputForm::connect_field(size_t index) {
  const Field& f = fields_[index];
  const auto on_edit = [this, index] { edited(index); };
  if (f.line) connect(f.line, &QLineEdit::textChanged, this, on_edit);
  // Return in a text field asks to run, as in a dialog whose default button is Run.
  if (f.line) connect(f.line, &QLineEdit::returnPressed, this, &InputForm::submitted);
  if (f.combo && f.combo->isEditable()) connect(f.combo->lineEdit(), &QLineEdit::returnPressed, this, &InputForm::submitted);
  if (f.flag) connect(f.flag, &QCheckBox::toggled, this, on_edit);
  for (QCheckBox* box : f.boxes) connect(box, &QCheckBox::toggled, this, on_edit);
  if (f.combo && f.combo->isEditable()) connect(f.combo, &QComboBox::editTextChanged, this, on_edit);
  if (f.combo && !f.combo->isEditable()) connect(f.combo, &QComboBox::currentIndexChanged, this, on_edit);
}

void InputForm::read(const Field& f, schema::InputValues& values) const {
  const InputField& input = *f.input;
  try {
    if (f.flag) {
      // A flag on by default cannot be given off: the schema's flags are switches.
      if (f.flag->isChecked() && input.default_text != "1") values.set_flag(input.key, true);
    } else if (!f.boxes.empty()) {
      std::string joined;
      std::set<std::string> ticked;
      for (size_t i = 0; i < f.boxes.size(); ++i) {
        if (!f.boxes[i]->isChecked()) continue;
        joined += (joined.empty() ? "" : ",") + input.choices[i];
        ticked.insert(input.choices[i]);
      }
      if (ticked.empty() && !default_items(input).empty()) throw ConfigError("choose at least one", input.key);
      // Where this machine leaves choices out of the default, the default's boxes ticked by
      // hand (or by a run that asked for them) are a value given.
      const bool at_default = ticked == defaults_here(f) && (f.unavailable.empty() || f.shows_default);
      if (!at_default) values.set(input.key, joined);
    } else if (f.combo && !f.combo->isEditable()) {
      const std::string text = f.combo->currentData().toString().toStdString();
      if (!text.empty() && text != input.default_text) values.set(input.key, text);
    } else {
      const QString typed = (f.line ? f.line->text() : device_id(*f.combo, f.combo->currentText())).trimmed();
      const std::string text = typed.toStdString();
      if (text.empty() && !input.required) return;
      if (f.combo && text == input.default_text) return;  // the device at its default
      values.set(input.key, input.list && !text.empty() ? once_each(input.key, text) : text);  // empty: "needs a value"
    }
  } catch (const ConfigError& e) {
    if (e.field() == input.key) throw;
    throw ConfigError(e.what(), input.key);
  } catch (const std::exception& e) {
    throw ConfigError(e.what(), input.key);  // a check's own exception: still this field's fault
  }
}

void InputForm::check(Field& f) {
  schema::InputValues scratch(*schema_);
  try {
    read(f, scratch);
    f.error.clear();
  } catch (const std::exception& e) {
    f.error = QString::fromStdString(e.what());
  }
}

void InputForm::edited(size_t index) {
  fields_[index].shows_default = false;
  check(fields_[index]);
  show_errors();
  emit changed();
}

void InputForm::show_errors() {
  QString line;
  for (const Field& f : fields_) {
    QString error = f.error;
    if (error.isEmpty() && !error_message_.isEmpty() && f.input->key == error_key_) error = error_message_;
    frame(f.editor, error);
    if (line.isEmpty() && !f.error.isEmpty()) line = QString::fromStdString(f.input->label) + QStringLiteral(": ") + f.error;
  }
  if (line.isEmpty()) line = error_message_;
  error_line_->setText(line);
  error_line_->setVisible(!line.isEmpty());
}

schema::InputValues InputForm::values() const {
  schema::InputValues values(*schema_);
  for (const Field& f : fields_) read(f, values);
  return values;
}

void InputForm::show(Field& f, const schema::InputValues& values) {
  const InputField& input = *f.input;
  const bool known = values.schema().find(input.key) != nullptr;
  const bool given = known && values.given(input.key);
  const std::string text = known ? values.text(input.key) : input.default_text;
  f.shows_default = !given;
  if (f.flag) {
    const QSignalBlocker block(f.flag);
    f.flag->setChecked(known ? values.flag(input.key) : input.default_text == "1");
  } else if (!f.boxes.empty()) {
    std::set<std::string> items;
    if (!given) {
      items = defaults_here(f);  // the default, less what this machine cannot run
    } else if (!text.empty()) {
      for (const auto& item : schema::split_input_list(input.key, text)) items.insert(item);
    }
    for (size_t i = 0; i < f.boxes.size(); ++i) {
      const QSignalBlocker block(f.boxes[i]);
      f.boxes[i]->setChecked(items.count(input.choices[i]) > 0);
    }
  } else if (f.combo && !f.combo->isEditable()) {
    const QSignalBlocker block(f.combo);
    int at = f.combo->findData(QString::fromStdString(text));
    if (at < 0 && !text.empty()) {  // a value its own check takes beside the listed choices
      f.combo->addItem(QString::fromStdString(text), QString::fromStdString(text));
      at = f.combo->count() - 1;
    }
    f.combo->setCurrentIndex(std::max(0, at));
  } else if (f.combo) {
    const QSignalBlocker block(f.combo);
    f.combo->setEditText(device_text(*f.combo, QString::fromStdString(text)));
  } else {
    const QSignalBlocker block(f.line);
    f.line->setText(given ? QString::fromStdString(text) : QString());
  }
}

void InputForm::set_values(const schema::InputValues& values) {
  for (Field& f : fields_) {
    try {
      show(f, values);
    } catch (const std::exception&) {
      // A stored value its list cannot split: the field's own check names it below.
    }
    check(f);
  }
  show_errors();
  emit changed();
}

void InputForm::show_error(const std::string& key, const QString& message) {
  error_key_ = message.isEmpty() ? std::string() : key;
  error_message_ = message;
  show_errors();
}

void InputForm::set_device_choices(const QStringList& devices, const QStringList& names) {
  for (Field& f : fields_) {
    if (!f.combo) continue;
    if (!f.combo->isEditable()) {
      if (f.input->key == "device") offer_machine_choices(f, devices);
      continue;
    }
    {
      const QSignalBlocker block(f.combo);
      const QString id = device_id(*f.combo, f.combo->currentText());
      f.combo->clear();
      for (int i = 0; i < devices.size(); ++i) {
        const QString name = i < names.size() ? names[i] : QString();
        f.combo->addItem(name.isEmpty() ? devices[i] : devices[i] + QStringLiteral(" - ") + name, devices[i]);
      }
      f.combo->setEditText(device_text(*f.combo, id));
    }
    check(f);
  }
  show_errors();
}

void InputForm::set_unavailable_choice(const std::string& key, const std::string& choice, const QString& why) {
  for (Field& f : fields_) {
    if (f.input->key != key) continue;
    const auto& choices = f.input->choices;
    const auto at = std::find(choices.begin(), choices.end(), choice) - choices.begin();
    if (at == static_cast<std::ptrdiff_t>(choices.size())) return;
    f.unavailable.insert(choice);
    if (!f.boxes.empty()) {
      QCheckBox* box = f.boxes[static_cast<size_t>(at)];
      box->setToolTip(why);
      if (f.shows_default) {  // the default no longer ticks it; a value given stays as it is
        const QSignalBlocker block(box);
        box->setChecked(false);
      }
    } else if (f.combo && !f.combo->isEditable()) {
      const int item = f.combo->findData(QString::fromStdString(choice));
      if (item >= 0) f.combo->setItemData(item, why, Qt::ToolTipRole);
    }
    check(f);
    show_errors();
    return;
  }
}

std::set<std::string> InputForm::defaults_here(const Field& f) const {
  std::set<std::string> items = default_items(*f.input);
  for (const std::string& choice : f.unavailable) items.erase(choice);
  return items;
}

void InputForm::offer_machine_choices(Field& f, const QStringList& devices) {
  const InputField& input = *f.input;
  const auto on_machine = [&](const QString& choice) {
    if (choice == QLatin1String("cpu")) return true;
    for (const QString& device : devices) {
      if (device == choice || device.startsWith(choice + QLatin1Char(':'))) return true;
    }
    return false;
  };
  {
    const QSignalBlocker block(f.combo);
    const QString shown = f.combo->currentData().toString();
    f.combo->clear();
    fill_choices(f.combo, input, [&](const QString& choice) { return on_machine(choice) || choice == shown; });
    if (f.combo->findData(shown) < 0 && !shown.isEmpty()) f.combo->addItem(shown, shown);  // a value set beside them
    const int at = f.combo->findData(shown);
    f.combo->setCurrentIndex(std::max(0, at >= 0 ? at : f.combo->findData(QString::fromStdString(input.default_text))));
  }
  check(f);
}

void InputForm::set_placeholder(const std::string& key, const QString& text) {
  for (Field& f : fields_) {
    if (f.input->key != key || f.line == nullptr) continue;
    const schema::InputField& input = *f.input;
    f.line->setPlaceholderText(!text.isEmpty() ? text
                                               : QString::fromStdString(input.default_note.empty() ? input.default_text
                                                                                                    : input.default_note));
  }
}

void InputForm::set_running(bool running) {
  for (Field& f : fields_) f.cell->setEnabled(!running);
}

QWidget* InputForm::field(const std::string& key) const {
  for (const Field& f : fields_) {
    if (f.input->key == key) return f.editor;
  }
  return nullptr;
}

QString InputForm::error_text() const { return error_line_->text(); }

}  // namespace stepscope::views
