// The Planner's inputs: a model (a preset, the seeds' xxl-ffn, or a custom shape), the
// precision of each kind of memory, the layout, the batch, a device's memory and the Scaling
// Book's hardware numbers. Checked as typed: a refusal frames the field its ConfigError names.
#pragma once

#include <QWidget>

#include <map>
#include <optional>
#include <string>

#include "planner/plan_request.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace stepscope::views {

class PlannerForm : public QWidget {
  Q_OBJECT

 public:
  explicit PlannerForm(QWidget* parent = nullptr);

  // The request in the fields, or nothing with `error` and the key of the field at fault.
  std::optional<planner::PlanRequest> request(QString* error = nullptr, std::string* field = nullptr) const;
  // Fills every field from `request` (a finished run's model and layout, say).
  void set_request(const planner::PlanRequest& request);
  // A measured all-reduce line for the DDP bucket model; nothing removes it.
  void set_all_reduce(std::optional<AllReduceFit> fit);

  // The field a key names ("d_model", "fsdp", "device_memory", ...); null for none.
  QWidget* field(const std::string& key) const;
  QComboBox* model_field() const { return model_; }
  QCheckBox* zero1_field() const { return zero1_; }
  QString error_text() const;

 signals:
  // Any input changed; request() says what it is now.
  void changed();

 private:
  void on_model_chosen();
  void refresh();
  QLineEdit* add_line(const std::string& key, const QString& text, const QString& tip);
  QComboBox* precision_box(Precision value, const QString& tip);

  QComboBox *model_, *blocks_;
  QCheckBox* zero1_;
  QComboBox *master_, *gradients_, *optimizer_, *activations_, *communication_;
  std::map<std::string, QLineEdit*> lines_;
  QLabel* error_;
  std::optional<AllReduceFit> all_reduce_;
};

}  // namespace stepscope::views
