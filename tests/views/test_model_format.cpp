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
    QCOMPARE(format_duration_ns(999.7), QString::fromUtf8("1.00 \u00b5s"));  // not "1000 ns"
    QCOMPARE(format_duration_ns(45'600), QString::fromUtf8("45.6 \u00b5s"));
    QCOMPARE(format_duration_ns(999'700), QStringLiteral("1.00 ms"));
    QCOMPARE(format_duration_ns(1'234'567), QStringLiteral("1.23 ms"));
    QCOMPARE(format_duration_ns(2.5e9), QStringLiteral("2.50 s"));
    QCOMPARE(format_duration_ns(1234.4e9), QStringLiteral("1234 s"));
    QCOMPARE(format_duration_ns(std::nan("")), QStringLiteral("-"));
    QCOMPARE(format_duration_ns(std::numeric_limits<double>::infinity()), QStringLiteral("-"));
  }
  void bytesPickTheirUnit() {
    QCOMPARE(format_bytes(0), QStringLiteral("0 B"));
    QCOMPARE(format_bytes(4), QStringLiteral("4 B"));  // not "0.00000381 MiB"
    QCOMPARE(format_bytes(1023), QStringLiteral("1023 B"));
    QCOMPARE(format_bytes(4096), QStringLiteral("4.00 KiB"));
    QCOMPARE(format_bytes(512 * 1024), QStringLiteral("512 KiB"));
    QCOMPARE(format_bytes(1024 * 1024 - 1), QStringLiteral("1.00 MiB"));  // not "1024 KiB"
    QCOMPARE(format_bytes(int64_t{24} << 20), QStringLiteral("24.0 MiB"));
    QCOMPARE(format_bytes(int64_t{1536} << 20), QStringLiteral("1.50 GiB"));
    QCOMPARE(format_bytes(int64_t{80} << 30), QStringLiteral("80.0 GiB"));
    QCOMPARE(format_bytes(-(int64_t{3} << 20)), QStringLiteral("-3.00 MiB"));
  }
  void countsAreSeparated() {
    QCOMPARE(format_count(0), QStringLiteral("0"));
    QCOMPARE(format_count(999), QStringLiteral("999"));
    QCOMPARE(format_count(1000), QStringLiteral("1,000"));
    QCOMPARE(format_count(100'000'000), QStringLiteral("100,000,000"));
    QCOMPARE(format_count(-1'234'567), QStringLiteral("-1,234,567"));
  }
  void tinyValuesKeepTheirDigits() {
    QCOMPARE(format_significant(3.81e-6), QStringLiteral("3.81e-6"));
    QCOMPARE(format_significant(-1.5e-9), QStringLiteral("-1.50e-9"));
    QCOMPARE(format_significant(0.0001), QStringLiteral("0.000100"));
  }
  void percentAndMeanStd() {
    QCOMPARE(format_percent(12.34), QStringLiteral("12.3%"));
    QCOMPARE(format_percent(0), QStringLiteral("0.0%"));
    QCOMPARE(format_percent(100), QStringLiteral("100.0%"));
    QCOMPARE(format_percent(std::nan("")), QStringLiteral("-"));
    QCOMPARE(format_mean_std_ms(12.346, 0.4), QString::fromUtf8("12.35 \u00b1 0.40 ms"));
    QCOMPARE(format_mean_std_ms(9450, 21), QString::fromUtf8("9.45 \u00b1 0.02 s"));
    QCOMPARE(format_mean_std_ms(0.8123, 0.0131), QString::fromUtf8("812.30 \u00b1 13.10 \u00b5s"));
    QCOMPARE(format_duration_ms(9450), QStringLiteral("9.45 s"));
  }
};

QTEST_MAIN(ModelFormatTest)
#include "test_model_format.moc"
