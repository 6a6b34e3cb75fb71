// A temporary file name of the running test's own: ctest runs tests in parallel, so two
// tests must never share a scratch file.
#pragma once

#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

namespace stepscope::testing {

inline std::string temp_path(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string tag = info ? std::string(info->test_suite_name()) + "." + info->name() : "no-test";
  for (char& c : tag) {
    if (c == '/') c = '_';
  }
  return ::testing::TempDir() + "/stepscope-" + std::to_string(getpid()) + "-" + tag + "-" + name;
}

}  // namespace stepscope::testing
