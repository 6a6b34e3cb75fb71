// The usage text of a command whose options are an InputSchema: the synopsis, what it does,
// then its options by group, each with its value, help and default.
#pragma once

#include <string>

#include "schema/input_field.h"

namespace stepscope::schema {

struct UsageText {
  std::string synopsis;     // "stepscope-cli attention [options]" (more lines after "\n")
  std::string description;  // a paragraph, lines ending in "\n"
  std::string epilogue;     // after the options: exit statuses, notes
};

std::string usage_text(const InputSchema& schema, const UsageText& text);
// "--d N[,N...]", "--causal", "--csv FILE": how the usage spells an option.
std::string option_synopsis(const InputField& field);

}  // namespace stepscope::schema
