#include "widgets/input_widgets.h"

#include <QComboBox>
#include <QWidget>

#include <algorithm>

#include "schema/input_ranges.h"
#include "schema/input_values.h"
#include "widgets/form_fields.h"
#include "widgets/input_form.h"

namespace stepscope::views {

using schema::InputField;
using schema::InputKind;

// The help as one line: the schema wraps it for the usage.
QString tip_of(const InputField& input) {
  QStringList lines;
  for (const QString& line : QString::fromStdString(input.help).split(QLatin1Char('\n'))) {
    if (!line.trimmed().isEmpty()) lines << line.trimmed();
  }
  if (input.list && (input.kind == InputKind::integer || input.kind == InputKind::size)) {
    lines << QString::fromUtf8(schema::kRangeHelp);
  }
  return lines.join(QLatin1Char(' '));
}

// "Timeout (s)": the unit beside the label, unless the label already says it.
QString label_of(const InputField& input) {
  QString label = QString::fromStdString(input.label);
  const QString unit = QString::fromStdString(input.unit);
  if (!unit.isEmpty() && !label.contains(QStringLiteral("(%1)").arg(unit))) label += QStringLiteral(" (%1)").arg(unit);
  return label;
}

QString group_title(const std::string& group) {
  QString title = QString::fromStdString(group);
  if (!title.isEmpty()) title[0] = title[0].toUpper();
  return title;
}

bool is_device(const InputField& input) { return input.key == "device" && input.kind == InputKind::text; }

// Frames `widget` in red with `error` as its tooltip, or gives it its help back.
void frame(QWidget* widget, const QString& error) {
  flag_fields({widget}, error.isEmpty() ? std::vector<QWidget*>() : std::vector<QWidget*>{widget}, error);
  if (!error.isEmpty()) widget->setToolTip(error);  // a new reason on a field still framed
}

std::set<std::string> default_items(const InputField& input) {
  if (input.default_text.empty()) return {};
  const auto items = schema::split_input_list(input.key, input.default_text);
  return {items.begin(), items.end()};
}

// The device combo box's items read "cuda:0 - NVIDIA H100" and hold the id: what is typed or
// chosen, as the id it stands for.
QString device_id(const QComboBox& combo, const QString& text) {
  const int at = combo.findText(text, Qt::MatchExactly);
  const QString id = at >= 0 ? combo.itemData(at).toString() : QString();
  return id.isEmpty() ? text : id;
}

// An id as the device combo box shows it: its item's text where the machine has it.
QString device_text(const QComboBox& combo, const QString& id) {
  const int at = combo.findData(id);
  return at >= 0 ? combo.itemText(at) : id;
}

// A choice's combo box: "default: ..." first where the default is "not given", then the
// choices `offered` keeps, each with its text as data.
void fill_choices(QComboBox* combo, const InputField& input, const std::function<bool(const QString&)>& offered) {
  if (input.default_text.empty()) {
    const QString note = QString::fromStdString(input.default_note);
    combo->addItem(note.isEmpty() ? InputForm::tr("default") : InputForm::tr("default: %1").arg(note), QString(""));
  }
  for (const std::string& choice : input.choices) {
    const QString text = QString::fromStdString(choice);
    if (offered(text)) combo->addItem(text, text);
  }
}

// A list with an item typed twice runs it once: "1, 25,1" is 1,25.
std::string once_each(const std::string& key, const std::string& text) {
  std::vector<std::string> items;
  for (const auto& item : schema::split_input_list(key, text)) {
    if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
  }
  return schema::join_items(items, [](const std::string& item) { return item; });
}

}  // namespace stepscope::views
