#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/run_record_json.h"
#include "run_record_fixtures.h"

namespace stepscope {
namespace {

using run_record_test::expect_same;
using run_record_test::sample_record;

// The message of the RunRecordError that `read` throws; fails the test when it throws none.
std::string error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const RunRecordError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no RunRecordError thrown";
  return "";
}

std::string error_of(const nlohmann::json& document) {
  return error_of([&] { run_record_from_json(document); });
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
}

TEST(RunRecordJson, RoundTripKeepsEveryField) {
  const RunRecord original = sample_record();
  const RunRecord back = read_run_record(write_run_record(original));
  expect_same(original, back);
  // The raw records are dropped, not carried over.
  EXPECT_FALSE(back.entries[0].result.trace);
  EXPECT_FALSE(back.entries[0].result.allocator_snapshot);
  EXPECT_FALSE(back.entries[0].result.allocation_log);
}

// How the run ended travels with it; a record that does not say (earlier files) reads as none.
TEST(RunRecordJson, HowTheRunEndedRoundTripsAndIsOptional) {
  RunRecord record = sample_record();
  record.outcome = RunEnding{RunStatus::cancelled, 16};
  const RunRecord back = read_run_record(write_run_record(record));
  ASSERT_TRUE(back.outcome.has_value());
  EXPECT_EQ(*back.outcome, (RunEnding{RunStatus::cancelled, 16}));
  nlohmann::json document = to_json(record);
  document.erase("outcome");
  EXPECT_FALSE(run_record_from_json(document).outcome.has_value());
  document["outcome"] = nullptr;
  EXPECT_FALSE(run_record_from_json(document).outcome.has_value());
  document["outcome"] = {{"status", "stopped"}, {"planned", 3}};
  expect_contains(error_of(document), "outcome.status");
}

// Records written before the operator profiler had neither the entry's profile nor the
// configuration's switch: they read as no profile, not as an error.
TEST(RunRecordJson, OperatorProfileIsOptional) {
  const RunRecord record = sample_record();
  ASSERT_TRUE(record.entries[0].result.operator_profile);
  nlohmann::json document = to_json(record);
  EXPECT_TRUE(document["entries"][0]["operator_profile"].is_object());
  document["entries"][0].erase("operator_profile");
  document["entries"][0]["config"].erase("profile_operators");
  const RunRecord back = run_record_from_json(document);
  EXPECT_FALSE(back.entries[0].result.operator_profile);
  EXPECT_FALSE(back.entries[0].result.config.profile_operators);
  document["entries"][0]["operator_profile"] = nullptr;
  EXPECT_FALSE(run_record_from_json(document).entries[0].result.operator_profile);
  document["entries"][0]["operator_profile"] = {{"operators", nlohmann::json::array()}};
  expect_contains(error_of(document), "entries[0].operator_profile.measured_steps");
}

TEST(RunRecordJson, ComparisonNoticesAChangedField) {
  // Guards the comparison helper itself: a change deep inside must not go unnoticed.
  RunRecord changed = sample_record();
  auto timeline = std::make_shared<profiling::MemoryTimeline>(*changed.entries[0].timeline);
  timeline->points[2].bytes_by_category[3] += 1;
  changed.entries[0].timeline = timeline;
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    expect_same(sample_record(), changed);
  }
  EXPECT_EQ(failures.size(), 1);
}

TEST(RunRecordJson, WritesTheEnvelopeAndEnumNames) {
  const auto document = to_json(sample_record());
  EXPECT_EQ(document["format"], "stepscope-run");
  EXPECT_EQ(document["version"], 3);
  EXPECT_EQ(document["inputs"]["experiment"], "");  // the sample names none: an object all the same
  EXPECT_TRUE(document["inputs"]["values"].is_object());
  const auto& oom = document["entries"][1];
  EXPECT_EQ(oom["row"]["status"], "OOM");
  EXPECT_EQ(oom["row"]["precision"], "fp16");
  EXPECT_EQ(oom["config"]["precision"], "fp16");
  // A device as it was given: "cuda" (the current GPU) stays "cuda", "cuda:1" stays "cuda:1".
  EXPECT_EQ(oom["config"]["device"], "cuda");
  EXPECT_EQ(oom["row"]["device"], "cuda");
  EXPECT_EQ(document["entries"][0]["config"]["device"], "cuda:1");
  EXPECT_EQ(document["entries"][0]["row"]["device"], "cuda:1");
  EXPECT_TRUE(oom["row"]["total_mean_ms"].is_null());  // not measured: null, as the CSV leaves it blank
  EXPECT_TRUE(oom["kernel_profile"].is_null());
  EXPECT_TRUE(oom["timeline"].is_null());
  EXPECT_EQ(document["entries"][0]["kernel_profile"]["ranges"][0]["kernels"][0]["category"], "matrix multiply");
  EXPECT_EQ(document["entries"][0]["timeline"]["largest"][1]["category"], "optimizer state");
  EXPECT_EQ(document["entries"][2]["row"]["mfu"], "NaN");
  EXPECT_EQ(document["entries"][2]["row"]["tokens_per_s"], "Infinity");
  EXPECT_FALSE(document["entries"][0].contains("trace"));
  EXPECT_TRUE(document["tables"].is_array());
}

TEST(RunRecordJson, FileRoundTripAndMissingFile) {
  const std::string path = ::testing::TempDir() + "stepscope_run_record_test.json";
  write_run_record_file(path, sample_record());
  expect_same(sample_record(), read_run_record_file(path));
  std::remove(path.c_str());
  expect_contains(error_of([&] { read_run_record_file(path); }), path);
}

TEST(RunRecordJson, BadUtf8IsReplacedNotThrown) {
  RunRecord record = sample_record();
  record.entries[1].result.message = "bad \xff byte";
  EXPECT_EQ(read_run_record(write_run_record(record)).entries[1].result.message, "bad \xEF\xBF\xBD byte");
}

TEST(RunRecordDecimation, KeepsTheHighestPointAndEverythingElseWhole) {
  RunRecord record = sample_record();
  auto timeline = std::make_shared<profiling::MemoryTimeline>(*record.entries[0].timeline);
  timeline->points.clear();
  const size_t n = 10000, highest = 6789;
  for (size_t i = 0; i < n; ++i) {
    profiling::MemoryPoint p;
    p.time_ns = static_cast<int64_t>(1000 + i);
    p.allocated_bytes = static_cast<int64_t>((i * 7919) % 1000);
    p.band = static_cast<int32_t>(i % 3);
    timeline->points.push_back(p);
  }
  timeline->points[highest].allocated_bytes = 5000000;
  record.entries[0].timeline = timeline;

  const RunRecord back = read_run_record(write_run_record(record, 100));
  const auto& points = back.entries[0].timeline->points;
  ASSERT_LE(points.size(), 100u);
  ASSERT_GE(points.size(), 50u);
  const auto top = std::max_element(points.begin(), points.end(), [](const auto& a, const auto& b) {
    return a.allocated_bytes < b.allocated_bytes;
  });
  EXPECT_EQ(top->allocated_bytes, 5000000);
  EXPECT_EQ(top->time_ns, static_cast<int64_t>(1000 + highest));
  EXPECT_EQ(points.front().time_ns, 1000);
  EXPECT_EQ(points.back().time_ns, static_cast<int64_t>(1000 + n - 1));
  run_record_test::expect_same_except_points(*timeline, *back.entries[0].timeline);

  EXPECT_LE(to_json(record)["entries"][0]["timeline"]["points"].size(), kRunRecordTimelinePoints);
}

TEST(RunRecordErrors, WrongFormatName) {
  auto document = to_json(sample_record());
  document["format"] = "stepscope-trace";
  const auto message = error_of(document);
  expect_contains(message, "format");
  expect_contains(message, "stepscope-trace");
  expect_contains(message, "stepscope-run");
}

TEST(RunRecordErrors, NewerVersion) {
  auto document = to_json(sample_record());
  document["version"] = 4;
  const auto message = error_of(document);
  expect_contains(message, "version: 4 is newer");
  expect_contains(message, "newer Stepscope");
}

TEST(RunRecordErrors, StringWhereANumberBelongs) {
  auto document = to_json(sample_record());
  document["entries"][2]["config"]["context"] = "256";
  expect_contains(error_of(document), "entries[2].config.context: expected an integer");

  document = to_json(sample_record());
  document["entries"][2]["row"]["context"] = "256";
  expect_contains(error_of(document), "entries[2].row.context: expected an integer");

  document = to_json(sample_record());
  document["entries"][0]["timeline"]["points"][1]["bytes_by_category"]["gradient"] = "many";
  expect_contains(error_of(document), "entries[0].timeline.points[1].bytes_by_category.gradient: expected an integer");

  document = to_json(sample_record());
  document["entries"][0]["row"]["mfu"] = "high";
  expect_contains(error_of(document), "entries[0].row.mfu: expected a number");
}

TEST(RunRecordErrors, MissingEntries) {
  auto document = to_json(sample_record());
  document.erase("entries");
  expect_contains(error_of(document), "entries: missing");

  document = to_json(sample_record());
  document["entries"] = {{"result", nullptr}};
  expect_contains(error_of(document), "entries: expected an array");
}

TEST(RunRecordErrors, MissingOrMistypedDeepFields) {
  auto document = to_json(sample_record());
  document["entries"][0]["kernel_profile"]["ranges"][1]["kernels"][0].erase("stddev_ns");
  expect_contains(error_of(document), "entries[0].kernel_profile.ranges[1].kernels[0].stddev_ns: missing");

  document = to_json(sample_record());
  document["entries"][0]["row"].erase("batch");
  expect_contains(error_of(document), "entries[0].row.batch: missing");

  document = to_json(sample_record());
  document["entries"][0]["kernel_profile"]["ranges"][0]["categories"][1]["category"] = "magic";
  expect_contains(error_of(document),
                  "entries[0].kernel_profile.ranges[0].categories[1].category: unknown kernel category 'magic'");

  document = to_json(sample_record());
  document["entries"][1]["config"]["mode"] = "sideways";
  expect_contains(error_of(document), "entries[1].config.mode: unknown mode 'sideways'");

  document = to_json(sample_record());
  document["entries"][1]["row"]["mode"] = "sideways";
  expect_contains(error_of(document), "entries[1].row.mode: unknown mode 'sideways'");

  document = to_json(sample_record());
  document["entries"][1]["config"]["device"] = "tpu";
  expect_contains(error_of(document), "entries[1].config.device: unknown device 'tpu'");

  document = to_json(sample_record());
  document["entries"][1]["row"]["device"] = "cuda:x";
  expect_contains(error_of(document), "entries[1].row.device: unknown device 'cuda:x'");

  document = to_json(sample_record());
  document["entries"][0]["config"]["warmup"] = int64_t{1} << 40;  // an int field
  expect_contains(error_of(document), "entries[0].config.warmup: expected an integer from");

  document = to_json(sample_record());
  document["entries"][0]["timeline"]["unknown_frees"] = -1;
  expect_contains(error_of(document), "entries[0].timeline.unknown_frees: expected a non-negative integer");

  document = to_json(sample_record());
  document["entries"][0]["steps_ns"][1]["total_ns"] = 2.5;
  expect_contains(error_of(document), "entries[0].steps_ns[1].total_ns: expected an integer, got 2.5");

  document = to_json(sample_record());
  document["entries"][2]["config"]["model"] = nullptr;
  expect_contains(error_of(document), "entries[2].config.model: expected an object, got null");
}

// A shared file whose configuration could never run is refused, not imported.
TEST(RunRecordErrors, AConfigurationThatCannotRunIsRefused) {
  auto document = to_json(sample_record());
  document["entries"][0]["row"]["batch"] = -5;
  expect_contains(error_of(document), "entries[0].config.batch: batch size must be positive (got -5)");
}

TEST(RunRecordErrors, MalformedOrTruncatedText) {
  const std::string text = write_run_record(sample_record());
  const auto message = error_of([&] { read_run_record(text.substr(0, text.size() / 2)); });
  expect_contains(message, "malformed JSON");
  expect_contains(message, "column");
  expect_contains(error_of([] { read_run_record(""); }), "malformed JSON");
  expect_contains(error_of([] { read_run_record("[1, 2]"); }), "document: expected an object");
}

}  // namespace
}  // namespace stepscope

namespace stepscope {
namespace {

// The desktop's MIME type for run files (resources/mime) recognises a record by its first bytes:
// the writer's compact JSON with sorted keys starts with the entries, then an entry's config (or,
// with no entry, the environment). A change here must change the magic there.
TEST(RunRecordJson, StartsAsTheDesktopsFileTypeRecognisesIt) {
  const std::string text = write_run_record(run_record_test::sample_record());
  EXPECT_EQ(text.rfind("{\"entries\":[{\"config\":{\"batch\":", 0), 0u) << text.substr(0, 80);
  RunRecord empty = run_record_test::sample_record();
  empty.entries.clear();
  const std::string none = write_run_record(empty);
  EXPECT_EQ(none.rfind("{\"entries\":[],\"environment\":{\"command_line\":", 0), 0u) << none.substr(0, 80);
}

}  // namespace
}  // namespace stepscope
