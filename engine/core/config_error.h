// A configuration that cannot run. `field` is the key of the input at fault ("batch",
// "d_model", an input schema's key), so a form can frame it and the CLI can name its option;
// empty when no one field is.
#pragma once

#include <stdexcept>
#include <string>

namespace stepscope {

class ConfigError : public std::invalid_argument {
 public:
  explicit ConfigError(const std::string& message, std::string field = {})
      : std::invalid_argument(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

}  // namespace stepscope
