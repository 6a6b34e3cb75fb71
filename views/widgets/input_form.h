// A form built from an experiment's InputSchema: one field per visible input (hidden ones are
// skipped), a box per group in the schema's order, the fields flowed over as many columns as
// the width holds. Each field is checked as it is typed by the schema's own rules: a bad one
// is framed in red with the reason as its tooltip, and the error line names it. The form owns
// the Qt plumbing; an experiment only declares its inputs.
//
// Kinds to widgets: flag: a check box; choice: a combo box at the default, or, for a list,
// one check box per choice (the default's items ticked); integer, number, size, text, path:
// a line edit whose placeholder is the default (an empty one means "not given"; a list's item
// typed twice is taken once); the "device" text input: an editable combo box of the machine's
// devices; a "device" choice (cpu or cuda, a job of ranks'): those of its choices the machine has.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

#include <set>
#include <string>
#include <vector>

#include "schema/input_values.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace stepscope::views {

// How many columns a form's fields flow over: never fewer than `min` (many fields in one
// column would not fit a window's height), `preferred` where there is room. A form in a side
// panel takes fewer.
struct FormColumns {
  int min = 3;
  int preferred = 4;
};

class InputForm : public QWidget {
  Q_OBJECT

 public:
  // `schema` must outlive the form. The inputs of `left_out` get no field (as hidden ones):
  // what the experiment's driver here does not honour.
  explicit InputForm(const schema::InputSchema& schema, QWidget* parent = nullptr,
                     const std::vector<std::string>& left_out = {}, FormColumns columns = FormColumns());

  // The values the fields hold. An empty text field, a combo box or check boxes at the default
  // and an unticked flag are "not given" (the default applies). Throws ConfigError (field = the
  // input's key) for the first field, in the schema's order, that does not hold a value.
  schema::InputValues values() const;
  // Shows `values` (of the same schema): given ones in their fields, the rest empty or at their
  // default; hidden inputs are not shown. Emits changed() once.
  void set_values(const schema::InputValues& values);
  // An error a check of the inputs together found: frames the field of `key` in red with
  // `message` as its tooltip and shows the message on the error line, until the next call. An
  // empty message clears it; an empty key shows the message and frames no field. A field's own
  // error (as typed) goes first.
  void show_error(const std::string& key, const QString& message);
  // The devices this machine has ("cpu", "cuda:0", ...), offered by the "device" input. A text
  // input lists them (with `names`, one a device, it reads "cuda:0 - NVIDIA H100" and the value
  // is still the id), and what is typed stays; a choice input keeps those of its choices the
  // machine has ("cuda" where a cuda:N is listed; "cpu" always) and the one it shows.
  void set_device_choices(const QStringList& devices, const QStringList& names = {});
  // A choice of `key` this build or machine cannot run (sdpa where LibTorch has none), and
  // why: a choice list's default no longer ticks it (the experiment's own default must leave
  // it out too, as the attention sweep's does sdpa), and its tooltip says why. It can still be
  // ticked; the experiment's check then says what is wrong.
  void set_unavailable_choice(const std::string& key, const std::string& choice, const QString& why);
  // What a text field shows while empty, in place of its default (a preset's shape: what the
  // field changes when typed); an empty text brings the default back.
  void set_placeholder(const std::string& key, const QString& text);
  // Every field disabled while an experiment runs.
  void set_running(bool running);

  // The field of `key` (its objectName is the key); null for a hidden or unknown key. A choice
  // list's field holds its check boxes.
  QWidget* field(const std::string& key) const;
  // What the error line says ("" when nothing is wrong).
  QString error_text() const;

 signals:
  // A field was edited (after its own check), or set_values filled the form.
  void changed();
  // Return was pressed in a text field.
  void submitted();

 private:
  struct Field {
    const schema::InputField* input = nullptr;
    QWidget* cell = nullptr;    // label and editor
    QWidget* editor = nullptr;  // what field() returns
    QLineEdit* line = nullptr;
    QComboBox* combo = nullptr;
    QCheckBox* flag = nullptr;
    std::vector<QCheckBox*> boxes;  // a choice list's, in the order of its choices
    std::set<std::string> unavailable;  // choices this machine cannot run
    // Shows the default (untouched, or set_values gave it no value), not a value given: with
    // unavailable choices, the same boxes ticked may be either.
    bool shows_default = true;
    QString error;                  // its own check's, as typed
  };

  void add_field(const schema::InputField& input, int column_width);
  void connect_field(size_t index);
  // The field's value into `values` (nothing when not given); throws ConfigError(key).
  void read(const Field& field, schema::InputValues& values) const;
  void show(Field& field, const schema::InputValues& values);
  void check(Field& field);
  void edited(size_t index);
  // A choice "device": the choices `devices` has, and the one shown.
  void offer_machine_choices(Field& field, const QStringList& devices);
  void show_errors();
  // The default's items this machine can run: what "not given" ticks.
  std::set<std::string> defaults_here(const Field& field) const;

  const schema::InputSchema* schema_;
  std::vector<Field> fields_;
  QLabel* error_line_;
  std::string error_key_;
  QString error_message_;
};

}  // namespace stepscope::views
