// A made-up table experiment, declared in a test file alone (support/square_experiment.h: a
// descriptor, a case, a schema),
// gets a whole stepscope-cli command: usage, parsing with the option named in every mistake,
// progress, the table on stdout or in --csv, and a run record that keeps its inputs. And the
// run records today's experiments wrote before inputs were stored still reopen with theirs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/experiment_command.h"
#include "cli/recorded_inputs.h"
#include "io/run_record_json.h"
#include "support/square_experiment.h"

namespace stepscope::cli {
namespace {

struct Result {
  int status;
  std::string out, err;
};

Result run(const std::vector<std::string>& args) {
  static const ExperimentDescriptor squares = testing_support::square_descriptor();
  std::ostringstream out, err;
  const int status = run_experiment_command(squares, args, out, err);
  return {status, out.str(), err.str()};
}

std::string temp_path(const std::string& name) {
  return (testing::TempDir() + "/" + std::to_string(::getpid()) + "-" + name);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ExperimentCommand, AMadeUpExperimentRunsWithItsTableOnStdout) {
  const Result r = run({"--n", "2,5", "--quiet"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "n,square,status\n2,4,ok\n5,25,ok\n");
  EXPECT_EQ(r.err, "");
}

TEST(ExperimentCommand, FilesGetTheTableAndARecordWithTheInputs) {
  const std::string csv = temp_path("squares.csv"), json = temp_path("squares.json");
  const Result r = run({"--n", "3", "--csv", csv, "--json", json});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_text(csv), "n,square,status\n3,9,ok\n");
  EXPECT_NE(r.err.find("n²"), std::string::npos) << "the console table: " << r.err;
  const RunRecord record = read_run_record_file(json);
  EXPECT_EQ(record.inputs.experiment, "test.squares");
  EXPECT_EQ(record.inputs.values, (std::vector<std::pair<std::string, std::string>>{{"n", "3"}}));
  ASSERT_EQ(record.tables.size(), 1u);
  EXPECT_EQ(record.tables[0].rows.size(), 1u);
  std::remove(csv.c_str());
  std::remove(json.c_str());
}

TEST(ExperimentCommand, UsageAndMistakesComeFromTheDeclarations) {
  const Result help = run({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("usage: stepscope-cli squares [options]"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--n N[,N...]"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("(default 1,2,3)"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--csv F"), std::string::npos) << help.out;
  const Result zero = run({"--n", "0"});
  EXPECT_EQ(zero.status, 2);
  EXPECT_EQ(zero.err, "stepscope-cli squares: error: --n: 0 is too small (at least 1)\n");
  const Result unknown = run({"--m", "1"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("unknown option '--m' for 'squares'"), std::string::npos) << unknown.err;
}

// Records of each experiment as the CLI wrote them before inputs were kept (version 2).
std::string record_v2(const std::string& name) { return std::string(STEPSCOPE_TEST_DATA_DIR) + "/records_v2/" + name; }

TEST(RecordedInputs, OlderRecordsReopenWithTheirInputs) {
  struct Expected {
    const char* file;
    const char* experiment;
    std::vector<std::pair<std::string, std::string>> values;
  };
  const std::vector<Expected> expected{
      {"bench.json", "bench",
       {{"model", "tiny"}, {"context", "16"}, {"batch", "2"}, {"precision", "fp32"}, {"warmup", "0"}, {"steps", "1"}}},
      {"attention.json", "attention",
       {{"impl", "naive,flash"}, {"batch", "1"}, {"d", "16"}, {"seq", "16"}, {"warmup", "0"}, {"steps", "1"}}},
      {"precision_accumulate.json", "precision.accumulate", {}},
      {"precision_autocast.json", "precision.autocast", {{"model", "tiny"}, {"batch", "1"}, {"context", "8"}}},
      {"collectives.json", "collectives", {{"nproc", "2"}, {"sizes", "4KB"}, {"warmup", "0"}, {"iters", "2"}}},
      {"ddp.json", "ddp",
       {{"variant", "flat"}, {"nproc", "2"}, {"model", "tiny"}, {"context", "16"}, {"batch", "1"}, {"warmup", "0"},
        {"steps", "1"}}},
  };
  for (const auto& e : expected) {
    SCOPED_TRACE(e.file);
    const RunRecord record = read_run_record_file(record_v2(e.file));
    EXPECT_TRUE(record.inputs.experiment.empty()) << "a version 2 record";
    EXPECT_FALSE(record.tables.empty() && record.entries.empty());
    const auto recorded = recorded_inputs(record);
    ASSERT_TRUE(recorded.has_value());
    EXPECT_EQ(recorded->experiment->id, e.experiment);
    EXPECT_EQ(recorded->values.given_values(), e.values);
    if (recorded->experiment->check) EXPECT_NO_THROW(recorded->experiment->check(recorded->values));
  }
}

TEST(RecordedInputs, ARecordOfAnotherProgramHasNone) {
  RunRecord record;
  record.environment.command_line = "python3 bench.py --model tiny";
  EXPECT_FALSE(recorded_inputs(record).has_value());
  record.inputs = {"no-such-experiment", {}};
  EXPECT_FALSE(recorded_inputs(record).has_value());
}

}  // namespace
}  // namespace stepscope::cli
