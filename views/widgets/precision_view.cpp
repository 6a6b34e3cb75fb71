#include "widgets/precision_view.h"

#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include "experiments/precision/precision_schema.h"
#include "model/model_config.h"
#include "models/schema_table_model.h"
#include "widgets/result_table.h"

namespace stepscope::views {

namespace {

QLabel* reading_label() {
  auto* label = new QLabel;
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setObjectName("reading");
  return label;
}

}  // namespace

PrecisionView::PrecisionView(QWidget* parent) : ResultView(parent) {
  accumulation_ = new SchemaTableModel(precision::accumulation_schema().columns(), this);
  autocast_ = new SchemaTableModel(precision::autocast_schema().columns(), this);
  accumulation_reading_ = reading_label();
  autocast_reading_ = reading_label();

  accumulate_button_ = new QPushButton(tr("Run"));
  accumulate_button_->setObjectName("accumulateButton");
  auto* accumulation_box = new QGroupBox(tr("Accumulating 0.01 a thousand times"));
  auto* accumulation_controls = new QHBoxLayout;
  accumulation_controls->addWidget(new QLabel(tr("float32, float16 and bfloat16 sums; naive, Kahan and pairwise")), 1);
  accumulation_controls->addWidget(accumulate_button_);
  auto* accumulation_layout = new QVBoxLayout(accumulation_box);
  accumulation_layout->addLayout(accumulation_controls);
  accumulation_layout->addWidget(new ResultTable(accumulation_, "precision_accumulation"), 1);
  accumulation_layout->addWidget(accumulation_reading_);

  model_ = new QComboBox;
  model_->addItem(tr("toy (the handout's ToyModel)"), QStringLiteral("toy"));
  for (const auto& name : model_preset_names()) model_->addItem(QString::fromStdString(name), QString::fromStdString(name));
  precision_ = new QComboBox;
  precision_->addItem(QStringLiteral("bf16"), QStringLiteral("bf16"));
  precision_->addItem(QStringLiteral("fp16"), QStringLiteral("fp16"));
  device_ = new QComboBox;
  autocast_button_ = new QPushButton(tr("Run"));
  autocast_button_->setObjectName("autocastButton");
  auto* autocast_box = new QGroupBox(tr("What autocast does to each tensor"));
  auto* autocast_controls = new QHBoxLayout;
  autocast_controls->addWidget(new QLabel(tr("Model")));
  autocast_controls->addWidget(model_);
  autocast_controls->addWidget(new QLabel(tr("Precision")));
  autocast_controls->addWidget(precision_);
  autocast_controls->addWidget(new QLabel(tr("Device")));
  autocast_controls->addWidget(device_);
  autocast_controls->addStretch(1);
  autocast_controls->addWidget(autocast_button_);
  auto* autocast_layout = new QVBoxLayout(autocast_box);
  autocast_layout->addLayout(autocast_controls);
  autocast_layout->addWidget(new ResultTable(autocast_, "precision_autocast"), 1);
  autocast_layout->addWidget(autocast_reading_);

  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(accumulation_box);
  splitter->addWidget(autocast_box);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(splitter, 1);
  set_devices({{"cpu", "CPU", -1}});

  connect(accumulate_button_, &QPushButton::clicked, this, [this] { emit accumulation_requested(); });
  connect(autocast_button_, &QPushButton::clicked, this, [this] {
    emit autocast_requested(model_->currentData().toString(), precision_->currentData().toString(),
                            device_->currentData().toString());
  });
}

void PrecisionView::set_devices(const std::vector<DeviceChoice>& devices) {
  device_->clear();
  for (const auto& d : devices) {
    device_->addItem(QString::fromStdString(d.id + " - " + d.name), QString::fromStdString(d.id));
  }
}

void PrecisionView::set_running(bool running) {
  accumulate_button_->setEnabled(!running);
  autocast_button_->setEnabled(!running);
}

void PrecisionView::clear() {
  accumulation_->clear();
  autocast_->clear();
  accumulation_reading_->clear();
  autocast_reading_->clear();
}

void PrecisionView::show_tables(const std::vector<schema::Table>& tables) {
  for (const auto& table : tables) {
    if (table.schema == precision::accumulation_schema().id) {
      accumulation_->set_table(table);
      accumulation_reading_->setText(QString::fromStdString(precision::accumulation_reading(table)));
    } else if (table.schema == precision::autocast_schema().id) {
      autocast_->set_table(table);
      autocast_reading_->setText(QString::fromStdString(precision::autocast_reading(table)));
    }
  }
}

std::vector<NamedTable> PrecisionView::tables() const {
  return {{"precision_accumulation", accumulation_}, {"precision_autocast", autocast_}};
}

QString PrecisionView::accumulation_reading() const { return accumulation_reading_->text(); }
QString PrecisionView::autocast_reading() const { return autocast_reading_->text(); }

}  // namespace stepscope::views
