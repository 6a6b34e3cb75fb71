// The Attention tab's fields: implementations, batch, heads, head dims and sequence lengths
// (comma lists), precisions, causal, warm-up and measured passes, device. Checked as they are
// typed: the field at fault gets a red frame and the reason; Run is offered only for a sweep
// every configuration of which is valid.
#pragma once

#include <QWidget>

#include <optional>
#include <string>
#include <vector>

#include "experiments/attention/attention_sweep_spec.h"
#include "widgets/run_panel.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace stepscope::views {

class AttentionSweepForm : public QWidget {
  Q_OBJECT

 public:
  explicit AttentionSweepForm(QWidget* parent = nullptr);

  void set_devices(const std::vector<DeviceChoice>& devices);
  // The sweep in the fields, or nothing with `error` saying what is wrong (naming the field).
  std::optional<AttentionSweepSpec> spec(QString* error = nullptr, std::string* field = nullptr) const;
  // While a sweep runs the fields are locked and Run becomes Cancel.
  void set_running(bool running);
  QString error_text() const;

  // For tests and scripted use: fill the fields as a person would.
  QLineEdit* head_dims_field() const { return head_dims_; }
  QLineEdit* seqs_field() const { return seqs_; }
  QCheckBox* impl_box(AttentionImpl impl) const;
  QCheckBox* precision_box(Precision precision) const;
  QSpinBox* steps_field() const { return steps_; }
  QSpinBox* rounds_field() const { return rounds_; }
  QPushButton* run_button() const { return run_; }

 signals:
  void run_requested(const stepscope::AttentionSweepSpec& spec);
  void cancel_requested();

 private:
  void refresh();
  std::vector<QWidget*> fields_for(const std::string& key) const;
  std::vector<QWidget*> all_fields() const;

  std::vector<QCheckBox*> impls_, precisions_;
  QSpinBox *batch_, *heads_, *warmup_, *steps_, *rounds_;
  QLineEdit *head_dims_, *seqs_;
  QCheckBox* causal_;
  QComboBox* device_;
  QPushButton* run_;
  QLabel* error_;
  bool running_ = false;
};

}  // namespace stepscope::views

Q_DECLARE_METATYPE(stepscope::AttentionSweepSpec)
