#include "widgets/failure_banner.h"

namespace stepscope::views {

FailureBanner::FailureBanner(QWidget* parent) : QLabel(parent) {
  setObjectName("runFailure");
  setWordWrap(true);
  setTextInteractionFlags(Qt::TextSelectableByMouse);
  setStyleSheet(QStringLiteral("QLabel#runFailure { color: #7a1020; background: #fbe9eb; "
                               "border: 1px solid #a0182a; border-radius: 3px; padding: 6px; }"));
  hide();
}

void FailureBanner::show_failure(const QString& what, const QString& message) {
  setText(tr("%1 stopped: %2\nThe rows it measured before it stopped are kept below.").arg(what, message));
  show();
}

void FailureBanner::dismiss() {
  clear();
  hide();
}

QString FailureBanner::shown_text() const { return isHidden() ? QString() : text(); }

}  // namespace stepscope::views
