// save_state_dict_file: the writer half of io/state_dict_file.h.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <unordered_set>

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <caffe2/serialize/inline_container.h>

#include "io/output_file.h"
#include "io/pickle_writer.h"
#include "io/state_dict_file.h"
#include "io/torch_storage_types.h"

namespace stepscope {
namespace {

std::vector<int64_t> packed_strides(at::IntArrayRef size) {
  std::vector<int64_t> stride(size.size());
  int64_t s = 1;
  for (size_t d = size.size(); d-- > 0;) {
    stride[d] = s;
    s *= std::max<int64_t>(size[d], 1);  // same rule as torch for empty dims
  }
  return stride;
}

void int_tuple(pickle::PickleWriter& w, const std::vector<int64_t>& v) {
  w.mark();
  for (int64_t x : v) w.integer(x);
  w.tuple();
}

// OrderedDict{name: _rebuild_tensor_v2(('storage', torch.XStorage, "i", "cpu", numel), 0, size, stride, False,
// OrderedDict())}, the shape torch.save gives a state_dict.
std::string state_dict_pickle(const StateDict& state) {
  pickle::PickleWriter w;
  w.global("collections", "OrderedDict");
  w.empty_tuple();
  w.reduce();
  if (!state.empty()) {
    w.mark();
    for (size_t i = 0; i < state.size(); ++i) {
      const at::Tensor& t = state[i].tensor;
      w.unicode(state[i].name);
      w.global("torch._utils", "_rebuild_tensor_v2");
      w.mark();
      w.mark();
      w.unicode("storage");
      w.global("torch", storage_name_for(t.scalar_type()));
      w.unicode(std::to_string(i));
      w.unicode("cpu");
      w.integer(t.numel());
      w.tuple();
      w.binpersid();
      w.integer(0);
      int_tuple(w, t.sizes().vec());
      int_tuple(w, packed_strides(t.sizes()));
      w.boolean(false);
      w.global("collections", "OrderedDict");
      w.empty_tuple();
      w.reduce();
      w.tuple();
      w.reduce();
    }
    w.setitems();
  }
  w.stop();
  return w.bytes();
}

// Sink for PyTorchStreamWriter. It never reports a short write: LibTorch 1.13's writer
// can throw again from its destructor after an I/O error (std::terminate), so errors
// are recorded here and checked by us instead.
// What PyTorch's zip writer writes to: the stream of the file being replaced.
struct StreamSink {
  std::ostream& out;
  int err = 0;
  size_t write(const void* buf, size_t n) {
    if (err == 0 && n > 0 && !buf) err = EINVAL;  // LibTorch 2.x passes null only for deferred writes, unused here
    if (err == 0 && n > 0 && !out.write(static_cast<const char*>(buf), static_cast<std::streamsize>(n))) {
      err = errno ? errno : EIO;
    }
    return n;
  }
};

void write_archive(const StateDict& state, const std::string& pkl, StreamSink& sink) {
  caffe2::serialize::PyTorchStreamWriter writer(
      [&sink](const void* buf, size_t n) { return sink.write(buf, n); });
  writer.writeRecord("data.pkl", pkl.data(), pkl.size());
  writer.writeRecord("byteorder", "little", 6);
  for (size_t i = 0; i < state.size() && sink.err == 0; ++i) {
    // One tensor at a time: at most one extra host copy alive (none for contiguous CPU tensors).
    const at::Tensor t = state[i].tensor.to(at::kCPU).contiguous();
    static const char kEmpty = 0;
    const void* data = t.numel() > 0 ? t.data_ptr() : &kEmpty;
    writer.writeRecord("data/" + std::to_string(i), data, t.nbytes());
  }
  writer.writeEndOfFile();
}

void validate(const StateDict& state) {
  std::unordered_set<std::string> seen;
  for (const auto& nt : state) {
    if (!seen.insert(nt.name).second) throw CheckpointError("duplicate state_dict key '" + nt.name + "'");
    if (!nt.tensor.defined()) throw CheckpointError("tensor '" + nt.name + "' is undefined");
    if (!storage_name_for(nt.tensor.scalar_type()))
      throw CheckpointError("tensor '" + nt.name + "' has unsupported dtype " +
                            std::string(c10::toString(nt.tensor.scalar_type())));
    if (nt.tensor.is_sparse() || nt.tensor.is_quantized())
      throw CheckpointError("tensor '" + nt.name + "' is not a dense tensor");
  }
}

}  // namespace

void save_state_dict_file(const StateDict& state, const std::string& path) {
  try {
    validate(state);
  } catch (const CheckpointError& e) {
    throw CheckpointError(path + ": " + e.what());
  }
  const std::string pkl = state_dict_pickle(state);
  // Through a temporary, renamed over `path`: a crash never leaves half a checkpoint there.
  std::string error;
  try {
    replace_file(path, [&](std::ostream& out) {
      StreamSink sink{out};
      write_archive(state, pkl, sink);
      if (sink.err) throw FileWriteError(std::strerror(sink.err));
    });
  } catch (const c10::Error& e) {
    error = e.what_without_backtrace();
  } catch (const std::bad_alloc&) {
    error = "out of memory";
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!error.empty()) throw CheckpointError(path + ": cannot write checkpoint: " + error);
}

}  // namespace stepscope
