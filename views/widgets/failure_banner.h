// How a run that stopped on an error is shown in its tab: a framed line above the results it
// left, kept until that tab's next run, so that a failure is seen beside what was measured and
// not only as a passing status-bar message.
#pragma once

#include <QLabel>

namespace stepscope::views {

class FailureBanner : public QLabel {
  Q_OBJECT

 public:
  explicit FailureBanner(QWidget* parent = nullptr);
  // "<what> stopped: <message>", and that the rows measured before are kept.
  void show_failure(const QString& what, const QString& message);
  void dismiss();
  // The text while shown; empty when hidden.
  QString shown_text() const;
};

}  // namespace stepscope::views
