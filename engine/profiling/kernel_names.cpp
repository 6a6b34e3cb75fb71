#include "profiling/kernel_names.h"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

namespace stepscope::profiling {

namespace {

constexpr size_t npos = std::string::npos;

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool ends_with(const std::string& s, size_t end, const char* suffix) {
  const std::string tail(suffix);
  return end >= tail.size() && s.compare(end - tail.size(), tail.size(), tail) == 0;
}

// A signature whose brackets can be matched: the characters of operator names
// ("operator<", "operator()") and of "->" are marked as plain text first.
class Signature {
 public:
  explicit Signature(std::string text) : s_(std::move(text)), literal_(s_.size(), false) {
    for (size_t i = 0; i + 1 < s_.size(); ++i) {
      if (s_[i] == '-' && s_[i + 1] == '>') literal_[i] = literal_[i + 1] = true;
    }
    for (size_t i = s_.find("operator"); i != npos; i = s_.find("operator", i + 1)) {
      if ((i > 0 && is_ident(s_[i - 1])) || (i + 8 < s_.size() && is_ident(s_[i + 8]))) continue;
      size_t j = i + 8;
      while (j < s_.size() && s_[j] == ' ') ++j;  // "operator new[]"
      if (s_.compare(j, 3, "new") == 0) j += 3;
      if (s_.compare(j, 6, "delete") == 0) j += 6;
      if (s_.compare(j, 2, "()") == 0 || s_.compare(j, 2, "[]") == 0) {
        literal_[j] = literal_[j + 1] = true;
        continue;
      }
      for (size_t k = j; k < s_.size() && k < j + 3 && std::string("<>=!+-*/%^&|~,").find(s_[k]) != npos; ++k) {
        literal_[k] = true;
      }
    }
  }

  const std::string& text() const { return s_; }

  // +1 for an opening bracket, -1 for a closing one, 0 for anything else.
  int bracket(size_t i) const {
    if (literal_[i]) return 0;
    switch (s_[i]) {
      case '(': case '<': case '[': case '{': return 1;
      case ')': case '>': case ']': case '}': return -1;
      default: return 0;
    }
  }

  bool balanced() const {
    long depth = 0;
    for (size_t i = 0; i < s_.size(); ++i) {
      depth += bracket(i);
      if (depth < 0) return false;
    }
    return depth == 0;
  }

  // The opening bracket that the closing one at `close` ends, not before `begin`.
  size_t match_backward(size_t begin, size_t close) const {
    long depth = 0;
    for (size_t i = close + 1; i-- > begin;) {
      depth -= bracket(i);
      if (depth == 0) return i;
    }
    return npos;
  }

  // Trailing spaces and qualifiers off [begin, end).
  size_t trim_end(size_t begin, size_t end) const {
    for (bool changed = true; changed;) {
      changed = false;
      while (end > begin && s_[end - 1] == ' ') --end, changed = true;
      for (const char* q : {" const", " volatile", " noexcept", " &&", " &", "*"}) {
        if (end - begin > std::string(q).size() && ends_with(s_, end, q) && !literal_[end - 1]) {
          end -= std::string(q).size();
          changed = true;
        }
      }
    }
    return end;
  }

  // If [begin, end) ends with the bracket `close`, the position of its opening bracket.
  size_t trailing_group(size_t begin, size_t end, char close) const {
    if (end <= begin || s_[end - 1] != close || bracket(end - 1) != -1) return npos;
    const size_t open = match_backward(begin, end - 1);
    return open != npos && open > begin ? open : npos;
  }

  // Where the qualified name that ends at `end` starts: after the last top-level space.
  size_t name_start(size_t begin, size_t end) const {
    long depth = 0;
    for (size_t i = end; i-- > begin;) {
      depth -= bracket(i);
      if (depth == 0 && s_[i] == ' ' && !ends_with(s_, i, "operator")) return i + 1;
    }
    return begin;
  }

  // [begin, end) cut at top-level separators.
  std::vector<std::pair<size_t, size_t>> split(size_t begin, size_t end, const std::string& sep) const {
    std::vector<std::pair<size_t, size_t>> parts;
    long depth = 0;
    size_t from = begin;
    for (size_t i = begin; i < end; ++i) {
      depth += bracket(i);
      if (depth == 0 && i + sep.size() <= end && s_.compare(i, sep.size(), sep) == 0) {
        parts.emplace_back(from, i);
        from = i + sep.size();
        i = from - 1;
      }
    }
    parts.emplace_back(from, end);
    return parts;
  }

  // A component without its template arguments, argument list or ABI tag: "Foo<int>" -> "Foo".
  std::string bare(size_t begin, size_t end) const {
    while (begin < end && s_[begin] == ' ') ++begin;
    for (bool changed = true; changed;) {
      changed = false;
      end = trim_end(begin, end);
      for (char close : {')', '>', ']'}) {
        const size_t open = trailing_group(begin, end, close);
        if (open == npos || (close == ']' && s_.compare(open, 5, "[abi:") != 0)) continue;
        end = open;
        changed = true;
      }
    }
    return s_.substr(begin, end - begin);
  }

 private:
  std::string s_;
  std::vector<bool> literal_;
};

struct ParsedName {
  std::vector<std::string> scopes;  // enclosing namespaces and classes, bare
  std::string name;                 // the function, bare
  std::string template_args;        // the function's, without the outer brackets
};

bool looks_like_signature(const std::string& s) {
  if (s.find("::") != npos || s.find('<') != npos) return true;
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '(' && (is_ident(s[i - 1]) || s[i - 1] == '>')) return true;
  }
  return false;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// False for text that is not a balanced C++ name, which callers return as it is.
bool parse(const std::string& text, ParsedName& out) {
  const Signature sig(text);
  if (!sig.balanced()) return false;
  const std::string& s = sig.text();
  size_t end = sig.trim_end(0, s.size());
  if (size_t open = sig.trailing_group(0, end, ')'); open != npos) end = sig.trim_end(0, open);
  if (size_t open = sig.trailing_group(0, end, '>'); open != npos) {
    out.template_args = s.substr(open + 1, end - open - 2);
    end = sig.trim_end(0, open);
  }
  const auto parts = sig.split(sig.name_start(0, end), end, "::");
  for (size_t i = 0; i + 1 < parts.size(); ++i) out.scopes.push_back(sig.bare(parts[i].first, parts[i].second));
  out.name = sig.bare(parts.back().first, parts.back().second);
  return !out.name.empty();
}

bool is_generic_wrapper(const std::string& name) {
  std::string n;
  for (char c : name) n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n.compare(0, 7, "device_") == 0) n.erase(0, 7);
  if (n.compare(0, 6, "kernel") != 0) return false;
  for (size_t i = 6; i < n.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(n[i]))) return false;
  }
  return true;
}

// The first template argument that names a type, shortened: "cutlass::gemm::X<...>" -> "X";
// through nested wrappers to the innermost: "Kernel2<X<int> >" -> "X".
std::string informative_arg(const std::string& template_args, int depth) {
  const Signature sig(template_args);
  if (depth > 8 || !sig.balanced()) return "";
  for (const auto& [b, e] : sig.split(0, template_args.size(), ",")) {
    const std::string arg = trim(template_args.substr(b, e - b));
    if (arg.empty() || !(std::isalpha(static_cast<unsigned char>(arg[0])) || arg[0] == '_')) continue;
    if (arg == "true" || arg == "false" || arg == "nullptr") continue;
    ParsedName type;
    if (!parse(arg, type) || type.name[0] == '{') continue;
    if (!is_generic_wrapper(type.name)) return type.name;
    const std::string inner = informative_arg(type.template_args, depth + 1);
    return inner.empty() ? type.name : inner;
  }
  return "";
}

// The function name, with the informative template argument after a generic wrapper.
std::string with_informative_arg(const std::string& name, const std::string& template_args) {
  if (template_args.empty() || !is_generic_wrapper(name)) return name;
  const std::string inner = informative_arg(template_args, 0);
  return inner.empty() ? name : name + "<" + inner + ">";
}

// Lambdas, unnamed types and operators need their enclosing component to mean anything.
bool needs_parent(const std::string& name) {
  if (name[0] == '{') return true;
  return name.compare(0, 8, "operator") == 0 && (name.size() == 8 || !is_ident(name[8]));
}

}  // namespace

std::string demangle_kernel_name(const std::string& mangled) {
  if (mangled.compare(0, 2, "_Z") != 0) return mangled;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                              std::free);
  if (status != 0 || !text) return mangled;
  try {
    return std::string(text.get());
  } catch (...) {
    return mangled;
  }
}

std::string short_kernel_name(const std::string& demangled) {
  const std::string text = trim(demangled);
  ParsedName parsed;
  if (!looks_like_signature(text) || !parse(text, parsed)) return text;
  if (needs_parent(parsed.name) && !parsed.scopes.empty()) return parsed.scopes.back() + "::" + parsed.name;
  return with_informative_arg(parsed.name, parsed.template_args);
}

std::string qualified_kernel_name(const std::string& demangled) {
  const std::string text = trim(demangled);
  ParsedName parsed;
  if (!looks_like_signature(text) || !parse(text, parsed)) return text;
  std::string qualified;
  for (const auto& scope : parsed.scopes) qualified += scope + "::";
  return qualified + with_informative_arg(parsed.name, parsed.template_args);
}

const char* memory_activity_name(MemoryOperation operation) {
  switch (operation) {
    case MemoryOperation::copy_host_to_device: return "[CUDA memcpy Host-to-Device]";
    case MemoryOperation::copy_device_to_host: return "[CUDA memcpy Device-to-Host]";
    case MemoryOperation::copy_device_to_device: return "[CUDA memcpy Device-to-Device]";
    case MemoryOperation::copy_other: return "[CUDA memcpy]";
    case MemoryOperation::set: return "[CUDA memset]";
  }
  return "[CUDA memcpy]";
}

}  // namespace stepscope::profiling
