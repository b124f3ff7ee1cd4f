// Kernels of structured ops: tril / triu, diagonal / diag / diag_embed / diagonal_scatter,
// unfold, as_strided_scatter, one_hot, bucketize / searchsorted and cdist.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "symshape/interp/kernel_math.h"
#include "symshape/interp/kernels.h"

namespace symshape::interp::kernels {

namespace {

using Sizes = std::vector<int64_t>;
using math::load;
using math::sizes_str;
using math::store;

int64_t dim_arg(const KernelContext& ctx, std::string_view name, int64_t fallback) {
  return ctx.integer(name, fallback);
}

// PyTorch's diagonal: the other dims in order, then the diagonal at `offset` of dims (d1, d2),
// as a view of t.
Tensor diagonal_view(const KernelContext& ctx, const Tensor& t, int64_t offset, int64_t dim1,
                     int64_t dim2, const std::string& op) {
  if (t.rank() < 2) {
    ctx.bad_input(op + " needs a tensor of at least 2 dims, got " + sizes_str(t.sizes()));
  }
  const size_t d1 = ctx.normalize_dim(dim1, t.rank()), d2 = ctx.normalize_dim(dim2, t.rank());
  if (d1 == d2) {
    ctx.bad_input(op + ": diagonal dimensions cannot be identical " + std::to_string(dim1) + ", " +
                  std::to_string(dim2));
  }
  const int64_t n1 = t.sizes()[d1], n2 = t.sizes()[d2];
  // Offsets beyond the sizes give an empty diagonal; clamp before arithmetic to avoid overflow.
  int64_t len = 0;
  if (offset >= 0) {
    len = offset >= n2 ? 0 : std::min(n1, n2 - offset);
  } else {
    len = offset <= -n1 ? 0 : std::min(n1 + offset, n2);
  }
  int64_t start = t.offset();
  if (len > 0) {
    start += offset >= 0 ? offset * t.strides()[d2] : -offset * t.strides()[d1];
  }
  Sizes sizes, strides;
  for (size_t d = 0; d < t.rank(); ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  sizes.push_back(len);
  strides.push_back(t.strides()[d1] + t.strides()[d2]);
  return t.as_strided(sizes, strides, start);
}

// Copies src into view (same sizes, checked by the caller).
void copy_into(Tensor& view, const Tensor& src) {
  for_each_index(view.sizes(), [&](std::span<const int64_t> at) { view.set(at, src.at(at)); });
}

void require_view_sizes(const KernelContext& ctx, const Tensor& src, const Tensor& view,
                        const std::string& op) {
  if (src.sizes() == view.sizes()) return;
  const std::string message = op + ": src " + sizes_str(src.sizes()) +
                              " must have the shape of the view " + sizes_str(view.sizes()) +
                              " it replaces";
  if (src.rank() != view.rank()) ctx.bad_input(message);
  ctx.fail(message);
}

Kernel triangle(bool lower) {
  return [lower](KernelContext& ctx) {
    const std::string op = lower ? "tril" : "triu";
    Tensor t = ctx.tensor("self");
    const int64_t k = dim_arg(ctx, "diagonal", 0);
    if (t.rank() < 2) {
      ctx.bad_input(op + ": input tensor must have at least 2 dimensions, got " +
                    sizes_str(t.sizes()));
    }
    Tensor out = t.clone();
    const size_t r = t.rank();
    const Scalar zero = Scalar::of_int(0);
    for_each_index(out.sizes(), [&](std::span<const int64_t> at) {
      // Column minus row, compared without overflow against k.
      const __int128 above = static_cast<__int128>(at[r - 1]) - at[r - 2];
      if (lower ? above > k : above < k) out.set(at, zero);
    });
    return RValue::of(out);
  };
}

RValue diagonal(KernelContext& ctx) {
  const std::string self = ctx.schema().params.at(0).name;
  const bool linalg = self == "A";
  return RValue::of(diagonal_view(
      ctx, ctx.tensor(self), dim_arg(ctx, "offset", 0), dim_arg(ctx, "dim1", linalg ? -2 : 0),
      dim_arg(ctx, "dim2", linalg ? -1 : 1), linalg ? "linalg_diagonal" : "diagonal"));
}

RValue diag(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  const int64_t d = dim_arg(ctx, "diagonal", 0);
  if (t.rank() == 1) {
    const int64_t n0 = t.sizes()[0];
    if (d > Tensor::kMaxElements || d < -Tensor::kMaxElements) {
      ctx.fail("diag: diagonal " + std::to_string(d) +
               " makes a result too large for the interpreter");
    }
    const int64_t n = n0 + (d < 0 ? -d : d);
    Tensor out = Tensor::zeros(t.dtype(), {n, n});
    for (int64_t i = 0; i < n0; ++i) {
      const Sizes at = d >= 0 ? Sizes{i, i + d} : Sizes{i - d, i};
      out.set(at, t.at(Sizes{i}));
    }
    return RValue::of(out);
  }
  if (t.rank() != 2) {
    ctx.bad_input("diag: supports 1D or 2D tensors, got " + std::to_string(t.rank()) + "D " +
                  sizes_str(t.sizes()));
  }
  return RValue::of(diagonal_view(ctx, t, d, 0, 1, "diag").clone());
}

RValue diag_embed(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  const int64_t offset = dim_arg(ctx, "offset", 0);
  if (t.rank() == 0) ctx.bad_input("diag_embed needs a tensor of at least 1 dim, got a 0-dim one");
  const size_t rank = t.rank() + 1;
  const int64_t dim1 = dim_arg(ctx, "dim1", -2), dim2 = dim_arg(ctx, "dim2", -1);
  const size_t d1 = ctx.normalize_dim(dim1, rank), d2 = ctx.normalize_dim(dim2, rank);
  if (d1 == d2) ctx.bad_input("diag_embed: diagonal dimensions cannot be identical");
  if (offset > Tensor::kMaxElements || offset < -Tensor::kMaxElements) {
    ctx.fail("diag_embed: offset " + std::to_string(offset) +
             " makes a result too large for the interpreter");
  }
  const int64_t n = t.sizes().back() + (offset < 0 ? -offset : offset);
  Sizes rest(t.sizes().begin(), t.sizes().end() - 1), sizes;
  size_t next = 0;
  for (size_t d = 0; d < rank; ++d) sizes.push_back(d == d1 || d == d2 ? n : rest[next++]);
  math::checked_numel(ctx, sizes, "diag_embed");
  Tensor out = Tensor::zeros(t.dtype(), sizes);
  Tensor view = diagonal_view(ctx, out, offset, static_cast<int64_t>(d1), static_cast<int64_t>(d2),
                              "diag_embed");
  copy_into(view, t);
  return RValue::of(out);
}

RValue diagonal_scatter(KernelContext& ctx) {
  Tensor out = ctx.tensor("self").clone();
  Tensor src = ctx.tensor("src");
  Tensor view = diagonal_view(ctx, out, dim_arg(ctx, "offset", 0), dim_arg(ctx, "dim1", 0),
                              dim_arg(ctx, "dim2", 1), "diagonal_scatter");
  require_view_sizes(ctx, src, view, "diagonal_scatter");
  copy_into(view, src);
  return RValue::of(out);
}

RValue as_strided_scatter(KernelContext& ctx) {
  Tensor out = ctx.tensor("self").clone();
  Tensor src = ctx.tensor("src");
  Sizes sizes = ctx.int_list("size"), strides = ctx.int_list("stride");
  const int64_t offset = ctx.integer("storage_offset", 0);
  const std::string op = "as_strided_scatter";
  if (sizes.size() != strides.size()) {
    ctx.bad_input(op + ": size " + sizes_str(sizes) + " and stride " + sizes_str(strides) +
                  " differ in length");
  }
  for (int64_t s : sizes) {
    if (s < 0)
      ctx.bad_input(op + ": negative size " + std::to_string(s) + " in size " + sizes_str(sizes));
  }
  for (int64_t s : strides) {
    if (s < 0)
      ctx.bad_input(op + ": negative stride " + std::to_string(s) + " in stride " +
                    sizes_str(strides));
  }
  if (offset < 0) ctx.bad_input(op + ": negative storage_offset " + std::to_string(offset));
  Tensor view;
  try {
    view = out.as_strided(sizes, strides, offset);
  } catch (const RunError&) {
    throw;
  } catch (const Error& e) {
    ctx.fail(op + ": the view of size " + sizes_str(sizes) + ", stride " + sizes_str(strides) +
             " and offset " + std::to_string(offset) + " is out of bounds for self " +
             sizes_str(out.sizes()) + " (" + e.what() + ")");
  }
  require_view_sizes(ctx, src, view, op);
  copy_into(view, src);
  return RValue::of(out);
}

Tensor unfolded(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  const int64_t dim = ctx.integer("dimension");
  const int64_t size = ctx.integer("size"), step = ctx.integer("step");
  if (size < 0) ctx.bad_input("unfold: size is " + std::to_string(size) + " but must be >= 0");
  if (step <= 0) ctx.bad_input("unfold: step is " + std::to_string(step) + " but must be > 0");
  const size_t k = ctx.normalize_dim(dim, t.rank());
  const int64_t extent = t.rank() == 0 ? 1 : t.sizes()[k];
  if (size > extent) {
    ctx.fail("unfold: maximum size for tensor at dimension " + std::to_string(k) + " is " +
             std::to_string(extent) + " but size is " + std::to_string(size));
  }
  if (t.rank() == 0) return t.as_strided({size}, {1}, t.offset());
  Sizes sizes = t.sizes(), strides = t.strides();
  sizes[k] = (t.sizes()[k] - size) / step + 1;
  const int64_t inner = strides[k];
  strides[k] =
      static_cast<int64_t>(static_cast<uint64_t>(strides[k]) * static_cast<uint64_t>(step));
  sizes.push_back(size);
  strides.push_back(inner);
  return t.as_strided(sizes, strides, t.offset());
}

RValue one_hot(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  if (t.dtype() != DType::Int64) {
    ctx.bad_input("one_hot is only applicable to an index tensor of type int64, got " +
                  std::string(to_string(t.dtype())));
  }
  int64_t n = ctx.integer("num_classes", -1);
  const std::vector<Scalar> values = t.values();
  if (n == -1) {
    if (values.empty()) {
      ctx.fail("one_hot: cannot infer the number of classes from an empty tensor " +
               sizes_str(t.sizes()) + " (num_classes is -1)");
    }
    int64_t top = 0;
    for (const Scalar& v : values) top = std::max(top, v.as_int());
    if (top >= Tensor::kMaxElements)
      ctx.fail("one_hot: class value " + std::to_string(top) +
               " makes a result too large for the interpreter");
    n = top + 1;
  } else if (n < 1) {
    ctx.fail("one_hot: num_classes must be positive (or -1 to infer it), got " + std::to_string(n));
  }
  for (const Scalar& v : values) {
    if (v.as_int() < 0 || v.as_int() >= n) {
      // A fact about the data, which check cannot know.
      ctx.fail("one_hot: class value " + std::to_string(v.as_int()) + " is outside its range [0, " +
               std::to_string(n) +
               ") (class values must be non-negative and smaller than num_classes)");
    }
  }
  Sizes sizes = t.sizes();
  sizes.push_back(n);
  math::checked_numel(ctx, sizes, "one_hot");
  Tensor out = Tensor::zeros(DType::Int64, sizes);
  int64_t i = 0;
  for (const Scalar& v : values) out.set_flat(i++ * n + v.as_int(), Scalar::of_int(1));
  return RValue::of(out);
}

// a < b between elements of real tensors (integers compare exactly).
bool less(const Scalar& a, const Scalar& b) {
  const bool ints = a.kind != Scalar::Kind::Float && b.kind != Scalar::Kind::Float;
  return ints ? a.as_int() < b.as_int() : a.as_double() < b.as_double();
}

Kernel search(bool bucketize) {
  return [bucketize](KernelContext& ctx) {
    const std::string op = bucketize ? "bucketize" : "searchsorted";
    const std::string seq_name = bucketize ? "boundaries" : "sorted_sequence";
    Tensor seq = ctx.tensor(seq_name);
    const bool scalar = !ctx.is_tensor_arg("self");
    Tensor self = scalar ? Tensor() : ctx.tensor("self");
    if (is_complex(seq.dtype()) || (!scalar && is_complex(self.dtype()))) {
      ctx.bad_input(op + ": complex tensors are not supported (they have no order)");
    }
    if (scalar) {
      const Scalar v = ctx.scalar("self");
      self = Tensor::scalar(v.kind == Scalar::Kind::Float ? DType::Float64 : DType::Int64, v);
    }
    if (seq.rank() == 0) {
      ctx.bad_input(op + ": " + seq_name + " must have at least one dimension, got a 0-dim tensor");
    }
    if (bucketize && seq.rank() != 1) {
      ctx.bad_input(op + ": boundaries must be 1 dimension, got " + sizes_str(seq.sizes()));
    }
    if (seq.rank() > 1) {
      const std::string message = op + ": " + seq_name + " " + sizes_str(seq.sizes()) +
                                  " must be 1-d or have the leading dims of the input " +
                                  (scalar ? std::string("(a number)") : sizes_str(self.sizes()));
      if (scalar || seq.rank() != self.rank()) ctx.bad_input(message);
      for (size_t d = 0; d + 1 < seq.rank(); ++d) {
        if (seq.sizes()[d] != self.sizes()[d]) ctx.fail(message);
      }
    }
    bool right = ctx.boolean("right", false);
    std::optional<Tensor> sorter;
    if (!bucketize) {
      if (ctx.has("side")) {
        const std::string side = ctx.string("side", "left");
        if (side != "left" && side != "right") {
          ctx.bad_input(op + ": side can only be 'left' or 'right', got '" + side + "'");
        }
        if (right && side == "left") {
          ctx.bad_input(op + ": side and right can't be set to opposites, got side of left" +
                        std::string(" while right was True"));
        }
        right = side == "right";
      }
      sorter = ctx.optional_tensor("sorter");
      if (sorter) {
        if (sorter->dtype() != DType::Int64) {
          ctx.bad_input(op + ": sorter must be an int64 tensor, got " +
                        std::string(to_string(sorter->dtype())));
        }
        const std::string message = op + ": sorter " + sizes_str(sorter->sizes()) +
                                    " must have the shape of " + seq_name + " " +
                                    sizes_str(seq.sizes());
        if (sorter->rank() != seq.rank()) ctx.bad_input(message);
        if (sorter->sizes() != seq.sizes()) ctx.fail(message);
      }
    }
    const DType out_type = ctx.boolean("out_int32", false) ? DType::Int32 : DType::Int64;
    Tensor out = Tensor::zeros(out_type, self.sizes());
    const int64_t len = seq.sizes().back();
    Sizes at(seq.rank(), 0);
    for_each_index(self.sizes(), [&](std::span<const int64_t> index) {
      // The row of seq this element searches: its leading index, or the whole 1-d seq.
      for (size_t d = 0; d + 1 < seq.rank(); ++d) at[d] = index[d];
      auto element = [&](int64_t k) {
        at.back() = k;
        if (sorter) {
          const int64_t s = sorter->at(at).as_int();
          if (s < 0 || s >= len) {
            ctx.fail(op + ": sorter index " + std::to_string(s) + " is outside its range [0, " +
                     std::to_string(len) + ")");
          }
          at.back() = s;
        }
        return seq.at(at);
      };
      const Scalar v = self.at(index);
      int64_t lo = 0, hi = len;  // the first k with seq[k] >= v (left) or seq[k] > v (right)
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        const Scalar s = element(mid);
        const bool before = right ? !less(v, s) : less(s, v);
        if (before) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      out.set(index, Scalar::of_int(lo));
    });
    return RValue::of(out);
  };
}

// The p-norm distance, accumulated one coordinate difference at a time: p = 0 counts the
// non-zero differences, p = inf takes the largest, others sum |d|^p and take the p-th root.
double add_distance_term(double acc, double diff, double p) {
  const double d = std::fabs(diff);
  if (p == 0) return acc + (d != 0 ? 1 : 0);
  if (std::isinf(p)) return std::max(acc, d);
  return acc + std::pow(d, p);
}

double finish_distance(double acc, double p) {
  if (p == 0 || std::isinf(p) || p == 1) return acc;
  return p == 2 ? std::sqrt(acc) : std::pow(acc, 1 / p);
}

RValue cdist(KernelContext& ctx) {
  Tensor a = ctx.tensor("x1"), b = ctx.tensor("x2");
  const double p = ctx.real("p", 2.0);
  if (a.rank() < 2 || b.rank() < 2) {
    ctx.bad_input("cdist only supports at least 2D tensors, got x1 " + sizes_str(a.sizes()) +
                  " and x2 " + sizes_str(b.sizes()));
  }
  if (!is_floating(a.dtype()) || !is_floating(b.dtype())) {
    ctx.bad_input("cdist only supports floating-point dtypes, got x1 " +
                  std::string(to_string(a.dtype())) + " and x2 " +
                  std::string(to_string(b.dtype())));
  }
  if (a.dtype() != b.dtype()) {
    ctx.bad_input("cdist: x1 (" + std::string(to_string(a.dtype())) + ") and x2 (" +
                  std::string(to_string(b.dtype())) + ") must have the same dtype");
  }
  if (!(p >= 0))
    ctx.bad_input("cdist only supports non-negative p values, got " + std::to_string(p));
  if (auto mode = ctx.optional_integer("compute_mode"); mode && (*mode < 0 || *mode > 2)) {
    ctx.bad_input("cdist: compute_mode must be None, 0, 1 or 2, got " + std::to_string(*mode));
  }
  const int64_t m = a.sizes().back();
  if (b.sizes().back() != m) {
    ctx.fail("cdist: x1 " + sizes_str(a.sizes()) + " and x2 " + sizes_str(b.sizes()) +
             " must have the same number of columns");
  }
  const Sizes batch_a(a.sizes().begin(), a.sizes().end() - 2);
  const Sizes batch_b(b.sizes().begin(), b.sizes().end() - 2);
  auto batch = broadcast_shapes(batch_a, batch_b);
  if (!batch) {
    ctx.fail("cdist: cannot broadcast the batch dims " + sizes_str(batch_a) + " and " +
             sizes_str(batch_b));
  }
  const int64_t rows = a.sizes()[a.rank() - 2], cols = b.sizes()[b.rank() - 2];
  Sizes sizes = *batch;
  sizes.push_back(rows);
  sizes.push_back(cols);
  math::checked_numel(ctx, sizes, "cdist");
  Sizes shape_a = *batch, shape_b = *batch;
  shape_a.insert(shape_a.end(), {rows, m});
  shape_b.insert(shape_b.end(), {cols, m});
  const Tensor xa = expand_to(a, shape_a), xb = expand_to(b, shape_b);
  Tensor out = Tensor::zeros(a.dtype(), sizes);
  const size_t r = sizes.size();
  Sizes ia, ib;
  for_each_index(sizes, [&](std::span<const int64_t> at) {
    ia.assign(at.begin(), at.end() - 1);
    ib.assign(at.begin(), at.end() - 2);
    ib.push_back(at[r - 1]);
    ia.push_back(0);
    ib.push_back(0);
    double acc = 0;
    for (int64_t k = 0; k < m; ++k) {
      ia.back() = k;
      ib.back() = k;
      acc = add_distance_term(acc, xa.at(ia).as_double() - xb.at(ib).as_double(), p);
    }
    out.set(at, Scalar::of_float(finish_distance(acc, p)));
  });
  return RValue::of(out);
}

// _pdist_forward (self, p): the p-norm distance of every pair of rows i < j of a 2-D input, in
// row-major order of the pairs: N * (N - 1) / 2 values.
RValue pdist_forward(KernelContext& ctx) {
  Tensor x = ctx.tensor("self");
  const double p = ctx.real("p", 2.0);
  if (x.rank() != 2) {
    ctx.bad_input("pdist only supports 2D tensors, got: " + std::to_string(x.rank()) + "D");
  }
  if (!is_floating(x.dtype())) {
    ctx.bad_input("pdist only supports floating-point dtypes, got " +
                  std::string(to_string(x.dtype())));
  }
  if (!(p >= 0))
    ctx.bad_input("pdist only supports non-negative p values, got " + std::to_string(p));
  const int64_t n = x.size(0), m = x.size(1);
  const std::vector<double> v = load<double>(x);
  std::vector<double> out;
  out.reserve(static_cast<size_t>(n > 1 ? n * (n - 1) / 2 : 0));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = i + 1; j < n; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < m; ++k) {
        acc = add_distance_term(
            acc, v[static_cast<size_t>(i * m + k)] - v[static_cast<size_t>(j * m + k)], p);
      }
      out.push_back(finish_distance(acc, p));
    }
  }
  return RValue::of(store<double>(x.dtype(), {static_cast<int64_t>(out.size())}, out));
}

// ---- reflection / replication / circular padding (the rule's checks, in its order) ----

enum class PadMode { Reflect, Replicate, Circular };

Tensor padded(const KernelContext& ctx, const Tensor& t, const Sizes& pad, PadMode mode,
              const std::string& op) {
  if (pad.size() % 2 != 0 || pad.empty()) {
    ctx.bad_input(op + ": padding must have an even, non-zero length, got " + sizes_str(pad));
  }
  const size_t k = pad.size() / 2;
  if (t.rank() != k + 1 && t.rank() != k + 2) {
    ctx.bad_input(op + ": expected a " + std::to_string(k + 1) + "D or " + std::to_string(k + 2) +
                  "D (batch mode) input for padding " + sizes_str(pad) + ", got " +
                  sizes_str(t.sizes()));
  }
  if (mode != PadMode::Circular) {
    for (size_t d = t.rank() == k + 2 ? 1 : 0; d < t.rank(); ++d) {
      if (t.sizes()[d] == 0) {
        ctx.fail(op + ": expected a " + std::to_string(k + 1) + "D or " + std::to_string(k + 2) +
                 "D (batch mode) tensor with possible 0 batch size and other non-zero "
                 "dimensions for input, but got: " +
                 sizes_str(t.sizes()));
      }
    }
  }
  Sizes sizes = t.sizes();
  for (size_t i = 0; i < k; ++i) {
    const size_t d = t.rank() - 1 - i;
    const int64_t left = pad[2 * i], right = pad[2 * i + 1], size = t.sizes()[d];
    const std::string at =
        " at dimension " + std::to_string(d) + " of input " + sizes_str(t.sizes());
    if (mode == PadMode::Reflect && !(left < size && right < size)) {
      ctx.fail(op + ": padding size should be less than the corresponding input dimension, but " +
               "got padding (" + std::to_string(left) + ", " + std::to_string(right) + ")" + at);
    }
    if (mode == PadMode::Circular && !(left <= size && right <= size)) {
      ctx.fail(op + ": padding (" + std::to_string(left) + ", " + std::to_string(right) + ")" + at +
               " causes wrapping around more than once");
    }
    const __int128 out = static_cast<__int128>(size) + left + right;
    if (mode == PadMode::Circular ? out < 0 : out < 1) {
      ctx.fail(op + ": padding (" + std::to_string(left) + ", " + std::to_string(right) + ")" + at +
               " leaves an output size of " + std::to_string(static_cast<int64_t>(out)) +
               ", too small");
    }
    if (out > Tensor::kMaxElements)
      ctx.fail(op + ": padding makes a result too large for the interpreter");
    sizes[d] = static_cast<int64_t>(out);
  }
  math::checked_numel(ctx, sizes, op);
  Tensor result = Tensor::zeros(t.dtype(), sizes);
  Sizes from(t.rank());
  for_each_index(sizes, [&](std::span<const int64_t> at) {
    std::copy(at.begin(), at.end(), from.begin());
    for (size_t i = 0; i < k; ++i) {
      const size_t d = t.rank() - 1 - i;
      const int64_t w = t.sizes()[d];
      __int128 p = static_cast<__int128>(at[d]) - pad[2 * i];  // pads may be huge
      switch (mode) {
        case PadMode::Reflect:
          if (p < 0) p = -p;
          if (p >= w) p = 2 * static_cast<__int128>(w - 1) - p;
          break;
        case PadMode::Replicate: p = std::clamp<__int128>(p, 0, w - 1); break;
        case PadMode::Circular: p = ((p % w) + w) % w; break;
      }
      from[d] = static_cast<int64_t>(p);
    }
    result.set(at, t.at(from));
  });
  return result;
}

Kernel pad_nd(PadMode mode, size_t n) {
  return [mode, n](KernelContext& ctx) {
    const std::string op = std::string(mode == PadMode::Reflect ? "reflection" : "replication") +
                           "_pad" + std::to_string(n) + "d";
    Tensor t = ctx.tensor("self");
    Sizes pad = ctx.int_list("padding");
    if (pad.size() != 2 * n) {
      ctx.bad_input(op + ": padding must have " + std::to_string(2 * n) + " ints, got " +
                    sizes_str(pad));
    }
    return RValue::of(padded(ctx, t, pad, mode, op));
  };
}

RValue pad(KernelContext& ctx) {
  Tensor t = ctx.tensor("self");
  Sizes p = ctx.int_list("pad");
  const std::string mode = ctx.string("mode", "constant");
  const bool has_value = ctx.has("value");
  const double value = ctx.real("value", 0.0);
  if (p.size() % 2 != 0) ctx.bad_input("pad: padding length must be divisible by 2");
  if (p.size() > 2 * t.rank()) {
    ctx.bad_input(
        "pad: padding length should be less than or equal to two times the input "
        "dimension but got padding length " +
        std::to_string(p.size()) + " and input of dimension " + std::to_string(t.rank()));
  }
  PadMode m = PadMode::Reflect;
  if (mode == "constant") {
    Sizes sizes = t.sizes();
    for (size_t i = 0; i < p.size() / 2; ++i) {
      const size_t d = t.rank() - 1 - i;
      const __int128 s = static_cast<__int128>(sizes[d]) + p[2 * i] + p[2 * i + 1];
      if (s < 0) {
        ctx.fail("pad: padding " + sizes_str(p) + " makes dim " + std::to_string(d) + " negative");
      }
      if (s > Tensor::kMaxElements)
        ctx.fail("pad: padding makes a result too large for the interpreter");
      sizes[d] = static_cast<int64_t>(s);
    }
    math::checked_numel(ctx, sizes, "pad");
    Tensor out = Tensor::zeros(t.dtype(), sizes);
    const Scalar fill = Scalar::of_float(value);
    Sizes from(t.rank());
    for_each_index(sizes, [&](std::span<const int64_t> at) {
      bool inside = true;
      for (size_t d = 0; d < t.rank(); ++d) {
        const size_t i = t.rank() - 1 - d;  // pair index of dim d, when padded
        const int64_t left = i < p.size() / 2 ? p[2 * i] : 0;
        const __int128 q = static_cast<__int128>(at[d]) - left;  // pads may be huge
        inside &= q >= 0 && q < t.sizes()[d];
        from[d] = inside ? static_cast<int64_t>(q) : 0;
      }
      out.set(at, inside ? t.at(from) : fill);
    });
    return RValue::of(out);
  } else if (mode == "reflect") {
    m = PadMode::Reflect;
  } else if (mode == "replicate") {
    m = PadMode::Replicate;
  } else if (mode == "circular") {
    m = PadMode::Circular;
  } else {
    ctx.bad_input("pad: unrecognised padding mode '" + mode +
                  "' (expected constant, reflect, replicate or circular)");
  }
  if (has_value && value != 0) {
    ctx.bad_input("pad: padding mode \"" + mode + "\" doesn't take in value argument");
  }
  const size_t k = p.size() / 2;
  if (k < 1 || k > 3 || (t.rank() != k + 1 && t.rank() != k + 2)) {
    ctx.bad_input(
        "pad: only 2D, 3D, 4D, 5D padding with non-constant padding are supported, "
        "got padding " +
        sizes_str(p) + " for input " + sizes_str(t.sizes()));
  }
  return RValue::of(padded(ctx, t, p, m, "pad (" + mode + ")"));
}

// ---- upsampling (PyTorch's CPU kernels: float index arithmetic, as they compute it) ----

enum class Interp { Nearest, NearestExact, Bilinear, Bicubic };

const char* interp_name(Interp m) {
  switch (m) {
    case Interp::Nearest: return "upsample_nearest";
    case Interp::NearestExact: return "_upsample_nearest_exact";
    case Interp::Bilinear: return "upsample_bilinear";
    case Interp::Bicubic: return "upsample_bicubic";
  }
  return "?";
}

// compute_scales_value: 1 / scale when one was given (and positive), else in / out.
template <class T>
T scales_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0 ? static_cast<T>(1.0 / *scale)
                             : static_cast<T>(in) / static_cast<T>(out);
}

template <class T>
T area_pixel_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) {
    return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  }
  return scales_value<T>(scale, in, out);
}

template <class T>
T area_pixel_source(T scale, int64_t dst, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<T>(dst);
  T src = scale * (static_cast<T>(dst) + T(0.5)) - T(0.5);
  return !cubic && src < T(0) ? T(0) : src;
}

int64_t nearest_index(int64_t dst, int64_t in, int64_t out, std::optional<double> scale,
                      bool exact) {
  const float s = scales_value<float>(scale, in, out);
  // The index, at most in - 1 (a huge or NaN one from a tiny given scale too, without casting it).
  auto capped = [&](float f) {
    return f < static_cast<float>(in - 1) ? static_cast<int64_t>(f) : in - 1;
  };
  if (exact) return capped(std::floor((static_cast<float>(dst) + 0.5f) * s));
  if (out == in) return dst;
  if (out == 2 * in) return dst >> 1;
  return capped(std::floor(static_cast<float>(dst) * s));
}

// v held in [lo, hi] (NaN to lo), so that casting it to an int is defined.
double hold(double v, double lo, double hi) { return std::isnan(v) ? lo : std::clamp(v, lo, hi); }

double cubic1(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
double cubic2(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }
double cubic_interp(const double v[4], double t) {
  const double a = -0.75;
  return v[0] * cubic2(t + 1, a) + v[1] * cubic1(t, a) + v[2] * cubic1(1 - t, a) +
         v[3] * cubic2(2 - t, a);
}

Kernel upsample(Interp mode, size_t k) {
  return [mode, k](KernelContext& ctx) {
    const std::string op = interp_name(mode) + std::to_string(k) + "d";
    const std::string self = ctx.schema().params.at(0).name;
    Tensor t = ctx.tensor(self);
    auto sizes_arg = ctx.optional_int_list("output_size");
    const bool vec = ctx.declares("scale_factors");
    std::optional<std::vector<double>> factors;
    if (vec && ctx.has("scale_factors")) {
      RValue v = ctx.value("scale_factors");
      std::vector<double> list;
      for (const RValue& item : v.items) {
        if (item.kind == RValue::Kind::Float) {
          list.push_back(item.real);
        } else if (item.kind == RValue::Kind::Int) {
          list.push_back(static_cast<double>(item.integer));
        } else {
          ctx.bad_input(op + ": scale_factors must be a list of numbers, got " + v.str());
        }
      }
      if (v.kind != RValue::Kind::List) {
        ctx.bad_input(op + ": scale_factors must be a list of numbers, got " + v.str());
      }
      factors = list;
    }
    const bool align = (mode == Interp::Bilinear || mode == Interp::Bicubic) &&
                       ctx.boolean("align_corners", false);
    if (t.rank() != k + 2) {
      ctx.bad_input(op + " expects a " + std::to_string(k + 2) + "D input (N, C and " +
                    std::to_string(k) + " spatial dims), got " + sizes_str(t.sizes()));
    }
    if (sizes_arg.has_value() == factors.has_value()) {
      ctx.bad_input(op + ": must specify exactly one of output_size and scale_factors");
    }
    Sizes out;
    std::vector<std::optional<double>> scales(k);
    if (sizes_arg) {
      if (sizes_arg->size() != k) {
        ctx.bad_input(op + ": output_size must have " + std::to_string(k) + " ints, got " +
                      sizes_str(*sizes_arg));
      }
      out = *sizes_arg;
    } else {
      if (factors->size() != k) {
        ctx.bad_input(op + ": scale_factors must have " + std::to_string(k) + " numbers, got " +
                      std::to_string(factors->size()));
      }
      for (size_t i = 0; i < k; ++i) {
        const double scale = (*factors)[i];
        if (!std::isfinite(scale)) {
          ctx.bad_input(op + ": scale factors must be finite, got " + std::to_string(scale));
        }
        const double product = static_cast<double>(t.sizes()[2 + i]) * scale;
        if (!(std::fabs(product) < 0x1p62)) {
          ctx.bad_input(op + ": scale factor " + std::to_string(scale) +
                        " makes a size too large for the interpreter");
        }
        out.push_back(static_cast<int64_t>(product));
        scales[i] = scale;
      }
    }
    if (!vec) {
      const std::vector<const char*> names =
          k == 1   ? std::vector<const char*>{"scales"}
          : k == 2 ? std::vector<const char*>{"scales_h", "scales_w"}
                   : std::vector<const char*>{"scales_d", "scales_h", "scales_w"};
      for (size_t i = 0; i < k; ++i) {
        if (ctx.has(names[i])) scales[i] = ctx.real(names[i], 0.0);
      }
    }
    for (size_t i = 0; i < k; ++i) {
      if (!(t.sizes()[2 + i] > 0 && out[i] > 0)) {
        ctx.fail(op + ": input and output sizes should be greater than 0, but got input " +
                 sizes_str(t.sizes()) + ", output size " + sizes_str(out));
      }
    }
    if (t.sizes()[1] == 0) {
      ctx.fail(op + ": non-empty " + std::to_string(k + 2) + "D data tensor expected but got " +
               sizes_str(t.sizes()));
    }
    Sizes sizes = {t.sizes()[0], t.sizes()[1]};
    sizes.insert(sizes.end(), out.begin(), out.end());
    math::checked_numel(ctx, sizes, op);
    Tensor result = Tensor::zeros(t.dtype(), sizes);
    const Sizes& in = t.sizes();
    if (mode == Interp::Nearest || mode == Interp::NearestExact) {
      Sizes from(t.rank());
      for_each_index(sizes, [&](std::span<const int64_t> at) {
        from[0] = at[0];
        from[1] = at[1];
        for (size_t i = 0; i < k; ++i) {
          from[2 + i] =
              nearest_index(at[2 + i], in[2 + i], out[i], scales[i], mode == Interp::NearestExact);
        }
        result.set(at, t.at(from));
      });
      return RValue::of(result);
    }
    // 2-d: bilinear or bicubic, in the float type PyTorch computes a float32 tensor in (double
    // for float64).
    const int64_t ih = in[2], iw = in[3], oh = out[0], ow = out[1];
    Sizes at_in = {0, 0, 0, 0};
    auto value = [&](int64_t n, int64_t c, int64_t y, int64_t x) {
      at_in = {n, c, std::clamp<int64_t>(y, 0, ih - 1), std::clamp<int64_t>(x, 0, iw - 1)};
      return t.at(at_in).as_double();
    };
    const bool f64 = t.dtype() == DType::Float64;
    for_each_index(sizes, [&](std::span<const int64_t> at) {
      const int64_t n = at[0], c = at[1], y = at[2], x = at[3];
      double v = 0;
      if (mode == Interp::Bilinear) {
        auto source = [&](int64_t dst, int64_t isz, int64_t osz, std::optional<double> s) {
          if (f64) {
            return area_pixel_source<double>(area_pixel_scale<double>(isz, osz, align, s), dst,
                                             align, false);
          }
          return static_cast<double>(area_pixel_source<float>(
              area_pixel_scale<float>(isz, osz, align, s), dst, align, false));
        };
        // A tiny given scale can send the source far outside (PyTorch reads out of bounds
        // there); it is held inside the image so that no cast overflows.
        const double sy = hold(source(y, ih, oh, scales[0]), 0.0, static_cast<double>(ih - 1));
        const double sx = hold(source(x, iw, ow, scales[1]), 0.0, static_cast<double>(iw - 1));
        const int64_t y0 = static_cast<int64_t>(sy), x0 = static_cast<int64_t>(sx);
        const int64_t y1 = y0 < ih - 1 ? y0 + 1 : y0, x1 = x0 < iw - 1 ? x0 + 1 : x0;
        const double ly = sy - y0, lx = sx - x0;
        v = (1 - ly) * ((1 - lx) * value(n, c, y0, x0) + lx * value(n, c, y0, x1)) +
            ly * ((1 - lx) * value(n, c, y1, x0) + lx * value(n, c, y1, x1));
      } else if (ih == oh && iw == ow) {
        v = value(n, c, y, x);
      } else {
        auto source = [&](int64_t dst, int64_t isz, int64_t osz, std::optional<double> s) {
          if (f64) {
            return area_pixel_source<double>(area_pixel_scale<double>(isz, osz, align, s), dst,
                                             align, true);
          }
          return static_cast<double>(area_pixel_source<float>(
              area_pixel_scale<float>(isz, osz, align, s), dst, align, true));
        };
        const double ry = hold(source(y, ih, oh, scales[0]), -0x1p40, 0x1p40);
        const double rx = hold(source(x, iw, ow, scales[1]), -0x1p40, 0x1p40);
        const int64_t iy = static_cast<int64_t>(std::floor(ry)),
                      ix = static_cast<int64_t>(std::floor(rx));
        const double ty = ry - iy, tx = rx - ix;
        double rows[4];
        for (int i = 0; i < 4; ++i) {
          const double row[4] = {value(n, c, iy - 1 + i, ix - 1), value(n, c, iy - 1 + i, ix),
                                 value(n, c, iy - 1 + i, ix + 1), value(n, c, iy - 1 + i, ix + 2)};
          rows[i] = cubic_interp(row, tx);
        }
        v = cubic_interp(rows, ty);
      }
      result.set(at, Scalar::of_float(v));
    });
    return RValue::of(result);
  };
}

// ---- im2col / col2im (the rule's checks, in its order) ----

struct Blocks {
  Sizes kernel, dilation, padding, stride;
};

Sizes pair_param(const KernelContext& ctx, std::string_view name, const std::string& op) {
  Sizes list = ctx.int_list(name);
  if (list.size() == 1) list.push_back(list[0]);
  if (list.size() != 2) {
    ctx.bad_input(op + ": " + std::string(name) + " must have 2 ints, got " + sizes_str(list));
  }
  return list;
}

Blocks block_params(const KernelContext& ctx, const std::string& op) {
  Blocks b{pair_param(ctx, "kernel_size", op), pair_param(ctx, "dilation", op),
           pair_param(ctx, "padding", op), pair_param(ctx, "stride", op)};
  auto check = [&](const Sizes& v, int64_t least, const char* what) {
    for (int64_t x : v) {
      if (x < least || x > (int64_t{1} << 31)) {
        ctx.bad_input(op + ": " + what + " should be " +
                      (least ? "greater than zero" : "non-negative") + " (and at most 2^31), got " +
                      std::to_string(v[0]) + ", " + std::to_string(v[1]));
      }
    }
  };
  check(b.kernel, 1, "kernel size");
  check(b.dilation, 1, "dilation");
  check(b.padding, 0, "padding");
  check(b.stride, 1, "stride");
  return b;
}

int64_t block_count(int64_t size, const Blocks& b, size_t i) {
  const int64_t span = size + 2 * b.padding[i] - (b.dilation[i] * (b.kernel[i] - 1) + 1);
  return floordiv(span, b.stride[i]) + 1;
}

// Calls f(channel plane c, kernel offset (ki, kj), block (bh, bw), image position (y, x)) for
// every element of the column matrix, in its row-major order.
template <class F>
void for_each_block(int64_t planes, const Blocks& b, int64_t bh_count, int64_t bw_count, F f) {
  for (int64_t c = 0; c < planes; ++c) {
    for (int64_t ki = 0; ki < b.kernel[0]; ++ki) {
      for (int64_t kj = 0; kj < b.kernel[1]; ++kj) {
        for (int64_t bh = 0; bh < bh_count; ++bh) {
          for (int64_t bw = 0; bw < bw_count; ++bw) {
            const int64_t y = bh * b.stride[0] - b.padding[0] + ki * b.dilation[0];
            const int64_t x = bw * b.stride[1] - b.padding[1] + kj * b.dilation[1];
            f(c, ki, kj, bh, bw, y, x);
          }
        }
      }
    }
  }
}

RValue im2col(KernelContext& ctx) {
  const std::string op = "im2col";
  Tensor t = ctx.tensor("self");
  const Blocks b = block_params(ctx, op);
  if (t.rank() != 3 && t.rank() != 4) {
    ctx.bad_input(op + ": expected a 3D or 4D (batch mode) input, got " + sizes_str(t.sizes()));
  }
  const size_t first = t.rank() - 3;
  for (size_t d = first; d < t.rank(); ++d) {
    if (t.sizes()[d] == 0) {
      ctx.fail(op + ": expected non-zero dimensions (but a possibly empty batch) for input " +
               sizes_str(t.sizes()));
    }
  }
  const int64_t h = t.sizes()[first + 1], w = t.sizes()[first + 2];
  const Sizes blocks = {block_count(h, b, 0), block_count(w, b, 1)};
  for (int64_t n : blocks) {
    if (n < 1) {
      ctx.fail(op + ": input " + sizes_str(t.sizes()) + " gives " + sizes_str(blocks) +
               " sliding blocks, but each must be at least one");
    }
  }
  const int64_t batch = first ? t.sizes()[0] : 1, planes = t.sizes()[first];
  math::Checked checked;
  const int64_t rows = checked.mul(checked.mul(planes, b.kernel[0]), b.kernel[1]);
  const int64_t cols = checked.mul(blocks[0], blocks[1]);
  if (checked.overflow) ctx.fail(op + ": a result too large for the interpreter");
  Sizes sizes = {rows, cols};
  if (first) sizes.insert(sizes.begin(), batch);
  math::checked_numel(ctx, sizes, op);
  Tensor out = Tensor::zeros(t.dtype(), sizes);
  for (int64_t n = 0; n < batch; ++n) {
    for_each_block(
        planes, b, blocks[0], blocks[1],
        [&](int64_t c, int64_t ki, int64_t kj, int64_t bh, int64_t bw, int64_t y, int64_t x) {
          if (y < 0 || y >= h || x < 0 || x >= w) return;
          const int64_t row = (c * b.kernel[0] + ki) * b.kernel[1] + kj;
          const int64_t col = bh * blocks[1] + bw;
          Sizes from = first ? Sizes{n, c, y, x} : Sizes{c, y, x};
          Sizes to = first ? Sizes{n, row, col} : Sizes{row, col};
          out.set(to, t.at(from));
        });
  }
  return RValue::of(out);
}

RValue col2im(KernelContext& ctx) {
  const std::string op = "col2im";
  Tensor t = ctx.tensor("self");
  Sizes out_size = ctx.int_list("output_size");
  if (out_size.size() == 1) out_size.push_back(out_size[0]);
  if (out_size.size() != 2) {
    ctx.bad_input(op + ": output_size must have 2 ints, got " + sizes_str(out_size));
  }
  const Blocks b = block_params(ctx, op);
  if (t.rank() != 2 && t.rank() != 3) {
    ctx.bad_input(op + ": expected a 2D or 3D (batch mode) input, got " + sizes_str(t.sizes()));
  }
  const size_t first = t.rank() - 2;
  for (size_t d = first; d < t.rank(); ++d) {
    if (t.sizes()[d] == 0) {
      ctx.fail(op + ": expected non-zero dimensions (but a possibly empty batch) for input " +
               sizes_str(t.sizes()));
    }
  }
  for (int64_t o : out_size) {
    if (o <= 0)
      ctx.fail(op + ": output_size " + sizes_str(out_size) + " should be greater than zero");
    if (o > Tensor::kMaxElements)
      ctx.fail(op + ": output_size " + sizes_str(out_size) + " is too large for the interpreter");
  }
  const int64_t kernel = b.kernel[0] * b.kernel[1];
  if (t.sizes()[first] % kernel != 0) {
    ctx.fail(op + ": expected size of input's dimension " + std::to_string(first) +
             " to be divisible by the product of kernel_size (" + std::to_string(kernel) +
             "), got " + sizes_str(t.sizes()));
  }
  const Sizes blocks = {block_count(out_size[0], b, 0), block_count(out_size[1], b, 1)};
  if (static_cast<__int128>(t.sizes()[first + 1]) != static_cast<__int128>(blocks[0]) * blocks[1]) {
    ctx.fail(op + ": expected size of input's dimension " + std::to_string(first + 1) +
             " to match the calculated number of sliding blocks " + std::to_string(blocks[0]) +
             " * " + std::to_string(blocks[1]) + ", got " + sizes_str(t.sizes()));
  }
  for (int64_t n : blocks) {
    if (n < 1) {
      ctx.fail(op + ": output_size " + sizes_str(out_size) + " gives " + sizes_str(blocks) +
               " sliding blocks, but each must be at least one");
    }
  }
  const int64_t batch = first ? t.sizes()[0] : 1, planes = t.sizes()[first] / kernel;
  const int64_t h = out_size[0], w = out_size[1];
  Sizes sizes = {planes, h, w};
  if (first) sizes.insert(sizes.begin(), batch);
  math::checked_numel(ctx, sizes, op);
  Tensor out = Tensor::zeros(t.dtype(), sizes);
  for (int64_t n = 0; n < batch; ++n) {
    for_each_block(
        planes, b, blocks[0], blocks[1],
        [&](int64_t c, int64_t ki, int64_t kj, int64_t bh, int64_t bw, int64_t y, int64_t x) {
          if (y < 0 || y >= h || x < 0 || x >= w) return;
          const int64_t row = (c * b.kernel[0] + ki) * b.kernel[1] + kj;
          const int64_t col = bh * blocks[1] + bw;
          Sizes from = first ? Sizes{n, row, col} : Sizes{row, col};
          Sizes to = first ? Sizes{n, c, y, x} : Sizes{c, y, x};
          const Scalar a = out.at(to), v = t.at(from);
          Scalar sum = Scalar::of_float(a.as_double() + v.as_double());
          if (is_complex(t.dtype())) {
            sum = Scalar::of_complex(a.as_complex() + v.as_complex());
          } else if (!is_floating(t.dtype())) {
            sum = Scalar::of_int(static_cast<int64_t>(static_cast<uint64_t>(a.as_int()) +
                                                      static_cast<uint64_t>(v.as_int())));
          }
          out.set(to, sum);
        });
  }
  return RValue::of(out);
}

// ---- grid_sampler_2d (the rule's checks, in its order) ----

RValue grid_sampler_2d(KernelContext& ctx) {
  const std::string op = "grid_sampler_2d";
  Tensor input = ctx.tensor("input"), grid = ctx.tensor("grid");
  const int64_t interpolation = ctx.integer("interpolation_mode");
  const int64_t padding = ctx.integer("padding_mode");
  const bool align = ctx.boolean("align_corners", false);
  if (interpolation != 0 && interpolation != 1) {
    ctx.bad_input(op + ": interpolation_mode " + std::to_string(interpolation) +
                  " is not supported (0 bilinear and 1 nearest are; 2 bicubic is not yet)");
  }
  if (padding != 0 && padding != 1) {
    ctx.bad_input(op + ": padding_mode " + std::to_string(padding) +
                  " is not supported (0 zeros and 1 border are; 2 reflection is not yet)");
  }
  if (input.dtype() != grid.dtype()) {
    ctx.bad_input(op + ": expected input and grid to have the same dtype, got " +
                  std::string(to_string(input.dtype())) + " and " +
                  std::string(to_string(grid.dtype())));
  }
  if (!is_floating(input.dtype())) {
    ctx.bad_input(op + ": expected floating-point input and grid, got " +
                  std::string(to_string(input.dtype())));
  }
  if (input.rank() != 4 || grid.rank() != 4) {
    ctx.bad_input(op + ": expected 4D input and grid, got input " + sizes_str(input.sizes()) +
                  " and grid " + sizes_str(grid.sizes()));
  }
  if (input.sizes()[0] != grid.sizes()[0]) {
    ctx.fail(op + ": expected grid " + sizes_str(grid.sizes()) + " and input " +
             sizes_str(input.sizes()) + " to have the same batch size");
  }
  if (grid.sizes()[3] != 2) {
    ctx.fail(op + ": expected grid to have size 2 in its last dimension, got " +
             sizes_str(grid.sizes()));
  }
  if (input.sizes()[2] <= 0 || input.sizes()[3] <= 0) {
    ctx.fail(op + ": expected input to have non-empty spatial dimensions, got " +
             sizes_str(input.sizes()));
  }
  const int64_t n = input.sizes()[0], c = input.sizes()[1], h = input.sizes()[2],
                w = input.sizes()[3], ho = grid.sizes()[1], wo = grid.sizes()[2];
  const Sizes sizes = {n, c, ho, wo};
  math::checked_numel(ctx, sizes, op);
  Tensor out = Tensor::zeros(input.dtype(), sizes);
  // grid_sampler_compute_source_index: unnormalize from [-1, 1], then clip for border padding.
  auto source = [&](double coord, int64_t size) {
    double x = align ? (coord + 1) / 2 * static_cast<double>(size - 1)
                     : ((coord + 1) * static_cast<double>(size) - 1) / 2;
    if (padding == 1) x = std::min(static_cast<double>(size - 1), std::max(x, 0.0));
    return x;
  };
  auto at = [&](int64_t b, int64_t ch, int64_t y, int64_t x) {
    if (y < 0 || y >= h || x < 0 || x >= w) return 0.0;
    return input.at(Sizes{b, ch, y, x}).as_double();
  };
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t i = 0; i < ho; ++i) {
      for (int64_t j = 0; j < wo; ++j) {
        const double ix = source(grid.at(Sizes{b, i, j, 0}).as_double(), w);
        const double iy = source(grid.at(Sizes{b, i, j, 1}).as_double(), h);
        if (!std::isfinite(ix) || !std::isfinite(iy) || std::fabs(ix) > 0x1p40 ||
            std::fabs(iy) > 0x1p40) {
          continue;  // far outside the image: zeros (NaN is outside too)
        }
        for (int64_t ch = 0; ch < c; ++ch) {
          double v = 0;
          if (interpolation == 1) {
            v = at(b, ch, static_cast<int64_t>(std::nearbyint(iy)),
                   static_cast<int64_t>(std::nearbyint(ix)));
          } else {
            const double fx = std::floor(ix), fy = std::floor(iy);
            const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
            const double tx = ix - fx, ty = iy - fy;
            v = (1 - tx) * (1 - ty) * at(b, ch, y0, x0) + tx * (1 - ty) * at(b, ch, y0, x0 + 1) +
                (1 - tx) * ty * at(b, ch, y0 + 1, x0) + tx * ty * at(b, ch, y0 + 1, x0 + 1);
          }
          out.set(Sizes{b, ch, i, j}, Scalar::of_float(v));
        }
      }
    }
  }
  return RValue::of(out);
}

// ---- _native_multi_head_attention (the rule's checks, in its order) ----

// The mask of _native_multi_head_attention and _transformer_encoder_layer_fwd as flags over the
// scores [batch, heads, seq, seq] (true: masked out), empty without a mask. mask_type 0 is
// [seq, seq], 1 is [batch, seq] (key padding), 2 (and any mask that is not 2-D) the scores'
// shape; any non-zero element masks out, as PyTorch's conversion to bool does.
std::vector<char> attention_mask(const KernelContext& ctx, const std::string& op, int64_t batch,
                                 int64_t heads, int64_t seq) {
  std::optional<Tensor> mask = ctx.optional_tensor("mask");
  if (!mask) return {};
  std::optional<int64_t> type = ctx.optional_integer("mask_type");
  if (mask->rank() != 2) type = 2;
  if (!type) ctx.bad_input(op + ": a 2-D mask needs a mask_type (0: [T, T], 1: [B, T])");
  Sizes want;
  switch (*type) {
    case 0: want = {seq, seq}; break;
    case 1: want = {batch, seq}; break;
    case 2: want = {batch, heads, seq, seq}; break;
    default: ctx.bad_input(op + ": mask_type must be 0, 1 or 2, got " + std::to_string(*type));
  }
  if (mask->sizes() != want) {
    ctx.fail(op + ": a mask of mask_type " + std::to_string(*type) + " must have shape " +
             sizes_str(want) + ", got " + sizes_str(mask->sizes()));
  }
  std::vector<char> out(static_cast<size_t>(batch * heads * seq * seq));
  Sizes at(want.size());
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t t = 0; t < seq; ++t) {
        for (int64_t s2 = 0; s2 < seq; ++s2) {
          if (*type == 0) {
            at = {t, s2};
          } else if (*type == 1) {
            at = {n, s2};
          } else {
            at = {n, h, t, s2};
          }
          const Scalar m = mask->at(at);
          out[static_cast<size_t>(((n * heads + h) * seq + t) * seq + s2)] =
              m.kind == Scalar::Kind::Complex ? m.as_complex() != Complex(0, 0)
                                              : m.as_double() != 0;
        }
      }
    }
  }
  return out;
}

// Multi-head self-attention over row-major [batch, seq, d] inputs x[0..2] (query, key, value):
// the packed projection wv [3d, d] + bv, softmax(q k^T / sqrt(d / heads)) v per head, and the
// output projection pwv [d, d] + pbv. attn receives the weights [batch, heads, seq, seq].
// Scores flagged in `masked` (when not empty) are left out; a row masked entirely gets weights
// 0, as PyTorch's _masked_softmax gives.
std::vector<double> attend(const std::vector<double> (&x)[3], int64_t batch, int64_t seq, int64_t d,
                           int64_t heads, const std::vector<double>& wv,
                           const std::vector<double>& bv, const std::vector<double>& pwv,
                           const std::vector<double>& pbv, const std::vector<char>& masked,
                           std::vector<double>& attn) {
  const int64_t dh = d / heads;
  // The projections: p[j][(n * T + t) * D + o] = x_j[n, t, :] . W[j * D + o, :] + b[j * D + o].
  std::vector<double> proj[3];
  for (int j = 0; j < 3; ++j) {
    proj[j].assign(static_cast<size_t>(batch * seq * d), 0.0);
    for (int64_t r = 0; r < batch * seq; ++r) {
      for (int64_t o = 0; o < d; ++o) {
        double acc = bv[static_cast<size_t>(j * d + o)];
        for (int64_t i = 0; i < d; ++i) {
          acc +=
              x[j][static_cast<size_t>(r * d + i)] * wv[static_cast<size_t>((j * d + o) * d + i)];
        }
        proj[j][static_cast<size_t>(r * d + o)] = acc;
      }
    }
  }
  const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
  attn.assign(static_cast<size_t>(batch * heads * seq * seq), 0.0);
  std::vector<double> context(static_cast<size_t>(batch * seq * d), 0.0);
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t t = 0; t < seq; ++t) {
        const size_t first = static_cast<size_t>(((n * heads + h) * seq + t) * seq);
        double* row = &attn[first];
        auto out = [&](int64_t s2) {
          return !masked.empty() && masked[first + static_cast<size_t>(s2)] != 0;
        };
        double top = -INFINITY;
        for (int64_t s2 = 0; s2 < seq; ++s2) {
          if (out(s2)) continue;
          double dot = 0;
          for (int64_t e = 0; e < dh; ++e) {
            dot += proj[0][static_cast<size_t>((n * seq + t) * d + h * dh + e)] * scale *
                   proj[1][static_cast<size_t>((n * seq + s2) * d + h * dh + e)];
          }
          row[s2] = dot;
          top = std::max(top, dot);
        }
        double sum = 0;
        for (int64_t s2 = 0; s2 < seq; ++s2)
          sum += row[s2] = out(s2) ? 0.0 : std::exp(row[s2] - top);
        for (int64_t s2 = 0; s2 < seq; ++s2) row[s2] = sum > 0 ? row[s2] / sum : 0.0;
        for (int64_t e = 0; e < dh; ++e) {
          double acc = 0;
          for (int64_t s2 = 0; s2 < seq; ++s2) {
            acc += row[s2] * proj[2][static_cast<size_t>((n * seq + s2) * d + h * dh + e)];
          }
          context[static_cast<size_t>((n * seq + t) * d + h * dh + e)] = acc;
        }
      }
    }
  }
  std::vector<double> out(static_cast<size_t>(batch * seq * d), 0.0);
  for (int64_t r = 0; r < batch * seq; ++r) {
    for (int64_t o = 0; o < d; ++o) {
      double acc = pbv[static_cast<size_t>(o)];
      for (int64_t i = 0; i < d; ++i) {
        acc += context[static_cast<size_t>(r * d + i)] * pwv[static_cast<size_t>(o * d + i)];
      }
      out[static_cast<size_t>(r * d + o)] = acc;
    }
  }
  return out;
}

RValue native_multi_head_attention(KernelContext& ctx) {
  const std::string op = "_native_multi_head_attention";
  Tensor q = ctx.tensor("query"), k = ctx.tensor("key"), v = ctx.tensor("value");
  const int64_t d = ctx.integer("embed_dim");
  const int64_t heads = ctx.integer("num_head");
  Tensor w = ctx.tensor("qkv_weight"), b = ctx.tensor("qkv_bias");
  Tensor pw = ctx.tensor("proj_weight"), pb = ctx.tensor("proj_bias");
  const bool need_weights = ctx.boolean("need_weights", true);
  const bool average = ctx.boolean("average_attn_weights", true);
  if (heads <= 0) ctx.bad_input(op + ": num_head must be positive, got " + std::to_string(heads));
  auto rank = [&](const Tensor& t, size_t r, const char* name) {
    if (t.rank() != r) {
      ctx.bad_input(op + ": expected " + std::to_string(r) + "-D `" + name + "`, got " +
                    sizes_str(t.sizes()));
    }
  };
  rank(q, 3, "query");
  rank(k, 3, "key");
  rank(v, 3, "value");
  rank(w, 2, "qkv_weight");
  rank(b, 1, "qkv_bias");
  rank(pw, 2, "proj_weight");
  rank(pb, 1, "proj_bias");
  for (const Tensor* t : {&k, &v, &w, &b, &pw, &pb}) {
    if (t->dtype() != q.dtype()) {
      ctx.bad_input(op + ": every tensor must have query's dtype " +
                    std::string(to_string(q.dtype())) + ", got " +
                    std::string(to_string(t->dtype())));
    }
  }
  if (!is_floating(q.dtype())) {
    ctx.bad_input(op + ": expected floating-point tensors, got " +
                  std::string(to_string(q.dtype())));
  }
  if (q.sizes()[2] != d) {
    ctx.fail(op + ": passed-in embed_dim " + std::to_string(d) +
             " didn't match last dim of query " + sizes_str(q.sizes()));
  }
  if (k.sizes() != q.sizes() || v.sizes() != q.sizes()) {
    ctx.fail(op + ": expected query " + sizes_str(q.sizes()) + ", key " + sizes_str(k.sizes()) +
             " and value " + sizes_str(v.sizes()) + " shapes to match");
  }
  if (w.sizes()[0] != 3 * d || w.sizes()[1] != d) {
    ctx.fail(op + ": expected `qkv_weight` " + sizes_str(w.sizes()) + " to be [3 * embed_dim, " +
             "embed_dim]");
  }
  if (b.sizes()[0] != 3 * d) {
    ctx.fail(op + ": expected `qkv_bias` " + sizes_str(b.sizes()) + " to have 3x embed_dim");
  }
  if (d % heads != 0) {
    ctx.fail(op + ": embed_dim " + std::to_string(d) + " must divide evenly by num_head " +
             std::to_string(heads));
  }
  if (pw.sizes() != Sizes{d, d} || pb.sizes()[0] != d) {
    ctx.fail(op + ": expected `proj_weight` " + sizes_str(pw.sizes()) + " to be [D, D] and " +
             "`proj_bias` " + sizes_str(pb.sizes()) + " to be [D]");
  }
  const int64_t batch = q.sizes()[0], seq = q.sizes()[1];
  math::checked_numel(ctx, {batch, heads, seq, seq}, op);
  const std::vector<double> x[3] = {math::load<double>(q), math::load<double>(k),
                                    math::load<double>(v)};
  std::vector<double> attn;
  const std::vector<double> out = attend(
      x, batch, seq, d, heads, math::load<double>(w), math::load<double>(b), math::load<double>(pw),
      math::load<double>(pb), attention_mask(ctx, op, batch, heads, seq), attn);
  RValue weights = RValue::none();
  if (need_weights && average) {
    std::vector<double> mean(static_cast<size_t>(batch * seq * seq), 0.0);
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t h = 0; h < heads; ++h) {
        for (int64_t i = 0; i < seq * seq; ++i) {
          mean[static_cast<size_t>(n * seq * seq + i)] +=
              attn[static_cast<size_t>((n * heads + h) * seq * seq + i)] /
              static_cast<double>(heads);
        }
      }
    }
    weights = RValue::of(math::store(q.dtype(), {batch, seq, seq}, mean));
  } else if (need_weights) {
    weights = RValue::of(math::store(q.dtype(), {batch, heads, seq, seq}, attn));
  }
  return RValue::list({RValue::of(math::store(q.dtype(), {batch, seq, d}, out)), weights});
}

// ---- _transformer_encoder_layer_fwd (the rule's checks, in its order) ----

// PyTorch's transformer_encoder_layer_forward: self-attention and a feed-forward block, each
// with a residual, layer norms before (norm_first) or after them; an empty src is cloned.
RValue transformer_encoder_layer(KernelContext& ctx) {
  const std::string op = "_transformer_encoder_layer_fwd";
  Tensor src = ctx.tensor("src");
  const int64_t d = ctx.integer("embed_dim"), heads = ctx.integer("num_heads");
  const bool gelu = ctx.boolean("use_gelu", false), norm_first = ctx.boolean("norm_first", false);
  const double eps = ctx.real("eps", 1e-5);
  if (src.rank() != 3) ctx.bad_input(op + ": expected a 3-D `src`, got " + sizes_str(src.sizes()));
  if (!is_floating(src.dtype())) {
    ctx.bad_input(op + ": expected a floating-point `src`, got " +
                  std::string(to_string(src.dtype())));
  }
  if (src.numel() == 0) return RValue::of(src.clone());
  if (heads <= 0) ctx.bad_input(op + ": num_heads must be positive, got " + std::to_string(heads));
  const int64_t batch = src.sizes()[0], seq = src.sizes()[1];
  if (src.sizes()[2] != d) {
    ctx.fail(op + ": passed-in embed_dim " + std::to_string(d) + " didn't match last dim of src " +
             sizes_str(src.sizes()));
  }
  if (d % heads != 0) {
    ctx.fail(op + ": embed_dim " + std::to_string(d) + " must divide evenly by num_heads " +
             std::to_string(heads));
  }
  const Tensor f1 = ctx.tensor("ffn_weight_1");
  if (f1.rank() != 2) ctx.bad_input(op + ": expected a 2-D `ffn_weight_1`");
  const int64_t hidden = f1.sizes()[0];
  struct Param {
    const char* name;
    Sizes sizes;
  };
  const Param params[] = {
      {"qkv_weight", {3 * d, d}}, {"qkv_bias", {3 * d}},         {"proj_weight", {d, d}},
      {"proj_bias", {d}},         {"norm_weight_1", {d}},        {"norm_bias_1", {d}},
      {"norm_weight_2", {d}},     {"norm_bias_2", {d}},          {"ffn_weight_1", {hidden, d}},
      {"ffn_bias_1", {hidden}},   {"ffn_weight_2", {d, hidden}}, {"ffn_bias_2", {d}}};
  std::map<std::string, std::vector<double>> p;
  for (const Param& param : params) {
    Tensor t = ctx.tensor(param.name);
    if (t.dtype() != src.dtype()) {
      ctx.bad_input(op + ": `" + param.name + "` must have src's dtype " +
                    std::string(to_string(src.dtype())));
    }
    if (t.rank() != param.sizes.size()) {
      ctx.bad_input(op + ": expected `" + param.name + "` of " + sizes_str(param.sizes) + ", got " +
                    sizes_str(t.sizes()));
    }
    if (t.sizes() != param.sizes) {
      ctx.fail(op + ": expected `" + param.name + "` of " + sizes_str(param.sizes) + ", got " +
               sizes_str(t.sizes()));
    }
    p[param.name] = math::load<double>(t);
  }
  math::checked_numel(ctx, {batch, heads, seq, seq}, op);
  math::checked_numel(ctx, {batch, seq, hidden}, op);
  const int64_t rows = batch * seq;
  auto norm = [&](std::vector<double> x, int which) {
    const std::vector<double>& g = p[which == 1 ? "norm_weight_1" : "norm_weight_2"];
    const std::vector<double>& b = p[which == 1 ? "norm_bias_1" : "norm_bias_2"];
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < d; ++i) mean += x[static_cast<size_t>(r * d + i)];
      mean /= static_cast<double>(d);
      for (int64_t i = 0; i < d; ++i) {
        const double c = x[static_cast<size_t>(r * d + i)] - mean;
        var += c * c;
      }
      var /= static_cast<double>(d);
      const double inv = 1 / std::sqrt(var + eps);
      for (int64_t i = 0; i < d; ++i) {
        double& v = x[static_cast<size_t>(r * d + i)];
        v = (v - mean) * inv * g[static_cast<size_t>(i)] + b[static_cast<size_t>(i)];
      }
    }
    return x;
  };
  // y = x w^T + b for x [rows, in], w [out, in].
  auto linear = [&](const std::vector<double>& x, const std::vector<double>& w,
                    const std::vector<double>& b, int64_t in, int64_t out) {
    std::vector<double> y(static_cast<size_t>(rows * out), 0.0);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t o = 0; o < out; ++o) {
        double acc = b[static_cast<size_t>(o)];
        for (int64_t i = 0; i < in; ++i) {
          acc += x[static_cast<size_t>(r * in + i)] * w[static_cast<size_t>(o * in + i)];
        }
        y[static_cast<size_t>(r * out + o)] = acc;
      }
    }
    return y;
  };
  const std::vector<double> input = math::load<double>(src);
  std::vector<double> x = norm_first ? norm(input, 1) : input;
  std::vector<double> attn;
  const std::vector<double> qkv[3] = {x, x, x};
  x = attend(qkv, batch, seq, d, heads, p["qkv_weight"], p["qkv_bias"], p["proj_weight"],
             p["proj_bias"], attention_mask(ctx, op, batch, heads, seq), attn);
  for (size_t i = 0; i < x.size(); ++i) x[i] += input[i];
  if (!norm_first) x = norm(x, 1);
  const std::vector<double> residual = x;
  if (norm_first) x = norm(x, 2);
  std::vector<double> h = linear(x, p["ffn_weight_1"], p["ffn_bias_1"], d, hidden);
  for (double& v : h) v = gelu ? 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))) : std::max(v, 0.0);
  x = linear(h, p["ffn_weight_2"], p["ffn_bias_2"], hidden, d);
  for (size_t i = 0; i < x.size(); ++i) x[i] += residual[i];
  if (!norm_first) x = norm(x, 2);
  return RValue::of(math::store(src.dtype(), src.sizes(), x));
}

}  // namespace

void register_structured(KernelRegistry& r) {
  r.add("aten.tril", triangle(true));
  r.add("aten.triu", triangle(false));
  r.add("aten.diagonal", diagonal);
  r.add("aten.linalg_diagonal", diagonal);
  r.add("aten.diagonal_copy",
        [](KernelContext& ctx) { return RValue::of(diagonal(ctx).tensor.clone()); });
  r.add("aten.diag", diag);
  r.add("aten.diag_embed", diag_embed);
  r.add("aten.diagonal_scatter", diagonal_scatter);
  r.add("aten.as_strided_scatter", as_strided_scatter);
  r.add("aten.unfold", [](KernelContext& ctx) { return RValue::of(unfolded(ctx)); });
  r.add("aten.unfold_copy", [](KernelContext& ctx) { return RValue::of(unfolded(ctx).clone()); });
  r.add("aten.one_hot", one_hot);
  r.add("aten.bucketize", search(true));
  r.add("aten.searchsorted", search(false));
  r.add("aten.cdist", cdist);
  r.add("aten._pdist_forward", pdist_forward);
  r.add("aten._cdist_forward", cdist);
  for (size_t n = 1; n <= 3; ++n) {
    r.add("aten.reflection_pad" + std::to_string(n) + "d", pad_nd(PadMode::Reflect, n));
    r.add("aten.replication_pad" + std::to_string(n) + "d", pad_nd(PadMode::Replicate, n));
  }
  r.add("aten._pad_circular", [](KernelContext& ctx) {
    return RValue::of(
        padded(ctx, ctx.tensor("self"), ctx.int_list("pad"), PadMode::Circular, "_pad_circular"));
  });
  r.add("aten.pad", pad);
  for (size_t k = 1; k <= 3; ++k) {
    const std::string n = std::to_string(k) + "d";
    r.add("aten.upsample_nearest" + n, upsample(Interp::Nearest, k));
    r.add("aten._upsample_nearest_exact" + n, upsample(Interp::NearestExact, k));
  }
  r.add("aten.upsample_bilinear2d", upsample(Interp::Bilinear, 2));
  r.add("aten.upsample_bicubic2d", upsample(Interp::Bicubic, 2));
  r.add("aten.im2col", im2col);
  r.add("aten.col2im", col2im);
  r.add("aten.grid_sampler_2d", grid_sampler_2d);
  r.add("aten._native_multi_head_attention", native_multi_head_attention);
  r.add("aten._transformer_encoder_layer_fwd", transformer_encoder_layer);
}

}  // namespace symshape::interp::kernels
