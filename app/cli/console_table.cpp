#include "cli/console_table.h"

#include <algorithm>
#include <string>
#include <vector>

#include "schema/value_format.h"

namespace stepscope::cli {

namespace {

// Characters a terminal shows, counting a UTF-8 sequence ("±") as one.
size_t width_of(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string padded(const std::string& text, size_t width, bool right) {
  const std::string pad(width > width_of(text) ? width - width_of(text) : 0, ' ');
  return right ? pad + text : text + pad;
}

constexpr size_t kNoteLimit = 200;

}  // namespace

void print_table(std::ostream& out, const schema::Table& table) {
  std::vector<size_t> shown, notes;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    const auto role = table.columns[c].role;
    if (role == schema::ColumnRole::note) notes.push_back(c);
    if (role == schema::ColumnRole::identity || role == schema::ColumnRole::measure) shown.push_back(c);
  }
  std::vector<std::vector<std::string>> cells(table.rows.size());
  std::vector<size_t> widths;
  for (size_t c : shown) widths.push_back(width_of(schema::header_text(table.columns[c])));
  for (size_t r = 0; r < table.rows.size(); ++r) {
    for (size_t i = 0; i < shown.size(); ++i) {
      cells[r].push_back(schema::display_cell(table, r, shown[i]));
      widths[i] = std::max(widths[i], width_of(cells[r].back()));
    }
  }
  const auto line = [&](const std::vector<std::string>& texts) {
    std::string text;
    for (size_t i = 0; i < shown.size(); ++i) {
      const bool right = schema::is_numeric(table.columns[shown[i]].kind);
      text += (i ? "  " : "") + padded(texts[i], widths[i], right);
    }
    out << text << '\n';
  };
  std::vector<std::string> header;
  for (size_t c : shown) header.push_back(schema::header_text(table.columns[c]));
  line(header);
  for (size_t r = 0; r < table.rows.size(); ++r) {
    line(cells[r]);
    for (size_t c : notes) {
      const std::string& note = schema::text_of(table.rows[r][c]);
      if (!note.empty()) out << "    " << note.substr(0, kNoteLimit) << '\n';
    }
  }
}

}  // namespace stepscope::cli
