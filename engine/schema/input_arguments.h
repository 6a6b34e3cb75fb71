// An experiment's inputs as command-line arguments, both ways: what stepscope-cli parses and
// what the app hands its worker processes. `--name value`, `--name=value`, switches for
// flags, comma lists for sweep axes.
#pragma once

#include <string>
#include <vector>

#include "schema/input_values.h"

namespace stepscope::schema {

struct ParsedArguments {
  InputValues values;
  bool help = false;  // --help or -h was among them
};

// Throws ConfigError for unknown, repeated and value-less options, and for values the schema
// refuses; the message names the option ("--batch: 'x' is not an integer", "unknown option
// '--x' for 'bench' (see stepscope-cli bench --help)") and the field is the input's key.
// Required inputs are checked unless --help is given.
ParsedArguments parse_arguments(const InputSchema& schema, const std::string& command,
                                const std::vector<std::string>& args);

// The given values as arguments that parse back to them, in the schema's order.
std::vector<std::string> to_arguments(const InputValues& values);

// "--batch: ": how a message about `field` starts on a command line; "" for no field.
std::string option_prefix(const std::string& field);

}  // namespace stepscope::schema
