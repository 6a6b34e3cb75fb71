// The benchmark table: the bench schema's columns (the CLI's CSV), mean ± std, dashes for what
// was not measured, exports equal to the CLI's CSV.
#include <QSignalSpy>
#include <QTest>

#include "export/table_export.h"
#include <sstream>

#include "experiments/bench/bench_schema.h"
#include "io/table_csv.h"
#include "model_fixtures.h"
#include "models/bench_table_model.h"

using namespace stepscope;
using namespace stepscope::views;
using fixtures::exact;
using fixtures::text;

namespace {

PhaseStats stats(double mean, double std, int count = 10) { return fixtures::phase_stats(mean, std, count); }

BenchResult config(const std::string& model, int64_t context, int64_t batch, Precision precision, StepMode mode) {
  BenchResult r;
  r.config.model.name = model;
  r.config.context = context;
  r.config.batch = batch;
  r.config.precision = precision;
  r.config.mode = mode;
  r.device_name = "NVIDIA H100 80GB HBM3";
  return r;
}

// Measured train step: every phase, MFU and peak memory known.
BenchResult train_ok() {
  BenchResult r = config("small", 256, 4, Precision::fp32, StepMode::train);
  r.total = stats(120.5, 1.25);
  r.forward = stats(40.25, 0.5);
  r.backward = stats(70.0, 1.0);
  r.optimizer = stats(10.126, 0.1);
  r.tokens_per_second = 8500.4;
  r.mfu = 0.4567;
  r.peak_memory_bytes = int64_t{3} << 30;
  return r;
}

// Forward only, on a device without a known peak: no backward/optimizer, no MFU, no memory.
BenchResult forward_only() {
  BenchResult r = config("small", 512, 8, Precision::bf16, StepMode::forward);
  r.total = stats(30.0, 0.25);
  r.forward = stats(30.0, 0.25);
  r.tokens_per_second = 136533.3;
  return r;
}

BenchResult out_of_memory() {
  BenchResult r = config("xl", 2048, 16, Precision::fp16, StepMode::train);
  r.status = RunStatus::out_of_memory;
  r.message = "CUDA out of memory. Tried to allocate 2.00 GiB";
  r.peak_memory_bytes = int64_t{79} << 30;
  return r;
}

// The column of a CSV key.
int col(const BenchTableModel& model, const char* key) {
  const int c = model.column_of(key);
  if (c < 0) qFatal("no column %s", key);
  return c;
}

}  // namespace

class BenchTableModelTest : public QObject {
  Q_OBJECT

 private slots:
  void headersAreTheCliColumns() {
    BenchTableModel model;
    QStringList cli;
    for (const auto& name : csv_header(bench_schema().columns())) cli << QString::fromStdString(name);
    QCOMPARE(fixtures::model_header(model), cli);
    QStringList shown;
    for (int c = 0; c < model.columnCount(); ++c) {
      if (model.shown_by_default(c)) shown << fixtures::model_header(model).at(c);
    }
    QCOMPARE(shown, QStringList({"model", "context", "batch", "precision", "mode", "attention", "engine", "status", "total_mean_ms",
                                 "forward_mean_ms", "backward_mean_ms", "optimizer_mean_ms", "tokens_per_s", "mfu",
                                 "peak_memory_bytes"}));
  }

  void measuredTrainRow() {
    BenchTableModel model;
    fixtures::tester(&model);
    model.set_results({train_ok()});
    QCOMPARE(model.rowCount(), 1);
    const QStringList expected = {"small",
                                  "256",
                                  "4",
                                  "fp32",
                                  "train",
                                  "ok",
                                  QString::fromUtf8("120.50 \u00b1 1.25 ms"),
                                  QString::fromUtf8("40.25 \u00b1 0.50 ms"),
                                  QString::fromUtf8("70.00 \u00b1 1.00 ms"),
                                  QString::fromUtf8("10.13 \u00b1 0.10 ms"),
                                  "8,500/s",
                                  "45.7%",
                                  "3.00 GiB"};
    const char* keys[] = {"model", "context", "batch", "precision", "mode", "status", "total_mean_ms",
                          "forward_mean_ms", "backward_mean_ms", "optimizer_mean_ms", "tokens_per_s", "mfu",
                          "peak_memory_bytes"};
    for (int i = 0; i < expected.size(); ++i) QCOMPARE(text(model, 0, col(model, keys[i])), expected[i]);
    QCOMPARE(text(model, 0, col(model, "message")), QString());
    QCOMPARE(exact(model, 0, col(model, "total_mean_ms")).toDouble(), 120.5);  // the mean
    QCOMPARE(exact(model, 0, col(model, "optimizer_mean_ms")).toDouble(), 10.126);
    QCOMPARE(exact(model, 0, col(model, "mfu")).toDouble(), 0.4567);  // a fraction, as the CLI writes it
    QCOMPARE(exact(model, 0, col(model, "peak_memory_bytes")).toLongLong(), qlonglong{3} << 30);
    QCOMPARE(exact(model, 0, col(model, "batch")).toLongLong(), 4);
    QCOMPARE(exact(model, 0, col(model, "model")).toString(), QStringLiteral("small"));
    QCOMPARE(model.data(model.index(0, col(model, "batch")), Qt::TextAlignmentRole).toInt(),
             int(Qt::AlignRight | Qt::AlignVCenter));
    QCOMPARE(model.data(model.index(0, col(model, "model")), Qt::TextAlignmentRole).toInt(),
             int(Qt::AlignLeft | Qt::AlignVCenter));
    QVERIFY(model.data(model.index(0, col(model, "model")), Qt::ToolTipRole).toString().contains("H100"));
  }

  void phasesTheModeDoesNotRunAreDashes() {
    BenchTableModel model;
    fixtures::tester(&model);
    model.set_results({forward_only()});
    QCOMPARE(text(model, 0, col(model, "forward_mean_ms")), QString::fromUtf8("30.00 \u00b1 0.25 ms"));
    for (int c : {col(model, "backward_mean_ms"), col(model, "optimizer_mean_ms"), col(model, "mfu"),
                  col(model, "peak_memory_bytes")}) {
      QCOMPARE(text(model, 0, c), QStringLiteral("-"));
      QVERIFY(!exact(model, 0, c).isValid());  // unknown: sorts last
    }
    QCOMPARE(text(model, 0, col(model, "tokens_per_s")), QStringLiteral("136,533/s"));
    QCOMPARE(text(model, 0, col(model, "mode")), QStringLiteral("forward"));
  }

  void outOfMemoryRowShowsStatusAndDashes() {
    BenchTableModel model;
    fixtures::tester(&model);
    model.set_results({out_of_memory()});
    QCOMPARE(text(model, 0, col(model, "status")), QStringLiteral("OOM"));
    for (const char* key : {"total_mean_ms", "forward_mean_ms", "backward_mean_ms", "optimizer_mean_ms",
                            "tokens_per_s", "mfu"}) {
      QCOMPARE(text(model, 0, col(model, key)), QStringLiteral("-"));
      QVERIFY(!exact(model, 0, col(model, key)).isValid());
    }
    QCOMPARE(text(model, 0, col(model, "peak_memory_bytes")), QStringLiteral("79.0 GiB"));  // known despite the OOM
    QCOMPARE(text(model, 0, col(model, "message")), QStringLiteral("CUDA out of memory. Tried to allocate 2.00 GiB"));
    QCOMPARE(model.data(model.index(0, col(model, "message")), Qt::ToolTipRole).toString(),
             QStringLiteral("CUDA out of memory. Tried to allocate 2.00 GiB"));
  }

  void appendInsertsARowAndClearEmpties() {
    BenchTableModel model;
    fixtures::tester(&model);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.append_result(train_ok());
    model.append_result(out_of_memory());
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(inserted.count(), 2);
    QCOMPARE(inserted.at(1).at(1).toInt(), 1);  // first row of the second insert
    QCOMPARE(inserted.at(1).at(2).toInt(), 1);
    QCOMPARE(reset.count(), 0);
    QCOMPARE(text(model, 1, col(model, "model")), QStringLiteral("xl"));
    QCOMPARE(model.result(1).config.context, 2048);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(reset.count(), 1);
    model.set_results({train_ok(), forward_only(), out_of_memory()});
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(reset.count(), 2);
  }

  // The GUI's export goes through Qt (table_export), the CLI's through the engine's writer:
  // both must write the same file.
  void csvExportEqualsTheCliCsv() {
    BenchTableModel model;
    const std::vector<BenchResult> results{train_ok(), forward_only(), out_of_memory()};
    model.set_results(results);
    std::ostringstream cli;
    write_table_csv(cli, bench_schema().table(results));
    QCOMPARE(table_to_csv(model), QString::fromStdString(cli.str()));
    const QStringList lines = table_to_csv(model).split(QLatin1Char('\n'));
    QVERIFY(lines.at(1).startsWith(QStringLiteral("small,768,3072,12,12,10000,256,4,fp32,train,naive,eager,cpu,NVIDIA H100 80GB HBM3,,5,0,ok,120.5,")));
  }
};

QTEST_MAIN(BenchTableModelTest)
#include "test_bench_table_model.moc"
