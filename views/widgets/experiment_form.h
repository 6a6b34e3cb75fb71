// An experiment's inputs as a user meets them: the form built from its descriptor's schema,
// checked as typed and together by the descriptor's check (the field at fault framed), a
// custom widget where the experiment asks for one (the step benchmark's memory estimate), and
// Run/Cancel with the status line in a footer that stays in view while the fields scroll. The tabs and the run panel all use it, so they agree on
// what a bad input, a run and a refusal look like.
#pragma once

#include <QMetaType>
#include <QString>
#include <QWidget>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "experiments/experiment_descriptor.h"
#include "widgets/input_form.h"

class QLabel;
class QPushButton;
class QVBoxLayout;

namespace stepscope::views {

struct DeviceChoice {
  std::string id;             // "cpu", "cuda:0", ...
  std::string name;           // "NVIDIA H200", "CPU (16 threads)"
  int64_t memory_bytes = -1;  // total device memory; -1 unknown (the CPU)
};

class ExperimentForm : public QWidget {
  Q_OBJECT

 public:
  struct Options {
    std::vector<std::string> left_out;  // inputs with no field here (InputForm)
    FormColumns columns;
    bool run_button = true;  // false: the experiment reacts to the form (the planner)
  };

  // `descriptor` outlives the form.
  explicit ExperimentForm(const ExperimentDescriptor& descriptor, Options options, QWidget* parent = nullptr);

  const ExperimentDescriptor& descriptor() const { return descriptor_; }
  InputForm* form() const { return form_; }
  // A check beside the descriptor's, of what only this driver knows (a job of local ranks).
  void set_extra_check(std::function<void(const schema::InputValues&)> check);
  // A widget of the experiment's own under the fields (owned from then on).
  void add_widget(QWidget* widget);

  // The form's values checked together; frames the field at fault and shows why. Nothing
  // when they cannot run.
  std::optional<schema::InputValues> checked_values();
  // Presses Run as a user would: false (the status saying why) when the inputs cannot run.
  bool request_run();
  void set_devices(const std::vector<DeviceChoice>& devices);
  // A run reopened from the history: its inputs, to look at or run again.
  void set_values(const schema::InputValues& values);
  // While it runs the form is disabled and Run reads Cancel.
  void set_running(bool running);
  bool is_running() const { return running_; }
  // The keys the window binds to Run and Cancel, as the button's tooltip names them.
  void set_shortcut_hints(const QString& run, const QString& cancel);
  void show_status(const QString& text);
  QString status_text() const;
  QString error_text() const { return form_->error_text(); }

 signals:
  void run_requested(const stepscope::schema::InputValues& values);
  void cancel_requested();
  // Run was pressed (or request_run called) for inputs that cannot run: why, as the status says.
  void run_refused(const QString& why);
  // A field changed, after the checks: checked_values() says whether it can run.
  void changed();

 private:
  const ExperimentDescriptor& descriptor_;
  std::function<void(const schema::InputValues&)> extra_check_;
  InputForm* form_;
  QVBoxLayout* below_;
  QPushButton* run_ = nullptr;
  QLabel* status_;
  QString run_hint_, cancel_hint_;
  bool running_ = false;
};

// "d_model" names the input "d-model": engine checks name fields as the structs do. Empty
// when `inputs` has no such input.
std::string input_key(const schema::InputSchema& inputs, std::string field);

}  // namespace stepscope::views

Q_DECLARE_METATYPE(stepscope::schema::InputValues)
