// What the models' tests share: header comparisons with the CLI's CSV files, and a model
// tester that reports through QtTest.
#pragma once

#include <sstream>
#include <string>

#include <QAbstractItemModel>
#include <QAbstractItemModelTester>
#include <QStringList>

#include "models/roles.h"
#include "runners/bench_types.h"

namespace fixtures {

// The header row a CLI CSV writer writes: write(out) writes the file to `out`.
template <class Write>
QStringList cli_header(Write write) {
  std::ostringstream out;
  write(out);
  const std::string text = out.str();
  return QString::fromStdString(text.substr(0, text.find('\n'))).split(QLatin1Char(','));
}

// The column names exports write (ExactValueRole on the header; the shown label otherwise).
inline QStringList model_header(const QAbstractItemModel& model) {
  QStringList names;
  for (int c = 0; c < model.columnCount(); ++c) {
    const QVariant name = model.headerData(c, Qt::Horizontal, stepscope::views::ExactValueRole);
    names << (name.isValid() ? name : model.headerData(c, Qt::Horizontal)).toString();
  }
  return names;
}

// The header names of `model` the CLI's header does not have ("" when it has them all).
inline QString missing_from_cli(const QAbstractItemModel& model, const QStringList& cli) {
  QStringList missing;
  for (const QString& name : model_header(model)) {
    if (!cli.contains(name)) missing << name;
  }
  return missing.join(QLatin1Char('|'));
}

inline QString text(const QAbstractItemModel& model, int row, int column) {
  return model.data(model.index(row, column), Qt::DisplayRole).toString();
}

inline QVariant exact(const QAbstractItemModel& model, int row, int column) {
  return model.data(model.index(row, column), stepscope::views::ExactValueRole);
}

// Checks the model's contract on every change it announces, failing the running test.
inline QAbstractItemModelTester* tester(QAbstractItemModel* model) {
  return new QAbstractItemModelTester(model, QAbstractItemModelTester::FailureReportingMode::QtTest, model);
}

// Phase statistics with a mean, a spread and a count; the rest left at zero.
inline stepscope::PhaseStats phase_stats(double mean, double std, int count = 10) {
  stepscope::PhaseStats s;
  s.mean_ms = mean;
  s.std_ms = std;
  s.count = count;
  return s;
}

}  // namespace fixtures
