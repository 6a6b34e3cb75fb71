// A checkpoint is read right or refused. Storage classes and record sizes are checked
// against each other (element size x the pickle's element count) before a record is inflated;
// fixtures and their values come from tests/reference/make_checkpoint_fixtures.py (PyTorch 1.13).
#include "io/state_dict_file.h"

#include <fstream>

#include <caffe2/serialize/inline_container.h>

#include "io/zip_directory.h"
#include "io_test_support.h"

using stepscope::CheckpointError;
using stepscope::StateDict;

namespace {

const iotest::Json& fixtures() {
  static const iotest::Json j = iotest::JsonParser(iotest::read_bytes(iotest::data_path("checkpoints.json"))).parse();
  return j;
}

std::string load_error(const std::string& path) {
  try {
    stepscope::load_state_dict_file(path);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  ADD_FAILURE() << path << " loaded";
  return "";
}

// Peak resident bytes since the last reset_peak_rss() (VmHWM), or -1 where Linux cannot reset it.
int64_t peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return -1;
}

bool reset_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";  // Linux 4.0+: resets VmHWM to the current resident size
  clear.close();
  return static_cast<bool>(clear);
}

int64_t rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return -1;
}

}  // namespace

TEST(CheckpointStorages, Float64Float16BFloat16AndDeflatedLoadPythonsValues) {
  for (const auto& [file, tensors] : fixtures()["loads"].obj) {
    SCOPED_TRACE(file);
    const StateDict sd = stepscope::load_state_dict_file(iotest::data_path(file));
    ASSERT_EQ(sd.size(), tensors.arr.size());
    for (size_t k = 0; k < sd.size(); ++k) {
      SCOPED_TRACE(sd[k].name);
      EXPECT_EQ(sd[k].name, tensors.arr[k]["name"].text);
      iotest::expect_matches(sd[k].tensor, tensors.arr[k]);
    }
  }
}

TEST(CheckpointStorages, MislabelledShortLongAndUnknownStoragesAreRefusedNamingTheTensor) {
  for (const auto& [file, refusal] : fixtures()["refused"].obj) {
    SCOPED_TRACE(file);
    const std::string message = load_error(iotest::data_path(file));
    EXPECT_NE(message.find("tensor '" + refusal["tensor"].text + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(refusal["says"].text), std::string::npos) << message;
  }
}

// The record of a 6-element FloatStorage inflates to 64 MiB: refused from the zip directory's
// declared size, so the process never holds those 64 MiB.
TEST(CheckpointStorages, OversizedRecordIsRefusedWithoutInflatingIt) {
  const std::string path = iotest::data_path("deflated_record_too_large.pt");
  if (!reset_peak_rss()) GTEST_SKIP() << "this kernel cannot reset the peak RSS";
  const int64_t before = rss_bytes();
  const std::string message = load_error(path);
  const int64_t grown = peak_rss_bytes() - before;
  EXPECT_NE(message.find("record 'data/0' holds 67108864 bytes"), std::string::npos) << message;
  EXPECT_LT(grown, int64_t{16} << 20) << "peak RSS grew by " << grown << " bytes";
}

TEST(CheckpointStorages, ZipDirectoryAgreesWithLibTorchsReader) {
  for (const char* file : {"module_state_dict.pt", "mixed_dtypes.pt", "module_torch2_style.pt", "net_float64.pt",
                           "deflated_consistent.pt"}) {
    SCOPED_TRACE(file);
    const auto zip = stepscope::read_zip_directory(iotest::data_path(file));
    caffe2::serialize::PyTorchStreamReader reader(iotest::data_path(file));
    const auto records = reader.getAllRecords();
    EXPECT_EQ(zip.entries.size(), records.size());
    for (const auto& name : records) {
      const auto* entry = zip.find(name);
      ASSERT_NE(entry, nullptr) << name;
      EXPECT_EQ(entry->uncompressed_bytes, std::get<1>(reader.getRecord(name))) << name;
    }
  }
}

TEST(CheckpointStorages, BrokenZipDirectoriesAreRefused) {
  const std::string good = iotest::read_bytes(iotest::data_path("module_state_dict.pt"));
  const std::string path = iotest::temp_dir() + "/broken_directory.pt";
  const auto refusal = [&](const std::string& bytes) {
    iotest::write_bytes(path, bytes);
    try {
      stepscope::read_zip_directory(path);
    } catch (const stepscope::ZipDirectoryError& e) {
      return std::string(e.what());
    }
    return std::string("read");
  };
  // Without its end record; with the directory's offset pointing past the file.
  EXPECT_NE(refusal(good.substr(0, good.size() - 22)).find("corrupt zip directory"), std::string::npos);
  std::string past = good;
  const size_t end = past.rfind(std::string("PK\x05\x06", 4));
  ASSERT_NE(end, std::string::npos);
  past[end + 19] = '\x7f';  // the directory's offset, high byte
  EXPECT_NE(refusal(past).find("past the end of the file"), std::string::npos) << refusal(past);
  // A stored record that declares more bytes than it holds.
  std::string lying = good;
  const size_t entry = lying.find(std::string("PK\x01\x02", 4));
  ASSERT_NE(entry, std::string::npos);
  lying[entry + 24] = static_cast<char>(lying[entry + 24] + 1);
  EXPECT_NE(refusal(lying).find("declares"), std::string::npos) << refusal(lying);
}
