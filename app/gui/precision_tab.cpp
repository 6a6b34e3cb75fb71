#include "gui/precision_tab.h"

#include "widgets/precision_view.h"

namespace stepscope::gui {

PrecisionTab::PrecisionTab(history::RunHistory& history, views::PrecisionView* view, QObject* parent)
    : QObject(parent), view_(view), lab_(history) {
  connect(view, &views::PrecisionView::accumulation_requested, this, [this] {
    start(tr("precision accumulate"),
          [](ProgressSink* sink, const CancelFlag* cancel, const LabRun::TablePublisher&) {
            return precision::run_accumulation(sink, cancel);
          });
  });
  connect(view, &views::PrecisionView::autocast_requested, this,
          [this](const QString& model, const QString& precision, const QString& device) {
            precision::AutocastRequest request;
            request.model = model.toStdString();
            request.device = device.toStdString();
            try {
              request.precision = parse_precision(precision.toStdString());
              precision::validate(request);
            } catch (const ConfigError& e) {
              emit status(tr("Cannot run: %1").arg(QString::fromStdString(e.what())));
              return;
            }
            start(QString::fromStdString(precision::describe(request)),
                  [request](ProgressSink* sink, const CancelFlag* cancel, const LabRun::TablePublisher&) {
                    return precision::run_autocast(request, sink, cancel);
                  });
          });
  connect(&lab_, &LabRun::finished, this, [this](const schema::Table& table, bool ok, const QString& message) {
    view_->set_running(false);
    view_->show_tables({table});
    emit status(ok ? tr("Done: %1").arg(QString::fromStdString(table.schema)) : tr("Failed: %1").arg(message));
  });
  connect(&lab_, &LabRun::history_changed, this, &PrecisionTab::history_changed);
  connect(&lab_, &LabRun::history_problem, this, &PrecisionTab::history_problem);
}

void PrecisionTab::start(const QString& label, LabRun::Experiment experiment) {
  if (lab_.is_running()) return;
  view_->set_running(true);
  emit status(tr("Running %1").arg(label));
  lab_.start(label, std::move(experiment));
}

}  // namespace stepscope::gui
