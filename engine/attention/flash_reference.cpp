#include "attention/flash_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <torch/torch.h>

namespace stepscope {

namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

struct Span {
  int64_t begin, end;
};

// Key tiles after the query tile's last row are wholly masked under causal attention.
bool tile_is_masked(Span queries, Span keys, bool causal) { return causal && keys.begin > queries.end - 1; }

// Scores of a query tile against a key tile, with causal masking by absolute position.
at::Tensor tile_scores(const at::Tensor& q_tile, const at::Tensor& k_tile, Span queries, Span keys, double scale,
                       bool causal) {
  auto s = torch::matmul(q_tile, k_tile.transpose(-2, -1)) * scale;
  if (causal && keys.end - 1 > queries.begin) {
    const auto opts = torch::TensorOptions().dtype(torch::kLong).device(q_tile.device());
    const auto rows = torch::arange(queries.begin, queries.end, opts).unsqueeze(1);
    const auto cols = torch::arange(keys.begin, keys.end, opts).unsqueeze(0);
    s.masked_fill_(cols > rows, kMinusInfinity);
  }
  return s;
}

void check_tile(int64_t tile) { TORCH_CHECK(tile >= 16, "FlashAttention tiles are at least 16 wide, not ", tile); }

}  // namespace

FlashForwardResult flash_reference_forward(const at::Tensor& q_in, const at::Tensor& k_in, const at::Tensor& v_in,
                                           bool causal, int64_t tile) {
  check_tile(tile);
  const auto q = q_in.to(torch::kFloat32), k = k_in.to(torch::kFloat32), v = v_in.to(torch::kFloat32);
  const int64_t seq_q = q.size(-2), seq_k = k.size(-2);
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  auto o = torch::empty_like(q);
  auto lse = torch::empty(q.sizes().slice(0, q.dim() - 1), q.options());
  for (int64_t qb = 0; qb < seq_q; qb += tile) {
    const Span queries{qb, std::min(qb + tile, seq_q)};
    const auto q_tile = q.narrow(-2, queries.begin, queries.end - queries.begin);
    // Running row maximum m, softmax denominator l and unnormalised output.
    auto m = torch::full(q_tile.sizes().slice(0, q.dim() - 1), kMinusInfinity, q.options());
    auto l = torch::zeros_like(m);
    auto acc = torch::zeros_like(q_tile);
    for (int64_t kb = 0; kb < seq_k; kb += tile) {
      const Span keys{kb, std::min(kb + tile, seq_k)};
      if (tile_is_masked(queries, keys, causal)) break;
      const auto s = tile_scores(q_tile, k.narrow(-2, keys.begin, keys.end - keys.begin), queries, keys, scale, causal);
      // Key tiles go in order, so tile 0 (which holds key 0, seen by every query) sets a finite m.
      const auto m_new = torch::maximum(m, std::get<0>(s.max(-1)));
      const auto p = torch::exp(s - m_new.unsqueeze(-1));
      const auto rescale = torch::exp(m - m_new);
      l = rescale * l + p.sum(-1);
      acc = rescale.unsqueeze(-1) * acc + torch::matmul(p, v.narrow(-2, keys.begin, keys.end - keys.begin));
      m = m_new;
    }
    o.narrow(-2, queries.begin, queries.end - queries.begin).copy_(acc / l.unsqueeze(-1));
    lse.narrow(-1, queries.begin, queries.end - queries.begin).copy_(m + torch::log(l));
  }
  return {o.to(q_in.scalar_type()), lse};
}

FlashGradients flash_reference_backward(const at::Tensor& q_in, const at::Tensor& k_in, const at::Tensor& v_in,
                                        const at::Tensor& o_in, const at::Tensor& d_o_in, const at::Tensor& lse,
                                        bool causal, int64_t tile) {
  check_tile(tile);
  const auto f32 = [](const at::Tensor& t) { return t.to(torch::kFloat32); };
  const auto q = f32(q_in), k = f32(k_in), v = f32(v_in), d_o = f32(d_o_in);
  const int64_t seq_q = q.size(-2), seq_k = k.size(-2);
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  const auto delta = (d_o * f32(o_in)).sum(-1);  // D = rowsum(dO * O)
  auto dq = torch::zeros_like(q), dk = torch::zeros_like(k), dv = torch::zeros_like(v);
  for (int64_t kb = 0; kb < seq_k; kb += tile) {
    const Span keys{kb, std::min(kb + tile, seq_k)};
    const auto k_tile = k.narrow(-2, keys.begin, keys.end - keys.begin);
    const auto v_tile = v.narrow(-2, keys.begin, keys.end - keys.begin);
    auto dk_tile = torch::zeros_like(k_tile), dv_tile = torch::zeros_like(v_tile);
    for (int64_t qb = 0; qb < seq_q; qb += tile) {
      const Span queries{qb, std::min(qb + tile, seq_q)};
      if (tile_is_masked(queries, keys, causal)) continue;
      const int64_t rows = queries.end - queries.begin;
      const auto q_tile = q.narrow(-2, queries.begin, rows);
      const auto d_o_tile = d_o.narrow(-2, queries.begin, rows);
      const auto s = tile_scores(q_tile, k_tile, queries, keys, scale, causal);
      const auto p = torch::exp(s - lse.narrow(-1, queries.begin, rows).unsqueeze(-1));  // recomputed P
      dv_tile += torch::matmul(p.transpose(-2, -1), d_o_tile);
      const auto dp = torch::matmul(d_o_tile, v_tile.transpose(-2, -1));
      const auto ds = p * (dp - delta.narrow(-1, queries.begin, rows).unsqueeze(-1));
      dq.narrow(-2, queries.begin, rows).add_(torch::matmul(ds, k_tile) * scale);
      dk_tile += torch::matmul(ds.transpose(-2, -1), q_tile) * scale;
    }
    dk.narrow(-2, keys.begin, keys.end - keys.begin).copy_(dk_tile);
    dv.narrow(-2, keys.begin, keys.end - keys.begin).copy_(dv_tile);
  }
  return {dq.to(q_in.scalar_type()), dk.to(k_in.scalar_type()), dv.to(v_in.scalar_type())};
}

}  // namespace stepscope
