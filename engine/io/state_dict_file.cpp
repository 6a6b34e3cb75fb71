#include "io/state_dict_file.h"
#include "io/input_path.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <optional>
#include <unordered_map>

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <caffe2/serialize/inline_container.h>

#include "io/pickle_reader.h"
#include "io/torch_storage_types.h"
#include "io/zip_directory.h"

namespace stepscope {
namespace {

using pickle::Kind;
using pickle::PickleError;
using pickle::Value;
using pickle::ValuePtr;

struct StorageRef {
  std::string key;
  std::string type;                       // "DoubleStorage": what the pickle says the record holds
  std::optional<at::ScalarType> dtype;    // none for a class we do not know: refused by tensor name
  int64_t numel;
};

struct TensorSpec {
  size_t storage;
  int64_t offset;
  std::vector<int64_t> size, stride;
};

bool is_global(const Value& v, const char* module, const char* name) {
  return v.kind == Kind::Global && v.s == module && v.name == name;
}

int64_t as_int(const Value& v, const char* what) {
  if (v.kind != Kind::Int) throw PickleError(std::string(what) + " must be an int, got " + pickle::describe(v));
  return v.i;
}

std::vector<int64_t> as_int_tuple(const Value& v, const char* what) {
  if (v.kind != Kind::Tuple) throw PickleError(std::string(what) + " must be a tuple, got " + pickle::describe(v));
  std::vector<int64_t> out;
  for (const auto& item : v.items) out.push_back(as_int(*item, what));
  return out;
}

// Interprets the state_dict pickle; keeps storages and tensors in side tables.
class StateDictPickle {
 public:
  pickle::Hooks hooks() {
    pickle::Hooks h;
    h.find_global = [](const std::string& module, const std::string& name) { return find_global(module, name); };
    h.reduce = [this](const Value& fn, const Value& args) { return reduce(fn, args); };
    h.build = [](Value& obj, const Value& state) {
      // OrderedDict state ({'_metadata': ...}) only carries module versions.
      if (obj.kind != Kind::Dict || state.kind != Kind::Dict)
        throw PickleError("BUILD of " + pickle::describe(obj) + " with " + pickle::describe(state) + " is not supported");
    };
    h.persistent_load = [this](const Value& pid) { return persistent_load(pid); };
    return h;
  }

  std::vector<StorageRef> storages;
  std::vector<TensorSpec> tensors;

 private:
  static ValuePtr find_global(const std::string& module, const std::string& name) {
    // Any torch.<X>Storage is taken here and judged once a state_dict key uses it, so that the
    // refusal of an unknown class names the tensor.
    const bool storage_class = module == "torch" && name.size() > 7 && name.compare(name.size() - 7, 7, "Storage") == 0;
    const bool ok = (module == "collections" && name == "OrderedDict") ||
                    (module == "torch._utils" && (name == "_rebuild_tensor_v2" || name == "_rebuild_parameter")) ||
                    storage_class;
    if (!ok)
      throw PickleError("unsupported global '" + module + "." + name +
                        "' (only plain state_dicts of tensors can be loaded)");
    return pickle::make_global(module, name);
  }

  ValuePtr reduce(const Value& fn, const Value& args) {
    const auto& a = args.items;
    if (is_global(fn, "collections", "OrderedDict")) {
      if (!a.empty()) throw PickleError("OrderedDict(...) with arguments is not supported");
      return std::make_shared<Value>(Kind::Dict);
    }
    if (is_global(fn, "torch._utils", "_rebuild_parameter")) {
      if (a.size() != 3 || a[0]->kind != Kind::Object || a[0]->s != "tensor")
        throw PickleError("_rebuild_parameter expects (tensor, requires_grad, hooks)");
      return pickle::make_object("tensor", a[0]->i);
    }
    if (!is_global(fn, "torch._utils", "_rebuild_tensor_v2"))
      throw PickleError("cannot call " + pickle::describe(fn));
    // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
    if (a.size() != 6 && a.size() != 7)
      throw PickleError("_rebuild_tensor_v2 expects 6 or 7 arguments, got " + std::to_string(a.size()));
    if (a[0]->kind != Kind::Object || a[0]->s != "storage")
      throw PickleError("_rebuild_tensor_v2 storage argument is " + pickle::describe(*a[0]));
    TensorSpec t;
    t.storage = static_cast<size_t>(a[0]->i);
    t.offset = as_int(*a[1], "storage_offset");
    t.size = as_int_tuple(*a[2], "tensor size");
    t.stride = as_int_tuple(*a[3], "tensor stride");
    if (a[4]->kind != Kind::Bool) throw PickleError("requires_grad must be a bool");
    if (a[5]->kind != Kind::Dict) throw PickleError("backward_hooks must be an OrderedDict");
    if (a.size() == 7 && a[6]->kind != Kind::Dict && a[6]->kind != Kind::None)
      throw PickleError("tensor metadata must be a dict");
    tensors.push_back(std::move(t));
    return pickle::make_object("tensor", static_cast<int64_t>(tensors.size() - 1));
  }

  ValuePtr persistent_load(const Value& pid) {
    // ('storage', torch.<Type>Storage, key, location, numel)
    const auto& p = pid.items;
    if (pid.kind != Kind::Tuple || p.size() != 5 || p[0]->kind != Kind::String || p[0]->s != "storage")
      throw PickleError("unsupported persistent id " + pickle::describe(pid));
    if (p[1]->kind != Kind::Global || p[1]->s != "torch") throw PickleError("persistent id has no storage type");
    if (p[2]->kind != Kind::String || p[2]->s.empty() || p[2]->s.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-.") != std::string::npos)
      throw PickleError("invalid storage key");
    if (p[3]->kind != Kind::String) throw PickleError("storage location must be a string");
    const int64_t numel = as_int(*p[4], "storage numel");
    if (numel < 0) throw PickleError("negative storage numel");
    const std::string& type = p[1]->name;
    auto it = by_key_.find(p[2]->s);
    if (it == by_key_.end()) {
      it = by_key_.emplace(p[2]->s, storages.size()).first;
      storages.push_back({p[2]->s, type, dtype_for_storage_name(type), numel});
    } else if (storages[it->second].type != type || storages[it->second].numel != numel) {
      throw PickleError("storage '" + p[2]->s + "' is used with two different types or sizes");
    }
    return pickle::make_object("storage", static_cast<int64_t>(it->second));
  }

  std::unordered_map<std::string, size_t> by_key_;
};

// Fails early with a clear message for files PyTorchStreamReader would reject cryptically.
void check_file_kind(const std::string& path) {
  if (const auto folder = folder_instead_of(path, "a checkpoint file"); !folder.empty()) throw CheckpointError(folder);
  std::ifstream f(path, std::ios::binary);
  if (!f) throw CheckpointError(path + ": cannot open file (" + std::strerror(errno) + ")");
  char head[512] = {};
  f.read(head, sizeof head);
  const std::streamsize n = f.gcount();
  if (n == 0) throw CheckpointError(path + ": file is empty");
  if (n >= 4 && std::memcmp(head, "PK\x03\x04", 4) == 0) return;
  if (n >= 2 && static_cast<unsigned char>(head[0]) == 0x80 && static_cast<unsigned char>(head[1]) == 0x02)
    throw CheckpointError(path + ": legacy (pre-1.6, non-zip) torch.save format is not supported; "
                          "re-save it with a current PyTorch");
  if (n >= 262 && std::memcmp(head + 257, "ustar", 5) == 0)
    throw CheckpointError(path + ": legacy tar torch.save format is not supported");
  throw CheckpointError(path + ": not a PyTorch checkpoint (not a zip archive)");
}

// "tensor 'w' (storage '0', DoubleStorage of 12 elements)": how a refusal names what it refuses.
std::string tensor_text(const std::string& name, const StorageRef& s) {
  return "tensor '" + name + "' (storage '" + s.key + "', " + s.type + " of " + std::to_string(s.numel) + " elements)";
}

// The view a tensor takes of its storage must lie inside it.
void check_extent(const std::string& name, const TensorSpec& t, const StorageRef& s) {
  const auto refuse = [&](const std::string& what) { throw CheckpointError(tensor_text(name, s) + ": " + what); };
  if (t.size.size() != t.stride.size()) refuse("size and stride have different lengths");
  if (t.offset < 0) refuse("negative storage_offset");
  int64_t numel = 1, last = t.offset;
  for (size_t d = 0; d < t.size.size(); ++d) {
    if (t.size[d] < 0 || t.stride[d] < 0) refuse("negative size or stride");
    int64_t span = 0;
    if (__builtin_mul_overflow(numel, t.size[d], &numel) ||
        (t.size[d] > 0 && (__builtin_mul_overflow(t.size[d] - 1, t.stride[d], &span) || __builtin_add_overflow(last, span, &last))))
      refuse("size overflows");
  }
  if (numel > 0 && last >= s.numel) refuse("its view reaches element " + std::to_string(last) + ", past its storage");
}

// Bytes a storage's record must hold: its class's element size x the pickle's element count.
// Checked against the zip directory before LibTorch allocates (and inflates) the record, which
// it does at whatever size the directory declares.
int64_t record_bytes_needed(const std::string& name, const StorageRef& s, const ZipDirectory& zip) {
  if (!s.dtype) {
    std::string known;
    for (const auto& type : storage_names()) known += (known.empty() ? "" : ", ") + type;
    throw CheckpointError(tensor_text(name, s) + ": unknown storage class torch." + s.type + " (known: " + known + ")");
  }
  const std::string record = "data/" + s.key;
  const int64_t elem = static_cast<int64_t>(c10::elementSize(*s.dtype));
  int64_t need = 0;
  if (__builtin_mul_overflow(s.numel, elem, &need)) throw CheckpointError(tensor_text(name, s) + ": storage is too large");
  const ZipEntry* entry = zip.find(record);
  if (!entry) throw CheckpointError(tensor_text(name, s) + ": missing record '" + record + "'");
  if (entry->uncompressed_bytes != static_cast<uint64_t>(need)) {
    throw CheckpointError(tensor_text(name, s) + ": record '" + record + "' holds " +
                          std::to_string(entry->uncompressed_bytes) + " bytes, but " + std::to_string(s.numel) +
                          " elements of " + std::to_string(elem) + " bytes need " + std::to_string(need) +
                          " (a storage class that does not match its data?)");
  }
  return need;
}

at::Tensor load_storage(caffe2::serialize::PyTorchStreamReader& reader, const std::string& name, const StorageRef& s,
                        const ZipDirectory& zip) {
  const int64_t need = record_bytes_needed(name, s, zip);
  const std::string record = "data/" + s.key;
  const auto opts = at::TensorOptions().dtype(*s.dtype);
  if (!reader.hasRecord(record)) throw CheckpointError(tensor_text(name, s) + ": missing record '" + record + "'");
  auto rec = reader.getRecord(record);
  if (std::get<1>(rec) != static_cast<size_t>(need))  // the directory said otherwise: not this file's record
    throw CheckpointError(tensor_text(name, s) + ": record '" + record + "' read as " + std::to_string(std::get<1>(rec)) + " bytes");
  if (need == 0) return at::empty({0}, opts);
  auto holder = std::make_shared<at::DataPtr>(std::move(std::get<0>(rec)));
  const auto* bytes = static_cast<const unsigned char*>(holder->get());
  if (*s.dtype == at::kBool) {
    for (int64_t k = 0; k < need; ++k)
      if (bytes[k] > 1) throw CheckpointError(tensor_text(name, s) + ": record '" + record + "' holds an invalid bool value");
  }
  // Zero-copy: the tensor keeps the record's buffer alive.
  return at::from_blob(holder->get(), {s.numel}, [holder](void*) {}, opts);
}

// Records other than storages (data.pkl, version, byteorder) are read whole by LibTorch's reader,
// the first already when it opens the file: their declared sizes are bounded before that.
void check_metadata_records(const ZipDirectory& zip) {
  constexpr uint64_t kMaxMetadataBytes = uint64_t{256} << 20;  // a pickle of ~a million tensors
  for (const auto& [full, entry] : zip.entries) {
    const std::string record = full.substr(std::min(full.size(), zip.prefix.size()));
    if (record.rfind("data/", 0) == 0 || entry.uncompressed_bytes <= kMaxMetadataBytes) continue;
    throw CheckpointError("record '" + record + "' declares " + std::to_string(entry.uncompressed_bytes) +
                          " bytes, more than a checkpoint's metadata can need (" + std::to_string(kMaxMetadataBytes) + ")");
  }
}

StateDict load_impl(const std::string& path) {
  check_file_kind(path);
  ZipDirectory zip;
  try {
    zip = read_zip_directory(path);
  } catch (const ZipDirectoryError& e) {
    throw CheckpointError(e.what());
  }
  check_metadata_records(zip);
  caffe2::serialize::PyTorchStreamReader reader(path);
  if (!reader.hasRecord("data.pkl"))
    throw CheckpointError("archive has no data.pkl record (not a torch.save file?)");
  if (reader.hasRecord("byteorder")) {
    auto rec = reader.getRecord("byteorder");
    const std::string order(static_cast<const char*>(std::get<0>(rec).get()), std::get<1>(rec));
    if (order != "little") throw CheckpointError("unsupported byteorder '" + order + "'");
  }
  auto pkl = reader.getRecord("data.pkl");
  StateDictPickle sd;
  const auto hooks = sd.hooks();
  ValuePtr root = pickle::unpickle(static_cast<const char*>(std::get<0>(pkl).get()), std::get<1>(pkl), hooks);
  if (root->kind != Kind::Dict) throw CheckpointError("top-level object is " + pickle::describe(*root) + ", not a state_dict");

  std::vector<at::Tensor> storage_tensors(sd.storages.size());
  StateDict out;
  out.reserve(root->entries.size());
  for (const auto& e : root->entries) {
    if (e.first->kind != Kind::String) throw CheckpointError("state_dict key is " + pickle::describe(*e.first) + ", not a str");
    const std::string& name = e.first->s;
    if (e.second->kind != Kind::Object || e.second->s != "tensor")
      throw CheckpointError("entry '" + name + "' is " + pickle::describe(*e.second) + ", not a tensor");
    const TensorSpec& t = sd.tensors[static_cast<size_t>(e.second->i)];
    const StorageRef& storage = sd.storages[t.storage];
    check_extent(name, t, storage);
    at::Tensor& st = storage_tensors[t.storage];
    if (!st.defined()) st = load_storage(reader, name, storage, zip);
    at::Tensor v = st.as_strided(t.size, t.stride, t.offset);
    // Own a compact copy unless the view is exactly the whole storage.
    if (!(t.offset == 0 && v.numel() == st.numel() && v.is_contiguous())) v = v.clone(at::MemoryFormat::Contiguous);
    out.push_back({name, v});
  }
  return out;
}

}  // namespace

StateDict load_state_dict_file(const std::string& path) {
  try {
    return load_impl(path);
  } catch (const CheckpointError& e) {
    const std::string msg = e.what();
    if (msg.compare(0, path.size(), path) == 0) throw;
    throw CheckpointError(path + ": " + msg);
  } catch (const PickleError& e) {
    throw CheckpointError(path + ": bad data.pkl: " + e.what());
  } catch (const c10::Error& e) {
    throw CheckpointError(path + ": corrupt or truncated checkpoint: " + e.what_without_backtrace());
  } catch (const std::bad_alloc&) {
    throw CheckpointError(path + ": out of memory while loading");
  } catch (const std::exception& e) {
    throw CheckpointError(path + ": " + e.what());
  }
}

}  // namespace stepscope
