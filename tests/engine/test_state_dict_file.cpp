// Tests for io/state_dict_file.h against fixtures written by real torch.save
// (tests/reference/make_io_fixtures.py) and their Python-computed expected values.
#include "io/state_dict_file.h"

#include <cstdlib>
#include <map>
#include <random>

#include <caffe2/serialize/inline_container.h>

#include "io_test_support.h"

using stepscope::CheckpointError;
using stepscope::StateDict;

using namespace std::string_literals;

namespace {

const char* const kFixtures[] = {"module_state_dict.pt", "module_proto4.pt", "mixed_dtypes.pt",
                                 "module_torch2_style.pt"};

void expect_matches_fixture(const StateDict& sd, const std::string& fixture) {
  const auto& exp = iotest::expected()[fixture].arr;
  ASSERT_EQ(sd.size(), exp.size());
  for (size_t k = 0; k < sd.size(); ++k) {
    SCOPED_TRACE(fixture + " / " + sd[k].name);
    EXPECT_EQ(sd[k].name, exp[k]["name"].text);
    iotest::expect_matches(sd[k].tensor, exp[k]);
  }
}

// Message of the CheckpointError `fn` throws ("" and a test failure if none).
template <class F>
std::string error_of(F fn) {
  try {
    fn();
  } catch (const CheckpointError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a CheckpointError";
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

using Records = std::vector<std::pair<std::string, std::string>>;

// All records of a checkpoint, names without the archive prefix.
Records read_records(const std::string& path) {
  caffe2::serialize::PyTorchStreamReader reader(path);
  Records out;
  for (const auto& name : reader.getAllRecords()) {
    auto rec = reader.getRecord(name);
    out.emplace_back(name, std::string(static_cast<const char*>(std::get<0>(rec).get()), std::get<1>(rec)));
  }
  return out;
}

void write_zip(const std::string& path, const Records& records) {
  caffe2::serialize::PyTorchStreamWriter writer(path);
  for (const auto& r : records)
    if (r.first != "version") writer.writeRecord(r.first, r.second.data(), r.second.size());
  writer.writeEndOfFile();
}

Records with_pickle(Records records, const std::string& pkl) {
  for (auto& r : records)
    if (r.first == "data.pkl") r.second = pkl;
  return records;
}

std::string tmp(const std::string& name) { return iotest::temp_dir() + "/" + name; }

}  // namespace

TEST(StateDictFile, LoadsTorchSaveFixtures) {
  for (const char* fixture : kFixtures) {
    SCOPED_TRACE(fixture);
    const StateDict sd = stepscope::load_state_dict_file(iotest::data_path(fixture));
    expect_matches_fixture(sd, fixture);
  }
}

TEST(StateDictFile, ViewsBecomeCompactOwnedTensors) {
  const StateDict sd = stepscope::load_state_dict_file(iotest::data_path("mixed_dtypes.pt"));
  std::map<std::string, at::Tensor> by_name;
  for (const auto& nt : sd) by_name[nt.name] = nt.tensor;
  // The file stores all 20 ints of int_window's base; the result keeps only its 6.
  const at::Tensor w = by_name.at("int_window");
  EXPECT_TRUE(w.is_contiguous());
  EXPECT_EQ(w.storage().nbytes(), 6u * sizeof(int32_t));
  EXPECT_TRUE(by_name.at("view").is_contiguous());
  EXPECT_TRUE(by_name.at("expanded").is_contiguous());
  for (const auto& nt : sd) EXPECT_FALSE(nt.tensor.requires_grad());
}

TEST(StateDictFile, RoundTripAllDtypes) {
  StateDict sd;
  sd.push_back({"f32", at::randn({3, 4})});
  sd.push_back({"f64_transposed", at::randn({4, 3}, at::kDouble).t()});
  sd.push_back({"f16", at::randn({5}).to(at::kHalf)});
  sd.push_back({"bf16", at::randn({2, 3}).to(at::kBFloat16)});
  sd.push_back({"i64", at::tensor(std::vector<int64_t>{-(int64_t{1} << 62), -1, 0, int64_t{1} << 40})});
  sd.push_back({"i32", at::arange(-5, 5, at::kInt)});
  sd.push_back({"i16", at::arange(-300, 300, 7, at::kShort).reshape({-1, 2})});
  sd.push_back({"i8", at::arange(-128, 128, at::kChar)});
  sd.push_back({"u8", at::arange(0, 256, at::kByte).slice(0, 1, 256, 3)});
  sd.push_back({"bool", at::randn({7}).gt(0)});
  sd.push_back({"scalar", at::scalar_tensor(2.5)});
  sd.push_back({"empty", at::zeros({0, 3})});
  sd.push_back({"layers.0.attn.q_proj.weight", at::randn({8, 8})});
  const std::string path = tmp("roundtrip.pt");
  stepscope::save_state_dict_file(sd, path);
  const StateDict back = stepscope::load_state_dict_file(path);
  ASSERT_EQ(back.size(), sd.size());
  for (size_t k = 0; k < sd.size(); ++k) {
    SCOPED_TRACE(sd[k].name);
    EXPECT_EQ(back[k].name, sd[k].name);
    EXPECT_EQ(back[k].tensor.scalar_type(), sd[k].tensor.scalar_type());
    EXPECT_EQ(back[k].tensor.sizes(), sd[k].tensor.sizes());
    EXPECT_TRUE(at::equal(back[k].tensor, sd[k].tensor));
  }
}

TEST(StateDictFile, WriterRecordsMatchTorchSave) {
  const std::string path = tmp("records.pt");
  stepscope::save_state_dict_file({{"a", at::ones({2})}, {"b", at::zeros({3}, at::kLong)}}, path);
  std::map<std::string, std::string> recs;
  for (auto& r : read_records(path)) recs[r.first] = r.second;
  EXPECT_EQ(recs.at("byteorder"), "little");
  EXPECT_EQ(recs.count("version"), 1u);
  EXPECT_EQ(recs.count("data.pkl"), 1u);
  EXPECT_EQ(recs.at("data/0").size(), 2 * sizeof(float));
  EXPECT_EQ(recs.at("data/1").size(), 3 * sizeof(int64_t));
}

// Re-saves every fixture with our writer. With STEPSCOPE_IO_EXPORT_DIR set, the files are
// kept there for tests/reference/check_saved_state_dict.py (torch.load in Python).
TEST(StateDictFile, ResavedFixturesReloadIdentically) {
  const char* export_dir = std::getenv("STEPSCOPE_IO_EXPORT_DIR");
  for (const char* fixture : kFixtures) {
    SCOPED_TRACE(fixture);
    const StateDict sd = stepscope::load_state_dict_file(iotest::data_path(fixture));
    const std::string out = (export_dir && *export_dir ? std::string(export_dir) : iotest::temp_dir()) +
                            "/cpp_" + fixture;
    stepscope::save_state_dict_file(sd, out);
    expect_matches_fixture(stepscope::load_state_dict_file(out), fixture);
  }
}

TEST(StateDictFile, WriterRejectsBadInput) {
  const std::string path = tmp("bad_input.pt");
  EXPECT_TRUE(contains(error_of([&] { stepscope::save_state_dict_file({{"a", at::ones({1})}, {"a", at::ones({1})}}, path); }),
                       "duplicate"));
  EXPECT_TRUE(contains(error_of([&] { stepscope::save_state_dict_file({{"u", at::Tensor()}}, path); }), "undefined"));
  EXPECT_TRUE(contains(error_of([&] { stepscope::save_state_dict_file({{"c", at::ones({2}, at::kComplexFloat)}}, path); }),
                       "unsupported dtype"));
  EXPECT_TRUE(contains(error_of([&] { stepscope::save_state_dict_file({{"a", at::ones({1})}}, "/nonexistent_dir/x.pt"); }),
                       "/nonexistent_dir/x.pt"));
}

TEST(StateDictFile, MissingFile) {
  const std::string path = tmp("does_not_exist.pt");
  const std::string msg = error_of([&] { stepscope::load_state_dict_file(path); });
  EXPECT_TRUE(contains(msg, path)) << msg;
  EXPECT_TRUE(contains(msg, "cannot open")) << msg;
}

TEST(StateDictFile, NotAZipOrLegacy) {
  const std::string garbage = tmp("garbage.pt");
  iotest::write_bytes(garbage, "this is not a checkpoint at all");
  EXPECT_TRUE(contains(error_of([&] { stepscope::load_state_dict_file(garbage); }), "not a zip"));
  const std::string empty = tmp("empty.pt");
  iotest::write_bytes(empty, "");
  EXPECT_TRUE(contains(error_of([&] { stepscope::load_state_dict_file(empty); }), "empty"));
  const std::string legacy = iotest::data_path("legacy_format.pt");
  EXPECT_TRUE(contains(error_of([&] { stepscope::load_state_dict_file(legacy); }), "legacy"));
}

TEST(StateDictFile, TruncatedZip) {
  const std::string full = iotest::read_bytes(iotest::data_path("module_state_dict.pt"));
  for (size_t keep : {size_t{4}, size_t{100}, full.size() / 2, full.size() - 10}) {
    const std::string path = tmp("truncated.pt");
    iotest::write_bytes(path, full.substr(0, keep));
    const std::string msg = error_of([&] { stepscope::load_state_dict_file(path); });
    EXPECT_TRUE(contains(msg, path)) << msg;
  }
}

TEST(StateDictFile, ZipWithoutDataPkl) {
  Records recs = read_records(iotest::data_path("module_state_dict.pt"));
  Records no_pkl;
  for (auto& r : recs)
    if (r.first != "data.pkl") no_pkl.push_back(r);
  const std::string path = tmp("no_pkl.pt");
  write_zip(path, no_pkl);
  EXPECT_TRUE(contains(error_of([&] { stepscope::load_state_dict_file(path); }), "data.pkl"));
}

TEST(StateDictFile, BadPickles) {
  const Records recs = read_records(iotest::data_path("module_state_dict.pt"));
  const std::string path = tmp("bad_pickle.pt");
  auto load_error = [&](const std::string& pkl) {
    write_zip(path, with_pickle(recs, pkl));
    return error_of([&] { stepscope::load_state_dict_file(path); });
  };
  EXPECT_TRUE(contains(load_error("\x80\x02" "cos\nsystem\n" "X\x02\0\0\0ls\x85R."s), "os.system"));
  EXPECT_TRUE(contains(load_error("\x80\x02S'abc'\n."), "opcode 0x53"));
  EXPECT_TRUE(contains(load_error("\x80\x02]."), "not a state_dict"));
  EXPECT_TRUE(contains(load_error("\x80\x02}X\x01\0\0\0aK\x01s."s), "not a tensor"));
  EXPECT_TRUE(contains(load_error("\x80\x02}"), "end of data"));
  EXPECT_TRUE(contains(load_error("\x80\x09}."), "protocol"));
}

TEST(StateDictFile, InconsistentTensorData) {
  Records recs = read_records(iotest::data_path("module_state_dict.pt"));
  const std::string path = tmp("inconsistent.pt");
  // A storage record that is missing, then one that is too short for its storage.
  Records missing;
  for (auto& r : recs)
    if (r.first != "data/1") missing.push_back(r);
  write_zip(path, missing);
  EXPECT_TRUE(contains(error_of([&] { stepscope::load_state_dict_file(path); }), "data/1"));
  for (auto& r : recs)
    if (r.first == "data/1") r.second.resize(8);
  write_zip(path, recs);
  EXPECT_TRUE(contains(error_of([&] { stepscope::load_state_dict_file(path); }), "bytes"));
}

// Random corruption must give a CheckpointError or a valid result, never a crash.
TEST(StateDictFile, FuzzedFilesNeverCrash) {
  const std::string original = iotest::read_bytes(iotest::data_path("module_torch2_style.pt"));
  const Records recs = read_records(iotest::data_path("module_torch2_style.pt"));
  std::string pkl;
  for (const auto& r : recs)
    if (r.first == "data.pkl") pkl = r.second;
  const char* seed_env = std::getenv("STEPSCOPE_FUZZ_SEED");
  std::mt19937 rng(seed_env ? static_cast<unsigned>(std::atoi(seed_env)) : 12345u);
  const std::string path = tmp("fuzz.pt");
  const char* iters_env = std::getenv("STEPSCOPE_FUZZ_ITERS");  // longer runs by hand
  const int iters = iters_env ? std::atoi(iters_env) : 600;
  int ok = 0, rejected = 0;
  for (int iter = 0; iter < iters; ++iter) {
    std::string bytes = iter % 3 == 0 ? original : pkl;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) {
      const size_t pos = rng() % bytes.size();
      switch (rng() % 4) {
        case 0: bytes[pos] = static_cast<char>(rng()); break;
        case 1: bytes[pos] ^= static_cast<char>(1u << (rng() % 8)); break;
        case 2: bytes.erase(pos, 1 + rng() % 4); break;
        default: bytes.resize(pos + 1); break;
      }
      if (bytes.empty()) bytes = "x";
    }
    if (iter % 3 == 0) iotest::write_bytes(path, bytes);
    else write_zip(path, with_pickle(recs, bytes));
    try {
      const StateDict sd = stepscope::load_state_dict_file(path);
      for (const auto& nt : sd) ASSERT_TRUE(nt.tensor.defined());
      ++ok;
    } catch (const CheckpointError&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 0);
  std::printf("fuzz: %d loaded, %d rejected\n", ok, rejected);
}
