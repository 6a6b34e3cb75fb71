#include "charts/chart_colors.h"
#include "profiling/step_ranges.h"

#include <array>

namespace stepscope::views {

namespace {
// Okabe & Ito (2008), "Color Universal Design": distinguishable under the common forms of
// colour-vision deficiency. Black is left out: it reads as text and axis lines.
constexpr std::array<QRgb, 7> kOkabeIto = {0x0072B2, 0xE69F00, 0x009E73, 0xD55E00, 0x56B4E9, 0xCC79A7, 0xF0E442};
constexpr QRgb kGrey = 0x999999;
}  // namespace

QColor memory_category_color(profiling::MemoryCategory category) {
  using C = profiling::MemoryCategory;
  switch (category) {
    case C::parameter: return QColor(0x0072B2);        // blue
    case C::gradient: return QColor(0xE69F00);         // orange
    case C::optimizer_state: return QColor(0x009E73);  // bluish green
    case C::activation: return QColor(0xD55E00);       // vermillion
    case C::temporary: return QColor(0xF0E442);        // yellow
    case C::input: return QColor(0xCC79A7);            // reddish purple
    case C::other: return QColor(kGrey);
  }
  return QColor(kGrey);
}

QColor kernel_category_color(profiling::KernelCategory category) {
  using K = profiling::KernelCategory;
  // Tol's muted scheme; matrix multiply takes the darkest because it usually dominates.
  switch (category) {
    case K::matrix_multiply: return QColor(0x332288);  // indigo
    case K::attention: return QColor(0xCC6677);        // rose
    case K::softmax: return QColor(0xDDCC77);          // sand
    case K::normalisation: return QColor(0x117733);    // green
    case K::elementwise: return QColor(0x88CCEE);      // cyan
    case K::reduction: return QColor(0x882255);        // wine
    case K::optimizer: return QColor(0x44AA99);        // teal
    case K::memory: return QColor(0x999933);           // olive
    case K::communication: return QColor(0xAA4499);    // purple
    case K::other: return QColor(0xDDDDDD);            // pale grey
  }
  return QColor(0xDDDDDD);
}

QColor phase_color(const QString& phase) {
  if (phase == QLatin1String(profiling::step_ranges::kForward)) return QColor(kOkabeIto[0]);
  if (phase == QLatin1String(profiling::step_ranges::kBackward)) return QColor(kOkabeIto[1]);
  if (phase == QLatin1String(profiling::step_ranges::kOptimizerStep)) return QColor(kOkabeIto[2]);
  return QColor(kGrey);
}

QColor implementation_color(const QString& implementation) {
  // Apart from the phase colours (the first three), which the benchmark charts use beside these.
  if (implementation == QLatin1String("naive")) return QColor(kOkabeIto[3]);  // vermillion
  if (implementation == QLatin1String("sdpa")) return QColor(kOkabeIto[4]);   // sky blue
  if (implementation == QLatin1String("flash")) return QColor(kOkabeIto[5]);  // reddish purple
  return QColor(kGrey);
}

QColor failure_color() { return QColor(0xA0182A); }

QColor series_color(int index) {
  const int n = static_cast<int>(kOkabeIto.size()) + 1;
  const int i = ((index % n) + n) % n;
  return i < static_cast<int>(kOkabeIto.size()) ? QColor(kOkabeIto[static_cast<size_t>(i)]) : QColor(Qt::black);
}

}  // namespace stepscope::views
