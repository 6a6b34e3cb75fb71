// Units in result tables, one rule for every column kind: the header shows the label alone,
// every cell its value with its own unit (schema/column.h). Hand-written expected strings for
// sizes, times, rates and counts, tiny and huge.
#include <QTest>

#include "models/schema_table_model.h"
#include "schema/value_format.h"

using namespace stepscope;
using namespace stepscope::views;
using schema::ColumnKind;

namespace {

struct Case {
  ColumnKind kind;
  schema::Value value;
  const char* shown;  // UTF-8
};

// What a table of one column of `kind` shows in its header and its one cell.
std::pair<QString, QString> shown(ColumnKind kind, const schema::Value& value) {
  std::vector<schema::Column> columns;
  columns.push_back(schema::Column{"key", "Label", kind, schema::ColumnRole::measure});
  SchemaTableModel model(columns);
  model.append_row({value});
  return {model.headerData(0, Qt::Horizontal).toString(), model.data(model.index(0, 0)).toString()};
}

}  // namespace

class ColumnUnitsTest : public QObject {
  Q_OBJECT
 private slots:
  void everyKindShowsItsUnitInItsCells() {
    const std::vector<Case> cases = {
        {ColumnKind::text, std::string("naive"), "naive"},
        {ColumnKind::integer, int64_t{4}, "4"},
        {ColumnKind::integer, int64_t{100'000'000}, "100,000,000"},
        {ColumnKind::real, 45.62, "45.6"},
        {ColumnKind::real, 3.81e-6, "3.81e-6"},
        {ColumnKind::milliseconds, 12.346, "12.3 ms"},
        {ColumnKind::milliseconds, 9450.0, "9.45 s"},  // never "9450.00" under "(ms)"
        {ColumnKind::milliseconds, 0.0456, "45.6 \u00b5s"},
        {ColumnKind::nanoseconds, int64_t{789}, "789 ns"},
        {ColumnKind::nanoseconds, 45'600.0, "45.6 \u00b5s"},
        {ColumnKind::nanoseconds, 2.5e9, "2.50 s"},
        {ColumnKind::microseconds, 45.6, "45.6 \u00b5s"},
        {ColumnKind::microseconds, 12'345.0, "12.3 ms"},
        {ColumnKind::bytes, int64_t{4}, "4 B"},  // never "0.00000381 MiB"
        {ColumnKind::bytes, int64_t{100'000'000}, "95.4 MiB"},  // never "100000000"
        {ColumnKind::bytes, int64_t{80} << 30, "80.0 GiB"},  // never "81920 MiB"
        {ColumnKind::bytes, int64_t{1} << 50, "1.00 PiB"},
        {ColumnKind::mebibytes, 0.01, "10.2 KiB"},
        {ColumnKind::mebibytes, 25.0, "25.0 MiB"},
        {ColumnKind::fraction, 0.1234, "12.3%"},
        {ColumnKind::percent, 45.0, "45.0%"},
        {ColumnKind::per_second, 45'678.4, "45,678/s"},
        {ColumnKind::gb_per_second, 12.345, "12.3 GB/s"},
        {ColumnKind::gb_per_second, 0.00002, "2.00e-5 GB/s"},
        {ColumnKind::tflop_per_second, 123.4, "123 TFLOP/s"},
        {ColumnKind::bytes, schema::Value{}, "-"},
    };
    for (const auto& c : cases) {
      const auto [header, cell] = shown(c.kind, c.value);
      const QString what = QString::fromStdString(schema::to_string(c.kind));
      QVERIFY2(header == QStringLiteral("Label"), qPrintable(what + ": header " + header));
      QVERIFY2(cell == QString::fromUtf8(c.shown), qPrintable(what + ": " + cell + " instead of " + QString::fromUtf8(c.shown)));
    }
  }

  void aSpreadReadsInTheMeansUnit() {
    schema::Table table;
    table.columns.push_back(schema::Column{"mean_ms", "Step", ColumnKind::milliseconds, schema::ColumnRole::measure, {}, "std_ms"});
    table.columns.push_back(schema::Column{"std_ms", "Std", ColumnKind::milliseconds, schema::ColumnRole::detail});
    table.rows = {{12.346, 0.41}, {9450.0, 21.0}};
    QCOMPARE(QString::fromStdString(schema::display_cell(table, 0, 0)), QString::fromUtf8("12.35 \u00b1 0.41 ms"));
    QCOMPARE(QString::fromStdString(schema::display_cell(table, 1, 0)), QString::fromUtf8("9.45 \u00b1 0.02 s"));
  }

  void everyKindIsCovered() {
    // A kind added later must say how it reads: its name round-trips and it shows some text.
    for (int k = 0; k <= static_cast<int>(ColumnKind::tflop_per_second); ++k) {
      const auto kind = static_cast<ColumnKind>(k);
      QCOMPARE(schema::parse_column_kind(schema::to_string(kind)), std::optional<ColumnKind>(kind));
      QVERIFY(!shown(kind, 1.0).second.isEmpty());
    }
  }
};

QTEST_MAIN(ColumnUnitsTest)
#include "test_column_units.moc"
