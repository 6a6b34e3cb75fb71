// How an input reads in a form, for InputForm: its label, tooltip and group title, the red
// frame of a field at fault, a choice's default items and combo-box entries, device ids shown
// with their names, a list's repeated items.
#pragma once

#include <QString>

#include <functional>
#include <set>
#include <string>

#include "schema/input_field.h"

class QComboBox;
class QWidget;

namespace stepscope::views {

// The help as one line: the schema wraps it for the usage.
QString tip_of(const schema::InputField& input);

// "Timeout (s)": the unit beside the label, unless the label already says it.
QString label_of(const schema::InputField& input);

// "Run", "Model": a group's box title.
QString group_title(const std::string& group);

// The "device" text input: an editable list of this machine's devices.
bool is_device(const schema::InputField& input);

// Frames `widget` in red with `error` as its tooltip, or gives it its help back.
void frame(QWidget* widget, const QString& error);

// The items of a field's default (a list's each).
std::set<std::string> default_items(const schema::InputField& input);

// The device combo box's items read "cuda:0 - NVIDIA H100" and hold the id: what is typed or
// chosen, as the id it stands for.
QString device_id(const QComboBox& combo, const QString& text);

// An id as the device combo box shows it: its item's text where the machine has it.
QString device_text(const QComboBox& combo, const QString& id);

// A choice's combo box: "default: ..." first where the default is "not given", then the
// choices `offered` keeps, each with its text as data.
void fill_choices(QComboBox* combo, const schema::InputField& input,
                  const std::function<bool(const QString&)>& offered);

// A list with an item typed twice runs it once: "1, 25,1" is 1,25.
std::string once_each(const std::string& key, const std::string& text);

}  // namespace stepscope::views
