// The Distributed tab's fields: DDP variants, bucket sizes (MiB) and world sizes (comma lists),
// backend, device, model preset (the engine's list), context, batch per rank, warm-up and
// measured steps, --check. Checked as they are typed: the field at fault gets a red frame and
// the reason; Run is offered only for a run every configuration of which is valid.
#pragma once

#include <QWidget>

#include <optional>
#include <string>
#include <vector>

#include "experiments/ddp/ddp_types.h"
#include "widgets/run_panel.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace stepscope::views {

struct DistributedRequest {
  DdpSweepSpec spec;
  std::vector<int64_t> world_sizes{2};  // one run of local workers per value (--nproc)
};

class DistributedForm : public QWidget {
  Q_OBJECT

 public:
  explicit DistributedForm(QWidget* parent = nullptr);

  void set_devices(const std::vector<DeviceChoice>& devices);
  // The run in the fields, or nothing with `error` naming the field (`field`: its key, as
  // validate(DdpConfig) names it: "bucket-mb", "nproc", "steps", ...).
  std::optional<DistributedRequest> request(QString* error = nullptr, std::string* field = nullptr) const;
  // While a run goes the fields are locked and Run becomes Cancel.
  void set_running(bool running);
  QString error_text() const;

  // For tests and scripted use: fill the fields as a person would.
  QCheckBox* variant_box(distributed::DdpVariant variant) const { return variants_[static_cast<size_t>(variant)]; }
  QLineEdit* bucket_field() const { return buckets_; }
  QLineEdit* world_sizes_field() const { return world_sizes_; }
  QComboBox* backend_field() const { return backend_; }
  QComboBox* model_field() const { return model_; }
  QComboBox* precision_field() const { return precision_; }
  QSpinBox* context_field() const { return context_; }
  QSpinBox* batch_field() const { return batch_; }
  QSpinBox* warmup_field() const { return warmup_; }
  QSpinBox* steps_field() const { return steps_; }
  QCheckBox* check_box() const { return check_; }
  QPushButton* run_button() const { return run_; }

 signals:
  void run_requested(const stepscope::views::DistributedRequest& request);
  void cancel_requested();

 private:
  void refresh();
  std::vector<QWidget*> fields_for(const std::string& key) const;
  std::vector<QWidget*> all_fields() const;

  std::vector<QCheckBox*> variants_;  // in distributed::all_ddp_variants() order
  QLineEdit *buckets_, *world_sizes_;
  QComboBox *backend_, *device_, *model_, *precision_;
  QSpinBox *context_, *batch_, *warmup_, *steps_;
  QCheckBox* check_;
  QPushButton* run_;
  QLabel* error_;
  bool running_ = false;
};

}  // namespace stepscope::views

Q_DECLARE_METATYPE(stepscope::views::DistributedRequest)
