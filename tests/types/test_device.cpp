// Device: the parsed value configurations carry, and its text at the edges (inputs, run
// records, CSV, argv), which must round-trip exactly.
#include <gtest/gtest.h>

#include <string>

#include "core/config_error.h"
#include "core/device.h"

namespace stepscope {
namespace {

TEST(Device, TextRoundTripsExactly) {
  for (const std::string text : {"cpu", "cuda", "cuda:0", "cuda:1", "cuda:999"}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(to_string(parse_device(text)), text);
  }
}

TEST(Device, ParsedValues) {
  EXPECT_EQ(parse_device("cpu"), (Device{DeviceKind::cpu, -1}));
  EXPECT_EQ(parse_device("cuda"), (Device{DeviceKind::cuda, -1}));  // the current GPU: no index
  EXPECT_EQ(parse_device("cuda:1"), (Device{DeviceKind::cuda, 1}));
  EXPECT_NE(parse_device("cuda"), parse_device("cuda:0"));  // "cuda" is written back as "cuda"
  EXPECT_TRUE(Device{}.is_cpu());  // a configuration's default
  EXPECT_EQ(Device{}.ordinal(), -1);
  EXPECT_EQ(parse_device("cuda").ordinal(), 0);
  EXPECT_EQ(parse_device("cuda:3").ordinal(), 3);
}

TEST(Device, MalformedTextNamesTheDeviceField) {
  for (const std::string text : {"", "tpu", "gpu0", "cuda:", "cuda:x", "cuda:-1", "cuda:1000", "CPU", " cuda"}) {
    SCOPED_TRACE(text);
    try {
      parse_device(text);
      ADD_FAILURE() << "accepted";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.field(), "device");
    }
  }
}

}  // namespace
}  // namespace stepscope
