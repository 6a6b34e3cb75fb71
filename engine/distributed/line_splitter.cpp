#include "distributed/line_splitter.h"

namespace stepscope::distributed {

void LineSplitter::feed(std::string_view bytes, const std::function<void(const std::string&)>& emit) {
  while (!bytes.empty()) {
    const size_t newline = bytes.find('\n');
    const size_t take = newline == std::string_view::npos ? bytes.size() : newline;
    const size_t room = kMaxLineBytes - pending_.size();
    if (take > room) {  // an overlong line: hand on a full piece
      pending_.append(bytes.substr(0, room));
      bytes.remove_prefix(room);
      emit(pending_);
      pending_.clear();
      continue;
    }
    pending_.append(bytes.substr(0, take));
    if (newline == std::string_view::npos) return;
    bytes.remove_prefix(take + 1);
    emit(pending_);
    pending_.clear();
  }
}

void LineSplitter::finish(const std::function<void(const std::string&)>& emit) {
  if (pending_.empty()) return;
  emit(pending_);
  pending_.clear();
}

void LineTail::push(const std::string& line) {
  if (capacity_ == 0) return;
  if (lines_.size() == capacity_) lines_.pop_front();
  lines_.push_back(line);
}

}  // namespace stepscope::distributed
