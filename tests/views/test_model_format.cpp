// The number formats every table shares.
#include <cmath>
#include <limits>

#include <QTest>

#include "models/format.h"

using namespace stepscope::views;

class ModelFormatTest : public QObject {
  Q_OBJECT

 private slots:
  void significantDigits() {
    QCOMPARE(format_significant(0), QStringLiteral("0"));
    QCOMPARE(format_significant(1.234), QStringLiteral("1.23"));
    QCOMPARE(format_significant(45.62), QStringLiteral("45.6"));
    QCOMPARE(format_significant(789.4), QStringLiteral("789"));
    QCOMPARE(format_significant(12345), QStringLiteral("12345"));
    QCOMPARE(format_significant(0.003906), QStringLiteral("0.00391"));
    QCOMPARE(format_significant(9.996), QStringLiteral("10.0"));  // not "10.00"
    QCOMPARE(format_significant(-2.5), QStringLiteral("-2.50"));
  }
  void durationsPickTheirUnit() {
    QCOMPARE(format_duration_ns(0), QStringLiteral("0 ns"));
    QCOMPARE(format_duration_ns(789), QStringLiteral("789 ns"));
    QCOMPARE(format_duration_ns(999.4), QStringLiteral("999 ns"));
    QCOMPARE(format_duration_ns(999.7), QStringLiteral("1.00 us"));  // not "1000 ns"
    QCOMPARE(format_duration_ns(45'600), QStringLiteral("45.6 us"));
    QCOMPARE(format_duration_ns(999'700), QStringLiteral("1.00 ms"));
    QCOMPARE(format_duration_ns(1'234'567), QStringLiteral("1.23 ms"));
    QCOMPARE(format_duration_ns(2.5e9), QStringLiteral("2.50 s"));
    QCOMPARE(format_duration_ns(1234.4e9), QStringLiteral("1234 s"));
    QCOMPARE(format_duration_ns(std::nan("")), QStringLiteral("-"));
    QCOMPARE(format_duration_ns(std::numeric_limits<double>::infinity()), QStringLiteral("-"));
  }
  void bytesInMebibytes() {
    QCOMPARE(format_bytes(0), QStringLiteral("0 MiB"));
    QCOMPARE(format_bytes(4096), QStringLiteral("0.00391 MiB"));
    QCOMPARE(format_bytes(512 * 1024), QStringLiteral("0.500 MiB"));
    QCOMPARE(format_bytes(int64_t{24} << 20), QStringLiteral("24.0 MiB"));
    QCOMPARE(format_bytes(int64_t{1536} << 20), QStringLiteral("1536 MiB"));
    QCOMPARE(format_bytes(int64_t{80} << 30), QStringLiteral("81920 MiB"));
  }
  void percentAndMeanStd() {
    QCOMPARE(format_percent(12.34), QStringLiteral("12.3%"));
    QCOMPARE(format_percent(0), QStringLiteral("0.0%"));
    QCOMPARE(format_percent(100), QStringLiteral("100.0%"));
    QCOMPARE(format_percent(std::nan("")), QStringLiteral("-"));
    QCOMPARE(format_mean_std(12.346, 0.4), QString::fromUtf8("12.35 \u00b1 0.40"));
  }
};

QTEST_MAIN(ModelFormatTest)
#include "test_model_format.moc"
