// The input schema: values checked as they are set, read typed, as argv both ways, and the
// usage written from the declarations. Messages are those stepscope-cli has always printed.
#include <gtest/gtest.h>

#include "core/config_error.h"
#include "schema/input_arguments.h"
#include "schema/input_usage.h"
#include "schema/input_values.h"

namespace stepscope::schema {
namespace {

InputSchema demo_schema() {
  std::vector<InputField> f;
  f.push_back({"batch", "Batch", InputKind::integer, "batch size", "4", false, "run", "N"});
  f.push_back({"seq", "Sequences", InputKind::integer, "sequence length", "256,1024", true, "run", "N"});
  f.back().max_integer = 65536;
  f.push_back({"precision", "Precision", InputKind::choice, "fp32 or bf16", "fp32", true, "run", "P"});
  f.back().choices = {"fp32", "bf16"};
  f.back().noun = "precision";
  f.push_back({"sizes", "Sizes", InputKind::size, "bytes", "1MB", true, "run", "S"});
  f.push_back({"peak", "Peak", InputKind::number, "a peak", "", false, "run", "X"});
  f.push_back({"causal", "Causal", InputKind::flag, "a causal mask", "", false, "run", ""});
  f.push_back({"out", "Output", InputKind::path, "where", "", false, "output", "F"});
  f.back().required = true;
  f.push_back({"secret", "", InputKind::flag, "for workers", "", false, "output", ""});
  f.back().hidden = true;
  return {f};
}

const InputSchema& demo() {
  static const InputSchema schema = demo_schema();
  return schema;
}

std::string error_setting(const std::string& key, const std::string& text) {
  InputValues v(demo());
  try {
    v.set(key, text);
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), key);
    return e.what();
  }
  return "<no error>";
}

std::string error_parsing(const std::vector<std::string>& args) {
  try {
    parse_arguments(demo(), "demo", args);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(InputValues, RangesInASweepAxisExpand) {
  InputValues v(demo());
  v.set("seq", "256..4096 x2");
  EXPECT_EQ(v.integers("seq"), (std::vector<int64_t>{256, 512, 1024, 2048, 4096}));
  v.set("seq", "1..4");
  EXPECT_EQ(v.integers("seq"), (std::vector<int64_t>{1, 2, 3, 4}));
  v.set("seq", "8..30 +8, 100");  // the end is never passed; ranges mix with items
  EXPECT_EQ(v.integers("seq"), (std::vector<int64_t>{8, 16, 24, 100}));
  v.set("seq", "3..100 *4");
  EXPECT_EQ(v.integers("seq"), (std::vector<int64_t>{3, 12, 48}));
  v.set("sizes", "1KiB..1MiB x32");
  EXPECT_EQ(v.sizes("sizes"), (std::vector<int64_t>{1024, 32768, 1048576}));
}

TEST(InputValues, RangesRefusedWithTheFieldNamed) {
  EXPECT_EQ(error_setting("seq", "4096..256 x2"), "range '4096..256 x2' ends below its start");
  EXPECT_EQ(error_setting("seq", "1..8 x1"), "range '1..8 x1' needs a factor of at least 2 or a step of at least 1");
  EXPECT_EQ(error_setting("seq", "1..8 y2"),
            "'1..8 y2' is not a range (use FIRST..LAST, FIRST..LAST xFACTOR or FIRST..LAST +STEP)");
  EXPECT_EQ(error_setting("seq", "..8"),
            "'..8' is not a range (use FIRST..LAST, FIRST..LAST xFACTOR or FIRST..LAST +STEP)");
  EXPECT_EQ(error_setting("seq", "a..8"), "'a' in range 'a..8' is not an integer");
  EXPECT_EQ(error_setting("seq", "1..65536"), "range '1..65536' gives more than 1000 values");
  EXPECT_EQ(error_setting("seq", "1024..131072 x2"), "at most 65536 (got 131072)");  // each value checked
  EXPECT_EQ(error_setting("batch", "1..4"), "'1..4': a range needs a field that takes a list");
  EXPECT_EQ(error_setting("precision", "fp32..bf16"), "unknown precision 'fp32..bf16' (use fp32 or bf16)");
  InputValues v(demo());
  v.set("out", "export/../run.json");  // a path is text
  EXPECT_EQ(v.text("out"), "export/../run.json");
}

TEST(InputValues, DefaultsUntilGivenThenTyped) {
  InputValues v(demo());
  EXPECT_FALSE(v.given("batch"));
  EXPECT_EQ(v.integer("batch"), 4);
  EXPECT_EQ(v.integers("seq"), (std::vector<int64_t>{256, 1024}));
  EXPECT_EQ(v.sizes("sizes"), std::vector<int64_t>{1000000});
  EXPECT_FALSE(v.flag("causal"));
  v.set("seq", " 16, 32 ,64");
  EXPECT_EQ(v.text("seq"), "16,32,64");  // kept as typed, without the spaces
  v.set("sizes", "4KiB,2MB");
  EXPECT_EQ(v.sizes("sizes"), (std::vector<int64_t>{4096, 2000000}));
  v.set("peak", "989.5");
  EXPECT_DOUBLE_EQ(v.number("peak"), 989.5);
  v.set_flag("causal", true);
  EXPECT_TRUE(v.flag("causal"));
  v.clear("seq");
  EXPECT_EQ(v.text("seq"), "256,1024");
  EXPECT_EQ(v.given_values(), (std::vector<std::pair<std::string, std::string>>{
                                  {"sizes", "4KiB,2MB"}, {"peak", "989.5"}, {"causal", ""}}));
}

TEST(InputValues, EveryMistakeNamesTheFieldAndWhatIsWrong) {
  EXPECT_EQ(error_setting("batch", "12x"), "'12x' is not an integer");
  EXPECT_EQ(error_setting("batch", "0"), "0 is too small (at least 1)");
  EXPECT_EQ(error_setting("batch", "99999999999999999999"), "'99999999999999999999' is not an integer");
  EXPECT_EQ(error_setting("batch", "1,2"), "'1,2' is not an integer");  // one value, not a list
  EXPECT_EQ(error_setting("seq", "1,,2"), "empty item in list '1,,2'");
  EXPECT_EQ(error_setting("seq", "1,"), "empty item in list '1,'");
  EXPECT_EQ(error_setting("seq", "70000"), "at most 65536 (got 70000)");
  EXPECT_EQ(error_setting("precision", "fp8"), "unknown precision 'fp8' (use fp32 or bf16)");
  EXPECT_EQ(error_setting("sizes", "1TB"),
            "'1TB' is not a size (use bytes, or a number with KB, MB, GB, KiB, MiB or GiB)");
  EXPECT_EQ(error_setting("peak", "-3"), "'-3' is not a positive number");
  EXPECT_EQ(error_setting("peak", "inf"), "'inf' is not a positive number");
  EXPECT_EQ(error_setting("batch", "  "), "needs a value");
}

TEST(InputValues, AFieldsOwnCheckSpeaksForIt) {
  InputField field{"model", "Model", InputKind::choice, "", "a", false, "run", "M"};
  field.choices = {"a", "b"};
  field.check = [](const std::string& t) {
    if (t != "a" && t != "b") throw ConfigError("unknown model '" + t + "' (known: a, b)");
  };
  try {
    check_input_item(field, "c");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "unknown model 'c' (known: a, b)");
    EXPECT_EQ(e.field(), "model");
  }
}

TEST(InputArguments, ParsesWhatTheCliAlwaysAccepted) {
  const auto parsed = parse_arguments(demo(), "demo", {"--batch", "8", "--seq=16,32", "--causal", "--out", "o.csv"});
  EXPECT_FALSE(parsed.help);
  EXPECT_EQ(parsed.values.integer("batch"), 8);
  EXPECT_EQ(parsed.values.integers("seq"), (std::vector<int64_t>{16, 32}));
  EXPECT_TRUE(parsed.values.flag("causal"));
  EXPECT_EQ(parsed.values.text("out"), "o.csv");
  EXPECT_TRUE(parse_arguments(demo(), "demo", {"-h"}).help);
  EXPECT_TRUE(parse_arguments(demo(), "demo", {"--help"}).help);  // no --out needed for help
}

TEST(InputArguments, EveryMistakeNamesTheOption) {
  EXPECT_EQ(error_parsing({"--frob"}), "unknown option '--frob' for 'demo' (see stepscope-cli demo --help)");
  EXPECT_EQ(error_parsing({"extra"}), "unexpected argument 'extra' for 'demo' (options start with --)");
  EXPECT_EQ(error_parsing({"--batch"}), "option --batch needs a value");
  EXPECT_EQ(error_parsing({"--batch", "--seq", "3"}), "option --batch needs a value");
  EXPECT_EQ(error_parsing({"--batch", ""}), "option --batch has an empty value");
  EXPECT_EQ(error_parsing({"--batch", "3", "--batch", "4"}), "option --batch is given twice");
  EXPECT_EQ(error_parsing({"--causal=yes"}), "option --causal takes no value");
  EXPECT_EQ(error_parsing({"--batch", "x", "--out", "o"}), "--batch: 'x' is not an integer");
  EXPECT_EQ(error_parsing({"--batch", "3"}), "--out is required");
}

TEST(InputArguments, ValuesGoToArgvAndBackUnchanged) {
  InputValues v(demo());
  v.set("seq", "16,32");
  v.set("precision", "bf16,fp32");
  v.set("sizes", "1MiB");
  v.set_flag("causal", true);
  v.set("out", "a b.csv");  // one argument, spaces and all
  v.set_flag("secret", true);
  const auto args = to_arguments(v);
  EXPECT_EQ(args, (std::vector<std::string>{"--seq", "16,32", "--precision", "bf16,fp32", "--sizes", "1MiB",
                                            "--causal", "--out", "a b.csv", "--secret"}));
  const auto back = parse_arguments(demo(), "demo", args);
  EXPECT_EQ(back.values, v);
}

TEST(InputUsage, ListsEveryOptionByGroupWithItsDefault) {
  const std::string usage = usage_text(demo(), {"stepscope-cli demo [options]", "Does a demo.\n", "Exit status: 0.\n"});
  EXPECT_EQ(usage.rfind("usage: stepscope-cli demo [options]\n\nDoes a demo.\n\nrun:\n", 0), 0u) << usage;
  EXPECT_NE(usage.find("  --seq N[,N...]             sequence length (default 256,1024)\n"), std::string::npos)
      << usage;
  EXPECT_NE(usage.find("  --causal                   a causal mask\n"), std::string::npos) << usage;
  EXPECT_NE(usage.find("\noutput:\n  --out F                    where (required)\n"), std::string::npos) << usage;
  EXPECT_EQ(usage.find("--secret"), std::string::npos) << usage;
  EXPECT_NE(usage.find("\nExit status: 0.\n"), std::string::npos) << usage;
}

}  // namespace
}  // namespace stepscope::schema
