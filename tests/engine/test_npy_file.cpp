// Tests for io/npy_file.h against .npy files written by numpy
// (tests/reference/make_io_fixtures.py) and their Python-computed expected values.
#include "io/npy_file.h"

#include <cstdlib>
#include <random>

#include "io_test_support.h"

using stepscope::NpyError;

namespace {

template <class F>
std::string npy_error_of(F fn) {
  try {
    fn();
  } catch (const NpyError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an NpyError";
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string tmp(const std::string& name) { return iotest::temp_dir() + "/" + name; }

}  // namespace

TEST(NpyFile, ReadsNumpyFixtures) {
  const auto& fixtures = iotest::expected()["npy"].obj;
  ASSERT_GE(fixtures.size(), 14u);
  for (const auto& kv : fixtures) {
    SCOPED_TRACE(kv.first);
    const at::Tensor t = stepscope::read_npy_file(iotest::data_path(kv.first));
    EXPECT_TRUE(t.is_contiguous());
    iotest::expect_matches(t, kv.second);
  }
}

TEST(NpyFile, RoundTripAllDtypes) {
  const std::vector<at::Tensor> tensors = {
      at::randn({3, 4}),
      at::randn({4, 3}, at::kDouble).t(),  // non-contiguous input
      at::randn({5}).to(at::kHalf),
      at::tensor(std::vector<int64_t>{-(int64_t{1} << 62), 0, int64_t{1} << 40}),
      at::arange(-5, 5, at::kInt).reshape({2, 5}),
      at::arange(-300, 300, 7, at::kShort),
      at::arange(-128, 128, at::kChar).reshape({4, 8, 8}),
      at::arange(0, 256, at::kByte),
      at::randn({2, 7}).gt(0),
      at::scalar_tensor(-1.25, at::kDouble),
      at::zeros({0, 5}),
  };
  // With STEPSCOPE_IO_EXPORT_DIR set, keep the files for checking with numpy.load.
  const char* export_dir = std::getenv("STEPSCOPE_IO_EXPORT_DIR");
  for (size_t k = 0; k < tensors.size(); ++k) {
    SCOPED_TRACE(k);
    const std::string path = (export_dir && *export_dir ? std::string(export_dir) : iotest::temp_dir()) +
                             "/cpp_" + std::to_string(k) + ".npy";
    stepscope::write_npy_file(tensors[k], path);
    const at::Tensor back = stepscope::read_npy_file(path);
    EXPECT_EQ(back.scalar_type(), tensors[k].scalar_type());
    EXPECT_EQ(back.sizes(), tensors[k].sizes());
    EXPECT_TRUE(at::equal(back, tensors[k]));
    // numpy aligns the data to 64 bytes and ends the header with a newline.
    const std::string bytes = iotest::read_bytes(path);
    const size_t header_end = 10 + (static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8);
    EXPECT_EQ(header_end % 64, 0u);
    EXPECT_EQ(bytes[header_end - 1], '\n');
  }
}

TEST(NpyFile, RejectsUnsupportedArrays) {
  EXPECT_TRUE(contains(npy_error_of([] { stepscope::read_npy_file(iotest::data_path("bad_bigendian_f4.npy")); }),
                       "big-endian"));
  EXPECT_TRUE(contains(npy_error_of([] { stepscope::read_npy_file(iotest::data_path("bad_object.npy")); }), "object"));
  EXPECT_TRUE(contains(npy_error_of([] { stepscope::read_npy_file(iotest::data_path("bad_complex64.npy")); }),
                       "unsupported dtype"));
  EXPECT_TRUE(contains(npy_error_of([] { stepscope::write_npy_file(at::ones({2}, at::kBFloat16), tmp("bf16.npy")); }),
                       "BFloat16"));
}

TEST(NpyFile, RejectsBrokenFiles) {
  const std::string missing = tmp("missing.npy");
  EXPECT_TRUE(contains(npy_error_of([&] { stepscope::read_npy_file(missing); }), missing));

  const std::string good = iotest::read_bytes(iotest::data_path("f32_2x3.npy"));
  const std::string path = tmp("broken.npy");
  iotest::write_bytes(path, "PK\x03\x04 definitely not numpy");
  EXPECT_TRUE(contains(npy_error_of([&] { stepscope::read_npy_file(path); }), "bad magic"));
  iotest::write_bytes(path, good.substr(0, good.size() - 4));
  EXPECT_TRUE(contains(npy_error_of([&] { stepscope::read_npy_file(path); }), "truncated"));
  iotest::write_bytes(path, good.substr(0, 40));
  EXPECT_TRUE(contains(npy_error_of([&] { stepscope::read_npy_file(path); }), "truncated"));
  std::string bad_version = good;
  bad_version[6] = 9;
  iotest::write_bytes(path, bad_version);
  EXPECT_TRUE(contains(npy_error_of([&] { stepscope::read_npy_file(path); }), "version"));
}

// Random corruption must give an NpyError or a tensor, never a crash or a huge allocation.
TEST(NpyFile, FuzzedFilesNeverCrash) {
  const std::string good = iotest::read_bytes(iotest::data_path("fortran_i16_2x3x4.npy"));
  std::mt19937 rng(777);
  const std::string path = tmp("fuzz.npy");
  int rejected = 0;
  for (int iter = 0; iter < 500; ++iter) {
    std::string bytes = good;
    for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k) {
      const size_t pos = rng() % 128;  // mostly the header
      bytes[pos] = static_cast<char>(rng());
    }
    iotest::write_bytes(path, bytes);
    try {
      stepscope::read_npy_file(path);
    } catch (const NpyError&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 0);
}

// A header's shape is checked against the file's size before the array is allocated,
// so a 128-byte file claiming 4 TiB of floats (or more elements than int64 counts) is refused.
TEST(NpyFile, HugeShapeInASmallFileIsRefusedBeforeAllocating) {
  const auto npy_with_shape = [](const std::string& shape) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
    header.push_back('\n');  // numpy pads to 64 bytes; readers need not
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes.push_back(static_cast<char>(header.size() & 0xff));
    bytes.push_back(static_cast<char>(header.size() >> 8));
    return bytes + header + std::string(16, '\0');
  };
  const std::string path = tmp("huge_shape.npy");
  iotest::write_bytes(path, npy_with_shape("(1099511627776,)"));
  const std::string message = npy_error_of([&] { stepscope::read_npy_file(path); });
  EXPECT_TRUE(contains(message, "truncated data: expected 4398046511104 bytes, file has 16")) << message;
  iotest::write_bytes(path, npy_with_shape("(4294967296, 4294967296)"));
  EXPECT_TRUE(contains(npy_error_of([&] { stepscope::read_npy_file(path); }), "shape too large"));
  // The same header with its 16 bytes of data is read: the refusal is the size, not the form.
  iotest::write_bytes(path, npy_with_shape("(4,)"));
  EXPECT_EQ(stepscope::read_npy_file(path).numel(), 4);
}
