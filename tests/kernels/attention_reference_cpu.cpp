#include "attention_reference_cpu.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <thread>
#include <vector>

namespace stepscope::kernels::testing {

namespace {

template <typename View>
auto row_of(const View& view, int64_t b, int64_t h, int64_t row) {
  return view.data + b * view.strides.batch + h * view.strides.head + row * view.strides.row;
}

// Softmax probabilities P (seq_q x seq_k, row-major) of one (batch, head); also returns the
// log-sum-exp of each row when `lse` is given.
void probabilities(const AttentionShape& shape, double scale, ConstView q, ConstView k, int64_t b,
                   int64_t h, std::vector<double>& p, double* lse) {
  const int64_t sq = shape.seq_q, sk = shape.seq_k, d = shape.head_dim;
  p.assign(static_cast<size_t>(sq * sk), 0.0);
  for (int64_t i = 0; i < sq; ++i) {
    const float* qi = row_of(q, b, h, i);
    const int64_t visible = shape.causal ? std::min(sk, i + 1) : sk;
    double max_score = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < visible; ++j) {
      const float* kj = row_of(k, b, h, j);
      double dot = 0.0;
      for (int64_t c = 0; c < d; ++c) dot += static_cast<double>(qi[c]) * kj[c];
      p[i * sk + j] = dot * scale;
      max_score = std::max(max_score, dot * scale);
    }
    double sum = 0.0;
    for (int64_t j = 0; j < visible; ++j) {
      p[i * sk + j] = std::exp(p[i * sk + j] - max_score);
      sum += p[i * sk + j];
    }
    for (int64_t j = 0; j < visible; ++j) p[i * sk + j] /= sum;
    if (lse != nullptr) lse[i] = max_score + std::log(sum);
  }
}

// Calls each_head(b, h) for every (batch, head) over the machine's cores: heads read shared
// inputs and write only their own rows, and the cases of hundreds of heads (the persistent
// Hopper forward's) took minutes on one core.
void for_each_head(const AttentionShape& shape, const std::function<void(int64_t, int64_t)>& each_head) {
  const int64_t heads = shape.batch * shape.heads;
  const int64_t cores = std::max<int64_t>(std::thread::hardware_concurrency(), 1);
  const int64_t workers = std::max<int64_t>(std::min(cores, heads), 1);
  auto run = [&](int64_t first) {
    for (int64_t bh = first; bh < heads; bh += workers) each_head(bh / shape.heads, bh % shape.heads);
  };
  std::vector<std::thread> threads;
  for (int64_t w = 1; w < workers; ++w) threads.emplace_back(run, w);
  run(0);
  for (std::thread& t : threads) t.join();
}

}  // namespace

void attention_forward_reference(const AttentionShape& shape, double scale, ConstView q,
                                 ConstView k, ConstView v, MutableView o, float* lse) {
  const int64_t sq = shape.seq_q, sk = shape.seq_k, d = shape.head_dim;
  for_each_head(shape, [&](int64_t b, int64_t h) {
    std::vector<double> p;
    std::vector<double> row_lse(static_cast<size_t>(sq));
    std::vector<double> out(static_cast<size_t>(d));
    probabilities(shape, scale, q, k, b, h, p, row_lse.data());
    for (int64_t i = 0; i < sq; ++i) {
      std::fill(out.begin(), out.end(), 0.0);
      for (int64_t j = 0; j < sk; ++j) {
        const double pij = p[i * sk + j];
        if (pij == 0.0) continue;
        const float* vj = row_of(v, b, h, j);
        for (int64_t c = 0; c < d; ++c) out[c] += pij * vj[c];
      }
      float* oi = row_of(o, b, h, i);
      for (int64_t c = 0; c < d; ++c) oi[c] = static_cast<float>(out[c]);
      lse[(b * shape.heads + h) * sq + i] = static_cast<float>(row_lse[i]);
    }
  });
}

void attention_backward_reference(const AttentionShape& shape, double scale, ConstView q,
                                  ConstView k, ConstView v, ConstView d_o, MutableView dq,
                                  MutableView dk, MutableView dv) {
  const int64_t sq = shape.seq_q, sk = shape.seq_k, d = shape.head_dim;
  for_each_head(shape, [&](int64_t b, int64_t h) {
    std::vector<double> p, ds(static_cast<size_t>(sq * sk));
    std::vector<double> grad_q(static_cast<size_t>(sq * d), 0.0), grad_k(static_cast<size_t>(sk * d), 0.0),
        grad_v(static_cast<size_t>(sk * d), 0.0);
    probabilities(shape, scale, q, k, b, h, p, nullptr);
    for (int64_t i = 0; i < sq; ++i) {
      const float* doi = row_of(d_o, b, h, i);
      // dP_ij = dO_i . V_j; D_i = sum_j P_ij dP_ij; dS = P (dP - D).
      double row_dot = 0.0;
      for (int64_t j = 0; j < sk; ++j) {
        const float* vj = row_of(v, b, h, j);
        double dp = 0.0;
        for (int64_t c = 0; c < d; ++c) dp += static_cast<double>(doi[c]) * vj[c];
        ds[i * sk + j] = dp;
        row_dot += p[i * sk + j] * dp;
      }
      for (int64_t j = 0; j < sk; ++j) ds[i * sk + j] = p[i * sk + j] * (ds[i * sk + j] - row_dot);
    }
    for (int64_t i = 0; i < sq; ++i) {
      const float* qi = row_of(q, b, h, i);
      const float* doi = row_of(d_o, b, h, i);
      for (int64_t j = 0; j < sk; ++j) {
        const double pij = p[i * sk + j], dsij = ds[i * sk + j];
        if (pij == 0.0 && dsij == 0.0) continue;
        const float* kj = row_of(k, b, h, j);
        for (int64_t c = 0; c < d; ++c) {
          grad_q[i * d + c] += scale * dsij * kj[c];
          grad_k[j * d + c] += scale * dsij * qi[c];
          grad_v[j * d + c] += pij * doi[c];
        }
      }
    }
    for (int64_t i = 0; i < sq; ++i) {
      float* row = row_of(dq, b, h, i);
      for (int64_t c = 0; c < d; ++c) row[c] = static_cast<float>(grad_q[i * d + c]);
    }
    for (int64_t j = 0; j < sk; ++j) {
      float* krow = row_of(dk, b, h, j);
      float* vrow = row_of(dv, b, h, j);
      for (int64_t c = 0; c < d; ++c) {
        krow[c] = static_cast<float>(grad_k[j * d + c]);
        vrow[c] = static_cast<float>(grad_v[j * d + c]);
      }
    }
  });
}

}  // namespace stepscope::kernels::testing
