// RFC 4180 CSV: fields with commas, quotes or line breaks are quoted, quotes doubled.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace stepscope {

class CsvWriter {
 public:
  explicit CsvWriter(std::ostream& out) : out_(out) {}
  void write_row(const std::vector<std::string>& fields);

 private:
  std::ostream& out_;
};

std::string csv_escape(const std::string& field);
// Shortest text that reads back as the same double; "" for NaN.
std::string format_number(double value);

}  // namespace stepscope
