// Self-check of the flash-attention CUDA kernels against the double-precision CPU reference.
//
//   flash_kernel_check           every type x causal x supported head dim x shape; exit 1 on
//                                any failure
//   flash_kernel_check --small   one small case per type (for compute-sanitizer)
//   flash_kernel_check --bench   forward/backward timings of the benchmark shapes on both paths
//                                (flash_kernel_bench.h: back to back, a forward after a backward,
//                                a backward from an idle device and its host time)
//   flash_kernel_check --bench-one HEADS SEQ D causal|full [REPS [TYPE [PATH]]]   one shape (for
//                                ncu; REPS timed repetitions, default 20; bf16 on the fastest path)
//   flash_kernel_check --filter TEXT   the cases whose line contains TEXT (e.g. "fastest bf16")
#include "attention_reference_cpu.h"
#include "flash_check_support.h"
#include "flash_kernel_bench.h"
#include "kernels/cuda/flash_attention_cuda.h"
#include "kernels/flash_attention_args.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace stepscope::kernels;
namespace ref = stepscope::kernels::testing;
using namespace flash_check;


struct Comparison {
  double max_abs = 0;
  double ref_max = 0;
  bool has_nan = false;
  double floor = 0;  // smallest denominator (see lse below)
  double relative() const {
    if (has_nan) return INFINITY;
    const double scale = std::max(ref_max, floor);
    return scale > 0 ? max_abs / scale : max_abs;
  }
};

void compare_view(Comparison& c, const AttentionShape& shape, int64_t seq, const Strides& s,
                  const std::vector<float>& gpu, const std::vector<float>& want) {
  for (int64_t b = 0; b < shape.batch; ++b)
    for (int64_t h = 0; h < shape.heads; ++h)
      for (int64_t i = 0; i < seq; ++i)
        for (int64_t col = 0; col < shape.head_dim; ++col) {
          const int64_t at = b * s.batch + h * s.head + i * s.row + col;
          if (!std::isfinite(gpu[at])) c.has_nan = true;
          c.max_abs = std::max(c.max_abs, std::fabs(static_cast<double>(gpu[at]) - want[at]));
          c.ref_max = std::max(c.ref_max, std::fabs(static_cast<double>(want[at])));
        }
}

struct Case {
  ElementType type;
  AttentionShape shape;
  Layout layout;
  KernelPath path = KernelPath::fastest;
  int key_splits = 0;  // FlashForwardArgs::key_splits (0: the launcher's choice)
};

std::vector<float> random_values(std::mt19937& rng, int64_t count, ElementType type) {
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& x : values) x = round_to(type, normal(rng));
  return values;
}

std::string case_label(const Case& c) {
  const AttentionShape& shape = c.shape;
  char label[160];
  std::snprintf(label, sizeof label, "%-8s %-4s %-6s d=%-3lld b=%lld h=%lld sq=%-3lld sk=%-3lld %s",
                path_name(c.path), type_name(c.type), shape.causal ? "causal" : "full",
                static_cast<long long>(shape.head_dim), static_cast<long long>(shape.batch),
                static_cast<long long>(shape.heads), static_cast<long long>(shape.seq_q),
                static_cast<long long>(shape.seq_k), layout_name(c.layout));
  return c.key_splits > 0 ? std::string(label) + " key_splits=" + std::to_string(c.key_splits) : label;
}

// Runs one case; prints its line; returns whether it passed.
bool run_case(const Case& c, uint32_t seed) {
  const AttentionShape& shape = c.shape;
  const ElementType type = c.type;
  const Strides qs = make_strides(shape, shape.seq_q, c.layout);
  const Strides ks = make_strides(shape, shape.seq_k, c.layout);
  const int64_t q_elems = view_elements(shape, shape.seq_q, qs);
  const int64_t k_elems = view_elements(shape, shape.seq_k, ks);
  const size_t eb = element_bytes(type);
  const float scale = 1.f / std::sqrt(static_cast<float>(shape.head_dim));

  std::mt19937 rng(seed);
  const std::vector<float> q = random_values(rng, q_elems, type);
  const std::vector<float> k = random_values(rng, k_elems, type);
  const std::vector<float> v = random_values(rng, k_elems, type);
  const std::vector<float> d_o = random_values(rng, q_elems, type);

  const std::string label = case_label(c);

  const int64_t lse_count = shape.batch * shape.heads * shape.seq_q;
  std::vector<float> o_gpu, lse_gpu, dq_gpu, dk_gpu, dv_gpu;
  try {
    DeviceBuffer dq_buf(q_elems * eb), dk_buf(k_elems * eb), dv_buf(k_elems * eb);
    DeviceBuffer q_buf(q_elems * eb), k_buf(k_elems * eb), v_buf(k_elems * eb);
    DeviceBuffer o_buf(q_elems * eb), do_buf(q_elems * eb);
    DeviceBuffer lse_buf(lse_count * 4);
    DeviceBuffer workspace(flash_backward_workspace_floats(shape) * 4);
    q_buf.upload(encode(type, q));
    k_buf.upload(encode(type, k));
    v_buf.upload(encode(type, v));
    do_buf.upload(encode(type, d_o));

    FlashForwardArgs fwd;
    fwd.shape = shape;
    fwd.type = type;
    fwd.path = c.path;
    fwd.softmax_scale = scale;
    fwd.q = q_buf.get();
    fwd.k = k_buf.get();
    fwd.v = v_buf.get();
    fwd.o = o_buf.get();
    fwd.lse = static_cast<float*>(lse_buf.get());
    fwd.q_strides = qs;
    fwd.k_strides = ks;
    fwd.v_strides = ks;
    fwd.o_strides = qs;
    fwd.key_splits = c.key_splits;
    DeviceBuffer fwd_workspace(flash_forward_workspace_floats(fwd) * 4);
    fwd.workspace = static_cast<float*>(fwd_workspace.get());
    flash_forward_cuda(fwd, nullptr);

    FlashBackwardArgs bwd;
    bwd.shape = shape;
    bwd.type = type;
    bwd.path = c.path;
    bwd.softmax_scale = scale;
    bwd.q = q_buf.get();
    bwd.k = k_buf.get();
    bwd.v = v_buf.get();
    bwd.o = o_buf.get();
    bwd.d_o = do_buf.get();
    bwd.lse = static_cast<const float*>(lse_buf.get());
    bwd.dq = dq_buf.get();
    bwd.dk = dk_buf.get();
    bwd.dv = dv_buf.get();
    bwd.workspace = static_cast<float*>(workspace.get());
    bwd.q_strides = bwd.o_strides = bwd.d_o_strides = bwd.dq_strides = qs;
    bwd.k_strides = bwd.v_strides = bwd.dk_strides = bwd.dv_strides = ks;
    flash_backward_cuda(bwd, nullptr);
    check_cuda(cudaDeviceSynchronize(), "kernels");

    o_gpu = decode(type, o_buf.download());
    dq_gpu = decode(type, dq_buf.download());
    dk_gpu = decode(type, dk_buf.download());
    dv_gpu = decode(type, dv_buf.download());
    lse_gpu = decode(ElementType::f32, lse_buf.download());
  } catch (const std::exception& error) {
    std::printf("%s | ERROR %s\n", label.c_str(), error.what());
    return false;
  }

  std::vector<float> o_ref(q_elems, 0.f), lse_ref(lse_count), dq_ref(q_elems, 0.f),
      dk_ref(k_elems, 0.f), dv_ref(k_elems, 0.f);
  ref::attention_forward_reference(shape, scale, {q.data(), qs}, {k.data(), ks}, {v.data(), ks},
                                   {o_ref.data(), qs}, lse_ref.data());
  ref::attention_backward_reference(shape, scale, {q.data(), qs}, {k.data(), ks}, {v.data(), ks},
                                    {d_o.data(), qs}, {dq_ref.data(), qs}, {dk_ref.data(), ks},
                                    {dv_ref.data(), ks});

  Comparison o_cmp, lse_cmp, dq_cmp, dk_cmp, dv_cmp;
  // lse only enters the backward as exp(s - lse), so its absolute error is what matters; with
  // seq_k = 1 it is a single, possibly near-zero score, whose relative error means nothing.
  lse_cmp.floor = 1.0;
  compare_view(o_cmp, shape, shape.seq_q, qs, o_gpu, o_ref);
  AttentionShape lse_shape = shape;
  lse_shape.head_dim = 1;
  compare_view(lse_cmp, lse_shape, shape.seq_q,
               {shape.heads * shape.seq_q, shape.seq_q, 1}, lse_gpu, lse_ref);
  compare_view(dq_cmp, shape, shape.seq_q, qs, dq_gpu, dq_ref);
  compare_view(dk_cmp, shape, shape.seq_k, ks, dk_gpu, dk_ref);
  compare_view(dv_cmp, shape, shape.seq_k, ks, dv_gpu, dv_ref);

  const Tolerance tol = tolerance_for(type, c.path);
  const bool pass = o_cmp.relative() <= tol.output && lse_cmp.relative() <= tol.lse &&
                    dq_cmp.relative() <= tol.gradient && dk_cmp.relative() <= tol.gradient &&
                    dv_cmp.relative() <= tol.gradient;
  std::printf("%s | O %.1e (%.1e) lse %.1e (%.1e) dQ %.1e (%.1e) dK %.1e (%.1e) dV %.1e (%.1e) %s\n",
              label.c_str(), o_cmp.max_abs, o_cmp.relative(), lse_cmp.max_abs, lse_cmp.relative(),
              dq_cmp.max_abs, dq_cmp.relative(), dk_cmp.max_abs, dk_cmp.relative(),
              dv_cmp.max_abs, dv_cmp.relative(), pass ? "ok" : "FAIL");
  return pass;
}

std::vector<Case> all_cases() {
  struct Dims {
    int64_t batch, heads, seq_q, seq_k;
    Layout layout;
  };
  const Dims dims[] = {
      {1, 1, 1, 1, Layout::contiguous},      {1, 1, 17, 17, Layout::contiguous},
      {1, 1, 100, 100, Layout::contiguous},  {1, 1, 257, 257, Layout::contiguous},
      {1, 1, 37, 300, Layout::contiguous},   {1, 1, 300, 37, Layout::contiguous},
      {2, 3, 65, 80, Layout::contiguous},    {2, 3, 50, 70, Layout::interleaved},
      {1, 2, 45, 33, Layout::padded_rows},
      // More CTAs than an H100's 132 SMs (140 key tiles, 280 query tiles, 3 query tiles per
      // key tile): the fp32 kernels' grids without split K/V tiles or query splits, which the
      // small shapes above all take.
      {1, 140, 65, 64, Layout::contiguous},
      // Four tiles an SM and more: the persistent Hopper forward's CTAs wrap their Q and K/V
      // barriers' phases over several tiles.
      {1, 600, 65, 64, Layout::contiguous},
  };
  std::vector<Case> cases;
  for (KernelPath path : kernel_paths())
    for (ElementType type : {ElementType::f32, ElementType::f16, ElementType::bf16})
      for (bool causal : {false, true})
        for (int64_t d : flash_supported_head_dims())
          for (const Dims& x : dims)
            cases.push_back({type, make_shape(x.batch, x.heads, x.seq_q, x.seq_k, d, causal),
                             x.layout, path});
  // Long enough (> 4 K/V tiles of 192 keys, > 5 query tiles) for the Hopper kernels' mbarrier
  // pipelines to wrap around their stages; only the two tile widths, to keep the CPU
  // reference's time down.
  for (KernelPath path : kernel_paths())
    for (ElementType type : {ElementType::f32, ElementType::f16, ElementType::bf16})
      for (bool causal : {false, true})
        for (int64_t d : {64, 128})
          cases.push_back({type, make_shape(1, 1, 700, 1000, d, causal), Layout::contiguous, path});
  // The persistent Hopper forward at d128 (more than one tile an H100 SM): two K/V stages that
  // wrap within each tile (four key tiles unmasked) and across the tiles of a CTA.
  for (ElementType type : {ElementType::f16, ElementType::bf16})
    for (bool causal : {false, true})
      cases.push_back({type, make_shape(1, 300, 65, 400, 128, causal), Layout::contiguous, KernelPath::fastest});
  // The Hopper backward's paired key tiles (flash_grid_order.h: causal, square, 2 to 8 key tiles,
  // a wave of pairs on an H100): three key tiles of 257 rows (a pair of the first and the
  // 1-key tail tile, the middle one alone) and four of 500 over two batches.
  for (ElementType type : {ElementType::f16, ElementType::bf16})
    for (int64_t d : {64, 128}) {
      cases.push_back({type, make_shape(1, 140, 257, 257, d, true), Layout::contiguous, KernelPath::fastest});
      cases.push_back({type, make_shape(2, 35, 500, 500, d, true), Layout::contiguous, KernelPath::fastest});
    }
  // Enough heads and query tiles for the causal forward's one-wave head groups
  // (flash_grid_order.h): on an H100 the Hopper kernel takes 24 heads of 11 tiles in two groups
  // of 12 (the other forwards keep tile-major order).
  for (KernelPath path : kernel_paths())
    for (ElementType type : {ElementType::f32, ElementType::bf16})
      cases.push_back({type, make_shape(2, 12, 1408, 1408, 32, true), Layout::contiguous, path});
  // Key splits forced on the tensor-core forwards that take them (fp32 fastest, 16-bit
  // portable): chunks of batches and heads with odd lengths at every head dim, and long walks
  // in many chunks, some of which short causal walks never reach.
  const std::pair<ElementType, KernelPath> split_kernels[] = {{ElementType::f32, KernelPath::fastest},
                                                              {ElementType::f16, KernelPath::portable},
                                                              {ElementType::bf16, KernelPath::portable}};
  for (const auto& [type, path] : split_kernels)
    for (bool causal : {false, true}) {
      for (int64_t d : flash_supported_head_dims())
        cases.push_back({type, make_shape(2, 3, 130, 333, d, causal), Layout::interleaved, path, 3});
      for (int64_t d : {64, 128})
        cases.push_back({type, make_shape(1, 1, 700, 1000, d, causal), Layout::contiguous, path, 7});
    }
  return cases;
}

// One small case per type and path, one with key splits per kernel that takes them, and two
// with three tiles an H100 SM and more (the sanitizers' cases).
std::vector<Case> small_cases() {
  std::vector<Case> cases;
  for (KernelPath path : kernel_paths())
    for (ElementType type : {ElementType::f32, ElementType::f16, ElementType::bf16}) {
      cases.push_back({type, make_shape(1, 2, 70, 90, 64, true), Layout::contiguous, path});
      // Three tiles an SM and more: the persistent Hopper forward (four K/V stages at d64, two at d128).
      for (int64_t d : {64, 128}) {
        cases.push_back({type, make_shape(1, 400, 65, 65, d, true), Layout::contiguous, path});
      }
      if ((type == ElementType::f32) == (path == KernelPath::fastest)) {
        cases.push_back({type, make_shape(1, 2, 130, 300, 64, true), Layout::contiguous, path, 3});
      }
      // The Hopper backward's paired key tiles (two tiles a CTA, the middle one alone; only the
      // 64 tile pairs), and a backward whose stage ring wraps (11 query steps for a key tile).
      if (type != ElementType::f32 && path == KernelPath::fastest) {
        cases.push_back({type, make_shape(1, 140, 257, 257, 64, true), Layout::contiguous, path});
        cases.push_back({type, make_shape(1, 1, 700, 1000, 128, true), Layout::contiguous, path});
      }
    }
  return cases;
}

// Runs the cases whose label contains `filter` (all when it is empty).
int run_checks(const std::vector<Case>& cases, const std::string& filter = "") {
  int failures = 0, ran = 0;
  uint32_t seed = 12345;
  // Where the check's time goes (the device calls that run it have a time limit).
  using Clock = std::chrono::steady_clock;
  std::vector<std::pair<double, std::string>> seconds;
  const Clock::time_point start = Clock::now();
  for (const Case& c : cases) {
    ++seed;
    if (!filter.empty() && case_label(c).find(filter) == std::string::npos) continue;
    ++ran;
    const Clock::time_point case_start = Clock::now();
    failures += run_case(c, seed) ? 0 : 1;
    seconds.emplace_back(std::chrono::duration<double>(Clock::now() - case_start).count(), case_label(c));
  }
  std::sort(seconds.rbegin(), seconds.rend());
  std::printf("%.1f s in all; the slowest cases:\n", std::chrono::duration<double>(Clock::now() - start).count());
  for (std::size_t i = 0; i < seconds.size() && i < 5; ++i)
    std::printf("  %.2f s  %s\n", seconds[i].first, seconds[i].second.c_str());
  std::printf("%d cases, %d failed\n", ran, failures);
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "--bench") {
      constexpr ElementType b16 = ElementType::bf16, f32 = ElementType::f32;
      struct Shape { int64_t heads, seq, d; bool causal; ElementType type; };
      // fp32 last: its two paths differ on every GPU (3xTF32 against SIMT).
      const Shape shapes[] = {{16, 16384, 64, true, b16}, {16, 8192, 64, true, b16}, {16, 4096, 128, true, b16},
                              {16, 8192, 128, true, b16}, {16, 16384, 128, true, b16}, {1, 65536, 128, true, b16},
                              {16, 4096, 128, false, b16}, {16, 1024, 64, true, b16}, {1, 1024, 64, true, f32},
                              {1, 4096, 128, true, f32}, {16, 4096, 64, true, f32}, {16, 4096, 128, true, f32}};
      for (KernelPath path : kernel_paths())
        for (const Shape& x : shapes) bench(path, x.heads, x.seq, x.d, x.causal, 20, x.type);
      return 0;
    }
    // HEADS SEQ HEAD_DIM causal|full [REPS [f32|f16|bf16 [fastest|portable]]]
    if (mode == "--bench-one" && argc >= 6 && argc <= 9) {
      const std::string type = argc >= 8 ? argv[7] : "bf16";
      const std::string path = argc >= 9 ? argv[8] : "fastest";
      if ((type != "f32" && type != "f16" && type != "bf16") ||
          (path != "fastest" && path != "portable")) {
        std::fprintf(stderr, "--bench-one: type is f32, f16 or bf16; path fastest or portable\n");
        return 2;
      }
      bench(path == "fastest" ? KernelPath::fastest : KernelPath::portable, std::stoll(argv[2]),
            std::stoll(argv[3]), std::stoll(argv[4]), std::string(argv[5]) == "causal",
            argc >= 7 ? std::stoi(argv[6]) : 20,
            type == "f32" ? ElementType::f32 : type == "f16" ? ElementType::f16 : ElementType::bf16);
      return 0;
    }
    if (mode == "--small") return run_checks(small_cases());
    if (mode == "--filter" && argc > 2) return run_checks(all_cases(), argv[2]);
    if (!mode.empty()) {
      std::fprintf(stderr, "usage: %s [--small | --bench | --bench-one HEADS SEQ D causal|full [REPS [TYPE [PATH]]] | "
                   "--filter TEXT]\n",
                   argv[0]);
      return 2;
    }
    return run_checks(all_cases());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "flash_kernel_check: %s\n", error.what());
    return 1;
  }
}
