// Whole-file reads are bounded: a file past the limit is refused by its size before a byte is
// read, a device that never ends is read only up to the limit, and each message names the file
// and the limit. A run file goes through the same reader, and its parse stops at a number of
// values, so a file of few bytes per value cannot make it build many times its size.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

#include <unistd.h>

#include "io/input_file.h"
#include "io/json_reader.h"
#include "io/run_record_json.h"

using namespace stepscope;

namespace {

std::string message_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

TEST(InputFile, ReadsAFileUpToTheLimitWhole) {
  const std::string path = temp_file("stepscope_input_exact.txt", "0123456789");
  EXPECT_EQ(read_input_file(path, "a run file", 10), "0123456789");
  std::remove(path.c_str());
}

TEST(InputFile, RefusesALargerFileByItsSizeBeforeReading) {
  // A sparse gigabyte: refused at once (reading it would take seconds and the memory).
  const std::string path = ::testing::TempDir() + "stepscope_input_sparse.json";
  ASSERT_EQ(truncate(temp_file("stepscope_input_sparse.json", "{").c_str(), int64_t{1} << 30), 0);
  const auto start = std::chrono::steady_clock::now();
  const std::string message = message_of([&] { read_input_file(path, "a run file"); });
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_NE(message.find(path + " is 1 GiB; a run file is read up to 128 MiB"), std::string::npos) << message;
  std::remove(path.c_str());
}

TEST(InputFile, ReadsADeviceOnlyUpToTheLimit) {
  const std::string message = message_of([] { read_input_file("/dev/zero", "a run file", 1 << 20); });
  EXPECT_NE(message.find("/dev/zero holds more than 1 MiB; a run file is read up to 1 MiB"), std::string::npos) << message;
  EXPECT_EQ(read_input_file("/dev/null", "a run file", 1 << 20), "");
}

TEST(InputFile, SaysWhatIsNotAReadableFile) {
  const std::string folder = ::testing::TempDir();
  EXPECT_NE(message_of([&] { read_input_file(folder, "a run file"); }).find("is a folder, not a run file"), std::string::npos);
  EXPECT_NE(message_of([] { read_input_file("/nonexistent/run.json", "a run file"); })
                .find("cannot read /nonexistent/run.json: No such file or directory"),
            std::string::npos);
}

TEST(InputFile, SizesReadPlainly) {
  EXPECT_EQ(input_size_text(12), "12 bytes");
  EXPECT_EQ(input_size_text(kMostInputFileBytes), "128 MiB");
  EXPECT_EQ(input_size_text(uint64_t{3} << 29), "1.5 GiB");
}

TEST(RunRecordErrors, ARunFileIsReadBounded) {
  const std::string message = message_of([] { read_run_record_file("/dev/zero"); });
  EXPECT_NE(message.find("/dev/zero holds more than 128 MiB; a run file is read up to 128 MiB"), std::string::npos)
      << message;
}

TEST(RunRecordErrors, ADocumentOfTooManyValuesStopsWhileParsed) {
  // Two bytes per value would build 16 bytes each: the parse stops at the count, not the end.
  EXPECT_EQ(parse_json_bounded("[0,0,0]", 4).size(), 3u);
  const std::string message = message_of([] { parse_json_bounded(R"({"a": [0, 0, 0], "b": 0})", 4); });
  EXPECT_NE(message.find("document: more than 4 values and keys"), std::string::npos) << message;
  std::string zeros = "[0";
  for (size_t i = 0; i < kMostJsonValues; ++i) zeros += ",0";
  zeros += "]";
  const std::string record_message = message_of([&] { read_run_record(zeros); });
  EXPECT_NE(record_message.find("more than 16000000 values and keys"), std::string::npos) << record_message;
}
