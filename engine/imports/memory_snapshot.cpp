#include "imports/memory_snapshot.h"

#include "imports/plain_pickle.h"
#include "io/input_file.h"

#include <array>
#include <filesystem>
#include <iterator>
#include <unordered_map>

namespace stepscope::imports {

namespace {

using Node = PlainPickle::Node;
constexpr Node kMissing = UINT32_MAX;
constexpr uint64_t kMostSnapshotBytes = uint64_t{1} << 30;

// PyTorch's name of each TraceAction but `other`, in the enum's order.
constexpr std::string_view kActionNames[] = {"alloc",        "free_requested", "free_completed",
                                             "segment_alloc", "segment_free",  "segment_map",
                                             "segment_unmap", "snapshot",      "oom"};
static_assert(std::size(kActionNames) == static_cast<size_t>(TraceAction::other), "a name per action");

// Where a value sits ("device_traces[0][12].size"), built only when an error names it.
struct Path {
  const Path* parent = nullptr;  // none: the pickle's top value
  const char* key = nullptr;     // a dict key; else an index
  size_t index = 0;

  Path at(const char* k) const { return Path{this, k, 0}; }
  Path at(size_t i) const { return Path{this, nullptr, i}; }
  std::string text() const {
    if (!parent) return std::string();
    std::string parent_text = parent->text();
    if (key) return parent_text.empty() ? std::string(key) : parent_text + "." + key;
    return parent_text + "[" + std::to_string(index) + "]";
  }
};

// "an int", "a list", "None": a type in a sentence.
std::string a_type(PlainKind kind) {
  if (kind == PlainKind::none) return "None";
  return std::string(kind == PlainKind::integer ? "an " : "a ") + python_type_name(kind);
}

[[noreturn]] void fail(const Path& path, const std::string& what) {
  const std::string where = path.text();
  throw MemorySnapshotError((where.empty() ? "the snapshot" : where) + ": " + what, where);
}

// A dict's values for a fixed set of keys. Dicts of one kind mostly repeat their keys in the
// same order, and memoized keys are the same node: a per-position cache of (key node, field)
// spares the string comparisons.
template <size_t N>
class Fields {
 public:
  explicit Fields(std::array<std::string_view, N> names) : names_(names) {}

  std::array<Node, N> of(const PlainPickle& p, Node dict, const Path& path) {
    std::array<Node, N> out;
    out.fill(kMissing);
    const PlainPickle::Items items = p.items(dict);
    size_t position = 0;
    for (const Node* it = items.begin(); it != items.end(); it += 2, ++position) {
      const int field = field_of(p, it[0], position, path);
      if (field >= 0) out[static_cast<size_t>(field)] = it[1];
    }
    return out;
  }

 private:
  int field_of(const PlainPickle& p, Node key, size_t position, const Path& path) {
    if (position < cache_.size() && cache_[position].first == key) return cache_[position].second;
    if (p.kind(key) != PlainKind::string) {
      fail(path, "a key is " + a_type(p.kind(key)) + ", not a str");
    }
    const std::string_view name = p.string(key);
    int field = -1;
    for (size_t f = 0; f < N; ++f) {
      if (names_[f] == name) field = static_cast<int>(f);
    }
    if (position < 64) {  // dicts of a snapshot have a dozen keys; bound the cache regardless
      if (cache_.size() <= position) cache_.resize(position + 1, {kMissing, -1});
      cache_[position] = {key, field};
    }
    return field;
  }

  std::array<std::string_view, N> names_;
  std::vector<std::pair<Node, int>> cache_;
};

struct FrameKey {
  std::string_view name, filename;
  int64_t line;
  bool operator==(const FrameKey& o) const { return line == o.line && name == o.name && filename == o.filename; }
};
struct FrameKeyHash {
  size_t operator()(const FrameKey& k) const {
    const size_t h = std::hash<std::string_view>()(k.name) * 31 + std::hash<std::string_view>()(k.filename);
    return h * 31 + std::hash<int64_t>()(k.line);
  }
};
struct StackHash {
  size_t operator()(const std::vector<uint32_t>& s) const {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t f : s) h = (h ^ f) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};

class Converter {
 public:
  explicit Converter(const PlainPickle& p) : p_(p) { out_.stacks.stacks.emplace_back(); }

  MemorySnapshot run() {
    const Path root;
    const Node top = p_.root();
    if (p_.kind(top) == PlainKind::list) {  // PyTorch 1.13: the segments alone
      segments(top, root.at("segments"));
      return std::move(out_);
    }
    if (p_.kind(top) != PlainKind::dict) {
      throw MemorySnapshotError("not a memory snapshot: the pickle holds " + a_type(p_.kind(top)) +
                                ", not a dict with segments");
    }
    const auto f = top_fields_.of(p_, top, root);
    if (f[0] == kMissing) {
      throw MemorySnapshotError("not a memory snapshot: the pickle's dict has no 'segments' key");
    }
    segments(f[0], root.at("segments"));
    if (f[1] != kMissing) traces(f[1], root.at("device_traces"));
    return std::move(out_);
  }

 private:
  // --- typed access ---------------------------------------------------------------------
  Node need(Node n, const Path& path) const {
    if (n == kMissing) fail(path, "missing (a required field)");
    return n;
  }
  void expect(Node n, PlainKind kind, const Path& path) const {
    if (p_.kind(n) != kind) {
      fail(path, "expected " + a_type(kind) + ", found " + a_type(p_.kind(n)));
    }
  }
  int64_t integer(Node n, const Path& path) const {
    expect(need(n, path), PlainKind::integer, path);
    return p_.integer(n);
  }
  int64_t size(Node n, const Path& path) const {
    const int64_t v = integer(n, path);
    if (v < 0) fail(path, "a negative size (" + std::to_string(v) + ")");
    return v;
  }
  std::string_view string(Node n, const Path& path) const {
    expect(need(n, path), PlainKind::string, path);
    return p_.string(n);
  }
  PlainPickle::Items list(Node n, const Path& path) const {
    expect(need(n, path), PlainKind::list, path);
    return p_.items(n);
  }

  // --- frames ---------------------------------------------------------------------------
  uint32_t frame(Node n, const Path& path) {
    auto cached = frame_by_node_.find(n);
    if (cached != frame_by_node_.end()) return cached->second;
    expect(n, PlainKind::dict, path);
    const auto f = frame_fields_.of(p_, n, path);
    const FrameKey key{string(f[0], path.at("name")), string(f[1], path.at("filename")),
                       integer(f[2], path.at("line"))};
    auto [it, inserted] = frame_by_content_.try_emplace(key, static_cast<uint32_t>(out_.stacks.frames.size()));
    if (inserted) out_.stacks.frames.push_back({std::string(key.name), std::string(key.filename), key.line});
    frame_by_node_.emplace(n, it->second);
    return it->second;
  }
  // The stack of a frames list; kMissing (absent) is the empty stack.
  uint32_t stack(Node n, const Path& path) {
    if (n == kMissing) return 0;
    auto cached = stack_by_node_.find(n);
    if (cached != stack_by_node_.end()) return cached->second;
    const PlainPickle::Items items = list(n, path);
    std::vector<uint32_t> frames;
    frames.reserve(items.size());
    size_t i = 0;
    for (Node f : items) frames.push_back(frame(f, path.at(i++)));
    uint32_t id = 0;
    if (!frames.empty()) {
      auto [it, inserted] = stack_by_content_.try_emplace(frames, static_cast<uint32_t>(out_.stacks.stacks.size()));
      if (inserted) out_.stacks.stacks.push_back(std::move(frames));
      id = it->second;
    }
    stack_by_node_.emplace(n, id);
    return id;
  }

  // --- segments -------------------------------------------------------------------------
  void segments(Node n, const Path& path) {
    const PlainPickle::Items items = list(n, path);
    out_.segments.reserve(items.size());
    size_t i = 0;
    for (Node s : items) out_.segments.push_back(segment(s, path.at(i++)));
  }

  SnapshotSegment segment(Node n, const Path& path) {
    expect(n, PlainKind::dict, path);
    const auto f = segment_fields_.of(p_, n, path);
    SnapshotSegment s;
    const int64_t device = integer(f[0], path.at("device"));
    if (device < 0 || device > 1 << 20) fail(path.at("device"), "not a device index (" + std::to_string(device) + ")");
    s.device = static_cast<int>(device);
    s.address = static_cast<uint64_t>(integer(f[1], path.at("address")));
    s.total_size = size(f[2], path.at("total_size"));
    s.allocated_size = size(f[3], path.at("allocated_size"));
    s.active_size = size(f[4], path.at("active_size"));
    s.stream = integer(f[5], path.at("stream"));
    const std::string_view type = string(f[6], path.at("segment_type"));
    s.pool = type == "small" ? SegmentPool::small : type == "large" ? SegmentPool::large : SegmentPool::unknown;
    if (f[8] != kMissing) s.requested_size = size(f[8], path.at("requested_size"));
    const Path blocks_path = path.at("blocks");
    const PlainPickle::Items blocks = list(f[7], blocks_path);
    s.blocks.reserve(blocks.size());
    uint64_t next_address = s.address;
    size_t i = 0;
    for (Node b : blocks) {
      s.blocks.push_back(block(b, blocks_path.at(i++), next_address));
      next_address = s.blocks.back().address + static_cast<uint64_t>(s.blocks.back().size);
    }
    return s;
  }

  SnapshotBlock block(Node n, const Path& path, uint64_t implied_address) {
    expect(n, PlainKind::dict, path);
    const auto f = block_fields_.of(p_, n, path);
    SnapshotBlock b;
    b.size = size(f[0], path.at("size"));
    const std::string_view state = string(f[1], path.at("state"));
    b.state = state == "active_allocated"      ? BlockState::active_allocated
              : state == "active_pending_free" ? BlockState::active_pending_free
              : state == "inactive"            ? BlockState::inactive
                                               : BlockState::unknown;
    b.address = f[2] != kMissing ? static_cast<uint64_t>(integer(f[2], path.at("address"))) : implied_address;
    // Before 2.1: the frames and requested size of the block's allocation are in its history.
    const Path history_list_path = path.at("history");
    const Path history_path = history_list_path.at(size_t{0});
    Node history_first = kMissing;
    if (f[5] != kMissing) {
      const PlainPickle::Items history = list(f[5], history_list_path);
      if (history.size() > 0) {
        history_first = *history.begin();
        expect(history_first, PlainKind::dict, history_path);
      }
    }
    const auto h = history_first != kMissing ? history_fields_.of(p_, history_first, history_path)
                                             : std::array<Node, 2>{kMissing, kMissing};
    if (f[3] != kMissing) {
      b.requested_size = size(f[3], path.at("requested_size"));
    } else if (history_first != kMissing) {
      b.requested_size = size(h[0], history_path.at("real_size"));
    } else {
      b.requested_size = b.size;
    }
    if (f[4] != kMissing) {
      b.stack = stack(f[4], path.at("frames"));
    } else if (history_first != kMissing) {
      b.stack = stack(h[1], history_path.at("frames"));
    }
    return b;
  }

  // --- traces ---------------------------------------------------------------------------
  void traces(Node n, const Path& path) {
    const PlainPickle::Items devices = list(n, path);
    out_.device_traces.resize(devices.size());
    size_t d = 0;
    for (Node t : devices) {
      const Path device_path = path.at(d);
      const PlainPickle::Items entries = list(t, device_path);
      std::vector<TraceEntry>& trace = out_.device_traces[d++];
      trace.reserve(entries.size());
      size_t i = 0;
      for (Node e : entries) trace.push_back(entry(e, device_path.at(i++)));
    }
  }

  TraceAction action(Node n, const Path& path, uint16_t& other_name) {
    // Actions are memoized strings: one node per name in a PyTorch pickle.
    auto cached = action_by_node_.find(n);
    if (cached != action_by_node_.end()) {
      other_name = cached->second.second;
      return cached->second.first;
    }
    const std::string_view name = string(n, path);
    TraceAction a = TraceAction::other;
    other_name = 0;
    for (size_t k = 0; k < std::size(kActionNames); ++k) {
      if (name == kActionNames[k]) a = static_cast<TraceAction>(k);
    }
    if (a == TraceAction::other) {
      size_t k = 0;
      while (k < out_.other_action_names.size() && out_.other_action_names[k] != name) ++k;
      if (k == out_.other_action_names.size()) {
        if (k >= 1000) fail(path, "more than 1000 distinct unknown actions");
        out_.other_action_names.emplace_back(name);
      }
      other_name = static_cast<uint16_t>(k);
    }
    action_by_node_.emplace(n, std::make_pair(a, other_name));
    return a;
  }

  TraceEntry entry(Node n, const Path& path) {
    expect(n, PlainKind::dict, path);
    const auto f = entry_fields_.of(p_, n, path);
    TraceEntry e;
    e.action = action(need(f[0], path.at("action")), path.at("action"), e.other_name);
    e.size = size(f[2], path.at("size"));
    if (e.action != TraceAction::oom) {
      e.address = static_cast<uint64_t>(integer(f[1], path.at("addr")));
    } else if (f[1] != kMissing) {
      e.address = static_cast<uint64_t>(integer(f[1], path.at("addr")));
    }
    if (f[3] != kMissing) e.stream = integer(f[3], path.at("stream"));
    if (f[4] != kMissing) e.time_us = integer(f[4], path.at("time_us"));
    e.stack = stack(f[5], path.at("frames"));
    return e;
  }

  const PlainPickle& p_;
  MemorySnapshot out_;
  Fields<2> top_fields_{{"segments", "device_traces"}};
  Fields<9> segment_fields_{{"device", "address", "total_size", "allocated_size", "active_size", "stream",
                             "segment_type", "blocks", "requested_size"}};
  Fields<6> block_fields_{{"size", "state", "address", "requested_size", "frames", "history"}};
  Fields<2> history_fields_{{"real_size", "frames"}};
  Fields<6> entry_fields_{{"action", "addr", "size", "stream", "time_us", "frames"}};
  Fields<3> frame_fields_{{"name", "filename", "line"}};
  std::unordered_map<Node, uint32_t> frame_by_node_;
  std::unordered_map<Node, uint32_t> stack_by_node_;
  std::unordered_map<FrameKey, uint32_t, FrameKeyHash> frame_by_content_;
  std::unordered_map<std::vector<uint32_t>, uint32_t, StackHash> stack_by_content_;
  std::unordered_map<Node, std::pair<TraceAction, uint16_t>> action_by_node_;
};

}  // namespace

MemorySnapshot parse_memory_snapshot(std::string_view pickle_bytes, const SnapshotProgress& progress) {
  PlainPickle pickle;
  try {
    pickle = PlainPickle::decode(pickle_bytes, progress);
  } catch (const PlainPickleError& e) {
    if (e.calls_python()) throw MemorySnapshotError(std::string("not a memory snapshot: ") + e.what());
    throw MemorySnapshotError(std::string("not a readable memory snapshot pickle: ") + e.what());
  }
  return Converter(pickle).run();
}

MemorySnapshot read_memory_snapshot(const std::string& path, const SnapshotProgress& progress) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  if (!ec && bytes > kMostSnapshotBytes) {
    throw MemorySnapshotError(path + " is " + input_size_text(bytes) + "; memory snapshots are read up to " +
                              input_size_text(kMostSnapshotBytes) + " (about 20 million trace entries)");
  }
  std::string data;
  try {
    data = read_input_file(path, "a memory snapshot", kMostSnapshotBytes);
  } catch (const InputFileError& e) {
    throw MemorySnapshotError(e.what());
  }
  try {
    return parse_memory_snapshot(data, progress);
  } catch (const MemorySnapshotError& e) {
    throw MemorySnapshotError(path + ": " + e.what(), e.path());
  }
}

std::string action_name(const MemorySnapshot& snapshot, const TraceEntry& entry) {
  if (entry.action != TraceAction::other) return std::string(kActionNames[static_cast<size_t>(entry.action)]);
  return entry.other_name < snapshot.other_action_names.size() ? snapshot.other_action_names[entry.other_name]
                                                                : "other";
}

}  // namespace stepscope::imports
