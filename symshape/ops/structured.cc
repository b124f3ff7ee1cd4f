// Structured ops: triangles (tril / triu), diagonals (diagonal, diag, diag_embed,
// diagonal_scatter), sliding windows (unfold), as_strided_scatter, one_hot, bucketize /
// searchsorted and cdist.
#include <algorithm>
#include <cmath>

#include "symshape/ops/families.h"

namespace symshape::ops {

namespace {

std::vector<Expr> strides_of(const TensorMeta& t) {
  return t.strides.size() == t.rank() ? t.strides : TensorMeta::contiguous_strides(t.sizes);
}

// A dim that must be a plain int (a dim index), named for the message.
int64_t dim_arg(const OpContext& ctx, std::string_view name, int64_t fallback,
                const std::string& op) {
  Expr d = ctx.integer(name, Expr(static_cast<long>(fallback)));
  auto v = d.as_int64();
  if (!v) ctx.bad_input(op + ": " + std::string(name) + " must be a constant, got " + d.str());
  return *v;
}

// The length of the diagonal at `offset` of a size1 x size2 matrix: PyTorch's
// max(min(size1, size2 - offset), 0) for offset >= 0, max(min(size1 + offset, size2), 0) else.
Expr diagonal_length(const OpContext& ctx, const Expr& size1, const Expr& size2, int64_t offset) {
  const Expr o(static_cast<long>(offset));
  Expr len = offset >= 0 ? min(size1, size2 - o) : min(size1 + o, size2);
  return ctx.simplify(max(len, Expr(0)));
}

// diagonal(self, offset, dim1, dim2) of t: the other dims in order, then the diagonal.
TensorMeta diagonal_of(const OpContext& ctx, const TensorMeta& t, int64_t offset, int64_t dim1,
                       int64_t dim2, const std::string& op) {
  if (t.rank() < 2) {
    ctx.bad_input(op + " needs a tensor of at least 2 dims, got " + shape_str(t.sizes));
  }
  const size_t d1 = ctx.normalize_dim(dim1, t.rank()), d2 = ctx.normalize_dim(dim2, t.rank());
  if (d1 == d2) {
    ctx.bad_input(op + ": diagonal dimensions cannot be identical " + std::to_string(dim1) + ", " +
                  std::to_string(dim2));
  }
  const std::vector<Expr> strides = strides_of(t);
  TensorMeta out;
  out.dtype = t.dtype;
  for (size_t d = 0; d < t.rank(); ++d) {
    if (d == d1 || d == d2) continue;
    out.sizes.push_back(t.sizes[d]);
    out.strides.push_back(strides[d]);
  }
  out.sizes.push_back(diagonal_length(ctx, t.sizes[d1], t.sizes[d2], offset));
  out.strides.push_back(ctx.simplify(strides[d1] + strides[d2]));
  return out;
}

Value diagonal(OpContext& ctx) {
  const std::string self = ctx.schema().params.at(0).name;  // linalg_diagonal calls it A
  const bool linalg = self == "A";
  TensorMeta t = ctx.tensor(self);
  const std::string op = linalg ? "linalg_diagonal" : "diagonal";
  return Value::of(diagonal_of(ctx, t, dim_arg(ctx, "offset", 0, op),
                               dim_arg(ctx, "dim1", linalg ? -2 : 0, op),
                               dim_arg(ctx, "dim2", linalg ? -1 : 1, op), op));
}

// tril / triu: self's shape (at least 2 dims), contiguous.
ShapeRule triangle(const char* op) {
  return [op = std::string(op)](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    dim_arg(ctx, "diagonal", 0, op);
    if (t.rank() < 2) {
      ctx.bad_input(op + ": input tensor must have at least 2 dimensions, got " +
                    shape_str(t.sizes));
    }
    return Value::of(contiguous(t.dtype, t.sizes));
  };
}

// diag: a 1-d input of n becomes the (n + |d|)-square matrix with it on diagonal d; a 2-d input
// gives its diagonal d.
Value diag(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  const int64_t d = dim_arg(ctx, "diagonal", 0, "diag");
  if (t.rank() == 1) {
    const Expr offset(static_cast<long>(d));  // |d| as an Expr: -INT64_MIN is fine there
    Expr n = ctx.simplify(t.sizes[0] + (d < 0 ? -offset : offset));
    return Value::of(contiguous(t.dtype, {n, n}));
  }
  if (t.rank() != 2) {
    ctx.bad_input("diag: supports 1D or 2D tensors, got " + std::to_string(t.rank()) + "D " +
                  shape_str(t.sizes));
  }
  return Value::of(contiguous(t.dtype, {diagonal_length(ctx, t.sizes[0], t.sizes[1], d)}));
}

// diag_embed(self, offset, dim1, dim2): the last dim of self becomes diagonal `offset` of a new
// square pair of dims (dim1, dim2 of the result, which has one dim more).
Value diag_embed(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  const int64_t offset = dim_arg(ctx, "offset", 0, "diag_embed");
  if (t.rank() == 0) ctx.bad_input("diag_embed needs a tensor of at least 1 dim, got a 0-dim one");
  const size_t rank = t.rank() + 1;
  const size_t d1 = ctx.normalize_dim(dim_arg(ctx, "dim1", -2, "diag_embed"), rank);
  const size_t d2 = ctx.normalize_dim(dim_arg(ctx, "dim2", -1, "diag_embed"), rank);
  if (d1 == d2) ctx.bad_input("diag_embed: diagonal dimensions cannot be identical");
  const Expr o(static_cast<long>(offset));
  const Expr n = ctx.simplify(t.sizes.back() + (offset < 0 ? -o : o));
  std::vector<Expr> rest(t.sizes.begin(), t.sizes.end() - 1), sizes;
  size_t next = 0;
  for (size_t d = 0; d < rank; ++d) sizes.push_back(d == d1 || d == d2 ? n : rest[next++]);
  return Value::of(contiguous(t.dtype, sizes));
}

// src must have the sizes of the view it replaces (scatter ops).
void require_view_sizes(const OpContext& ctx, const TensorMeta& src, const std::vector<Expr>& view,
                        const std::string& op) {
  const std::string message = op + ": src " + shape_str(src.sizes) +
                              " must have the shape of the view " + shape_str(view) +
                              " it replaces";
  if (src.rank() != view.size()) ctx.bad_input(message);
  for (size_t d = 0; d < view.size(); ++d) {
    require(ctx, src.sizes[d] == view[d], "scatter_src_size", message);
  }
}

Value diagonal_scatter(OpContext& ctx) {
  TensorMeta self = ctx.tensor("self");
  TensorMeta src = ctx.tensor("src");
  const TensorMeta view =
      diagonal_of(ctx, self, dim_arg(ctx, "offset", 0, "diagonal_scatter"),
                  dim_arg(ctx, "dim1", 0, "diagonal_scatter"),
                  dim_arg(ctx, "dim2", 1, "diagonal_scatter"), "diagonal_scatter");
  require_view_sizes(ctx, src, view.sizes, "diagonal_scatter");
  return Value::of(contiguous(self.dtype, self.sizes));
}

// as_strided_scatter(self, src, size, stride, storage_offset): a contiguous copy of self with
// the view as_strided(size, stride, storage_offset) of that copy replaced by src. The view must
// lie inside the copy's numel(self) elements.
Value as_strided_scatter(OpContext& ctx) {
  TensorMeta self = ctx.tensor("self");
  TensorMeta src = ctx.tensor("src");
  std::vector<Expr> sizes = ctx.int_list("size"), strides = ctx.int_list("stride");
  Expr offset = ctx.simplify(ctx.integer("storage_offset", Expr(0)));
  const std::string op = "as_strided_scatter";
  if (sizes.size() != strides.size()) {
    ctx.bad_input(op + ": size " + shape_str(sizes) + " and stride " + shape_str(strides) +
                  " differ in length");
  }
  for (const Expr& s : sizes) {
    if (ctx.known(s >= 0) == Truth::False)
      ctx.bad_input(op + ": negative size " + s.str() + " in size " + shape_str(sizes));
  }
  for (const Expr& s : strides) {
    if (ctx.known(s >= 0) == Truth::False)
      ctx.bad_input(op + ": negative stride " + s.str() + " in stride " + shape_str(strides));
  }
  if (ctx.known(offset >= 0) == Truth::False)
    ctx.bad_input(op + ": negative storage_offset " + offset.str());
  for (size_t d = 0; d < sizes.size(); ++d) {
    require(ctx, sizes[d] >= 0, "as_strided_scatter_size",
            op + ": negative size in size " + shape_str(sizes));
    require(ctx, strides[d] >= 0, "as_strided_scatter_stride",
            op + ": negative stride in stride " + shape_str(strides));
  }
  require(ctx, offset >= 0, "as_strided_scatter_offset",
          op + ": negative storage_offset " + offset.str());
  // The last element the view reaches, when it has any, must be inside the copy.
  Expr last = offset, numel = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    last = last + (sizes[d] - 1) * strides[d];
    numel = numel * sizes[d];
  }
  const Cond inside = ctx.simplify(numel) == 0 || ctx.simplify(last) < self.numel();
  require(ctx, inside, "as_strided_scatter_bounds",
          op + ": the view of size " + shape_str(sizes) + ", stride " + shape_str(strides) +
              " and offset " + offset.str() + " is out of bounds for self " +
              shape_str(self.sizes));
  require_view_sizes(ctx, src, sizes, op);
  return Value::of(contiguous(self.dtype, self.sizes));
}

// unfold(dimension, size, step): windows of `size` every `step` along the dim, as a new last dim.
Value unfold(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  const Expr dimension = ctx.integer("dimension");
  if (!dimension.as_int64()) ctx.bad_input("unfold: dimension must be a constant");
  const int64_t dim = *dimension.as_int64();
  Expr size = ctx.simplify(ctx.integer("size"));
  Expr step = ctx.simplify(ctx.integer("step"));
  if (ctx.known(size >= 0) == Truth::False)
    ctx.bad_input("unfold: size is " + size.str() + " but must be >= 0");
  if (ctx.known(step > 0) == Truth::False)
    ctx.bad_input("unfold: step is " + step.str() + " but must be > 0");
  require(ctx, size >= 0, "unfold_size", "unfold: size is " + size.str() + " but must be >= 0");
  require(ctx, step > 0, "unfold_step", "unfold: step is " + step.str() + " but must be > 0");
  const size_t k = ctx.normalize_dim(dim, t.rank());
  const Expr extent = t.rank() == 0 ? Expr(1) : t.sizes[k];
  require(ctx, size <= extent, "unfold_size",
          "unfold: maximum size for tensor at dimension " + std::to_string(k) + " is " +
              extent.str() + " but size is " + size.str());
  if (t.rank() == 0) return Value::of(contiguous(t.dtype, {size}));
  std::vector<Expr> sizes = t.sizes, strides = strides_of(t);
  sizes[k] = ctx.simplify(floordiv(t.sizes[k] - size, step) + 1);
  const Expr inner = strides[k];
  strides[k] = ctx.simplify(strides[k] * step);
  sizes.push_back(size);
  strides.push_back(inner);
  TensorMeta out;
  out.dtype = t.dtype;
  out.sizes = std::move(sizes);
  out.strides = std::move(strides);
  return Value::of(out);
}

// one_hot(self, num_classes=-1): int64 self + [num_classes]; with -1 the class count is
// max(self) + 1, a data-dependent size.
Value one_hot(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  if (t.dtype != DType::Int64) {
    ctx.bad_input("one_hot is only applicable to an index tensor of type int64, got " +
                  std::string(to_string(t.dtype)));
  }
  Expr n = ctx.simplify(ctx.integer("num_classes", Expr(-1)));
  std::vector<Expr> sizes = t.sizes;
  if (n.is_constant() && *n.constant() == -1) {
    // Classes 0..max(self): at least one; an empty self cannot infer its count.
    require(ctx, t.numel() > 0, "one_hot_infer",
            "one_hot: cannot infer the number of classes from an empty tensor " +
                shape_str(t.sizes) + " (num_classes is -1)");
    Expr classes = ctx.new_unbacked_size(ValueRange::at_least(1));
    sizes.push_back(classes);
    return Value::of(contiguous(DType::Int64, sizes));
  }
  // Every class value must be in [0, num_classes): num_classes < 1 fails for any input (an empty
  // one cannot infer its count either).
  require(ctx, n >= 1, "one_hot_num_classes",
          "one_hot: num_classes must be positive (or -1 to infer it), got " + n.str());
  sizes.push_back(n);
  return Value::of(contiguous(DType::Int64, sizes));
}

// bucketize(self, boundaries, out_int32, right) and searchsorted(sorted_sequence, self, ...):
// an index for every element of self (a number gives a 0-dim result).
ShapeRule search(bool bucketize) {
  return [bucketize](OpContext& ctx) {
    const std::string op = bucketize ? "bucketize" : "searchsorted";
    const std::string seq_name = bucketize ? "boundaries" : "sorted_sequence";
    TensorMeta seq = ctx.tensor(seq_name);
    std::vector<Expr> sizes;
    const bool scalar = !ctx.is_tensor_arg("self");
    if (!scalar) sizes = ctx.tensor("self").sizes;
    const bool complex_input = !scalar && is_complex(ctx.tensor("self").dtype);
    if (is_complex(seq.dtype) || complex_input) {
      ctx.bad_input(op + ": complex tensors are not supported (they have no order)");
    }
    if (seq.rank() == 0) {
      ctx.bad_input(op + ": " + seq_name + " must have at least one dimension, got a 0-dim tensor");
    }
    if (bucketize && seq.rank() != 1) {
      ctx.bad_input(op + ": boundaries must be 1 dimension, got " + shape_str(seq.sizes));
    }
    if (seq.rank() > 1) {
      const std::string message = op + ": " + seq_name + " " + shape_str(seq.sizes) +
                                  " must be 1-d or have the leading dims of the input " +
                                  (scalar ? std::string("(a number)") : shape_str(sizes));
      if (scalar || seq.rank() != sizes.size()) ctx.bad_input(message);
      for (size_t d = 0; d + 1 < seq.rank(); ++d) {
        require(ctx, seq.sizes[d] == sizes[d], "searchsorted_leading_dims", message);
      }
    }
    if (!bucketize) {
      const bool right = ctx.boolean("right", false);
      if (ctx.has("side")) {
        const std::string side = ctx.string("side", "left");
        if (side != "left" && side != "right") {
          ctx.bad_input(op + ": side can only be 'left' or 'right', got '" + side + "'");
        }
        if (right && side == "left") {
          ctx.bad_input(op + ": side and right can't be set to opposites, got side of left" +
                        std::string(" while right was True"));
        }
      }
      if (auto sorter = ctx.optional_tensor("sorter")) {
        if (sorter->dtype != DType::Int64) {
          ctx.bad_input(op + ": sorter must be an int64 tensor, got " +
                        std::string(to_string(sorter->dtype)));
        }
        const std::string message = op + ": sorter " + shape_str(sorter->sizes) +
                                    " must have the shape of " + seq_name + " " +
                                    shape_str(seq.sizes);
        if (sorter->rank() != seq.rank()) ctx.bad_input(message);
        for (size_t d = 0; d < seq.rank(); ++d) {
          require(ctx, sorter->sizes[d] == seq.sizes[d], "searchsorted_sorter", message);
        }
      }
    } else {
      ctx.boolean("right", false);
    }
    const DType out = ctx.boolean("out_int32", false) ? DType::Int32 : DType::Int64;
    return Value::of(contiguous(out, sizes));
  };
}

// cdist(x1 [*, P, M], x2 [*, R, M], p): [*broadcast, P, R].
// _pdist_forward (self, p): [N * (N - 1) / 2] for a 2-D floating input [N, M].
Value pdist_forward(OpContext& ctx) {
  TensorMeta x = ctx.tensor("self");
  const double p = ctx.real("p", 2.0);
  if (x.rank() != 2) {
    ctx.bad_input("pdist only supports 2D tensors, got: " + std::to_string(x.rank()) + "D");
  }
  if (!is_floating(x.dtype)) {
    ctx.bad_input("pdist only supports floating-point dtypes, got " +
                  std::string(to_string(x.dtype)));
  }
  if (!(p >= 0))
    ctx.bad_input("pdist only supports non-negative p values, got " + std::to_string(p));
  const Expr& n = x.sizes[0];
  return Value::of(contiguous(x.dtype, {ctx.simplify(floordiv(n * (n - 1), 2))}));
}

Value cdist(OpContext& ctx) {
  TensorMeta a = ctx.tensor("x1");
  TensorMeta b = ctx.tensor("x2");
  const double p = ctx.real("p", 2.0);
  if (a.rank() < 2 || b.rank() < 2) {
    ctx.bad_input("cdist only supports at least 2D tensors, got x1 " + shape_str(a.sizes) +
                  " and x2 " + shape_str(b.sizes));
  }
  if (!is_floating(a.dtype) || !is_floating(b.dtype)) {
    ctx.bad_input("cdist only supports floating-point dtypes, got x1 " +
                  std::string(to_string(a.dtype)) + " and x2 " + std::string(to_string(b.dtype)));
  }
  if (a.dtype != b.dtype) {
    ctx.bad_input("cdist: x1 (" + std::string(to_string(a.dtype)) + ") and x2 (" +
                  std::string(to_string(b.dtype)) + ") must have the same dtype");
  }
  if (!(p >= 0))
    ctx.bad_input("cdist only supports non-negative p values, got " + std::to_string(p));
  if (auto mode = ctx.optional_integer("compute_mode")) {
    auto m = mode->as_int64();
    if (!m || *m < 0 || *m > 2) {
      ctx.bad_input("cdist: compute_mode must be None, 0, 1 or 2, got " + mode->str());
    }
  }
  ctx.require_equal(a.sizes.back(), b.sizes.back(), "cdist_columns",
                    "cdist: x1 " + shape_str(a.sizes) + " and x2 " + shape_str(b.sizes) +
                        " must have the same number of columns");
  std::vector<Expr> batch = broadcast_shapes(ctx, {a.sizes.begin(), a.sizes.end() - 2},
                                             {b.sizes.begin(), b.sizes.end() - 2});
  batch.push_back(a.sizes[a.rank() - 2]);
  batch.push_back(b.sizes[b.rank() - 2]);
  return Value::of(contiguous(a.dtype, batch));
}

// ---- reflection / replication / circular padding ----

enum class PadMode { Reflect, Replicate, Circular };

const char* mode_name(PadMode m) {
  switch (m) {
    case PadMode::Reflect: return "reflect";
    case PadMode::Replicate: return "replicate";
    case PadMode::Circular: return "circular";
  }
  return "?";
}

// Pads the last pad.size() / 2 dims of t: pad holds (left, right) pairs from the last dim inward.
// PyTorch's checks: the dims before the padded ones are 1 or 2 (an optional batch dim that may
// be empty, then channels); reflection and replication need every other dim non-empty and an
// output of at least 1, reflection pads smaller than the dim, circular pads at most the dim and
// an output that is not negative. Each is a guard when symbolic.
Value padded(const OpContext& ctx, const TensorMeta& t, const std::vector<Expr>& pad, PadMode mode,
             const std::string& op) {
  if (pad.size() % 2 != 0 || pad.empty()) {
    ctx.bad_input(op + ": padding must have an even, non-zero length, got " + shape_str(pad));
  }
  const size_t k = pad.size() / 2;
  if (t.rank() != k + 1 && t.rank() != k + 2) {
    ctx.bad_input(op + ": expected a " + std::to_string(k + 1) + "D or " + std::to_string(k + 2) +
                  "D (batch mode) input for padding " + shape_str(pad) + ", got " +
                  shape_str(t.sizes));
  }
  if (mode != PadMode::Circular) {
    for (size_t d = t.rank() == k + 2 ? 1 : 0; d < t.rank(); ++d) {
      require(ctx, t.sizes[d] != 0, "pad_nonempty",
              op + ": expected a " + std::to_string(k + 1) + "D or " + std::to_string(k + 2) +
                  "D (batch mode) tensor with possible 0 batch size and other non-zero "
                  "dimensions for input, but got: " +
                  shape_str(t.sizes));
    }
  }
  std::vector<Expr> sizes = t.sizes;
  for (size_t i = 0; i < k; ++i) {
    const size_t d = t.rank() - 1 - i;
    const Expr& left = pad[2 * i];
    const Expr& right = pad[2 * i + 1];
    const Expr& size = t.sizes[d];
    const std::string at = " at dimension " + std::to_string(d) + " of input " + shape_str(t.sizes);
    if (mode == PadMode::Reflect) {
      require(ctx, left < size && right < size, "reflection_pad",
              op + ": padding size should be less than the corresponding input dimension, but " +
                  "got padding (" + left.str() + ", " + right.str() + ")" + at);
    } else if (mode == PadMode::Circular) {
      require(ctx, left <= size && right <= size, "circular_pad",
              op + ": padding (" + left.str() + ", " + right.str() + ")" + at +
                  " causes wrapping around more than once");
    }
    Expr out = ctx.simplify(size + left + right);
    if (mode == PadMode::Circular) {
      require(ctx, out >= 0, "circular_pad",
              op + ": negative padding (" + left.str() + ", " + right.str() + ")" + at +
                  " is resulting in an empty dimension");
    } else {
      require(ctx, out >= 1, "pad_output",
              op + ": input (size " + size.str() + ")" + at + " is too small for padding (" +
                  left.str() + ", " + right.str() + "); calculated output size: " + out.str());
    }
    sizes[d] = out;
  }
  return Value::of(contiguous(t.dtype, sizes));
}

// reflection_padNd / replication_padNd(self, padding): padding of exactly 2n ints.
ShapeRule pad_nd(PadMode mode, size_t n) {
  return [mode, n](OpContext& ctx) {
    const std::string op = std::string(mode == PadMode::Reflect ? "reflection" : "replication") +
                           "_pad" + std::to_string(n) + "d";
    TensorMeta t = ctx.tensor("self");
    std::vector<Expr> pad = ctx.int_list("padding");
    if (pad.size() != 2 * n) {
      ctx.bad_input(op + ": padding must have " + std::to_string(2 * n) + " ints, got " +
                    shape_str(pad));
    }
    return padded(ctx, t, pad, mode, op);
  };
}

// aten.pad(self, pad, mode, value): constant_pad_nd for "constant", else the padding of the mode
// for 1 to 3 padded dims (PyTorch's _pad_enum).
Value pad(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  std::vector<Expr> p = ctx.int_list("pad");
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
    std::vector<Expr> sizes = t.sizes;
    for (size_t i = 0; i < p.size() / 2; ++i) {
      const size_t d = t.rank() - 1 - i;
      Expr s = ctx.simplify(sizes[d] + p[2 * i] + p[2 * i + 1]);
      require(ctx, s >= 0, "pad",
              "pad: padding " + shape_str(p) + " makes dim " + std::to_string(d) +
                  " negative: " + s.str());
      sizes[d] = s;
    }
    return Value::of(contiguous(t.dtype, sizes));
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
        shape_str(p) + " for input " + shape_str(t.sizes));
  }
  return padded(ctx, t, p, m, std::string("pad (") + mode_name(m) + ")");
}

// ---- upsampling ----

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

// PyTorch's output size from a scale factor: the double product size * scale truncated to an
// int. A finite double is m * 2^e with m odd, so for a symbolic size the product is exactly
// size * m / 2^e, and the double multiplication equals it while size * m < 2^53 (a guard).
// For a scale whose odd part is too wide for a useful bound (0.1, 1/3, ...), where rounding in
// the double product could cross an integer, the size is left data-dependent instead of guessed.
Expr scaled_size(const OpContext& ctx, const Expr& size, double scale, const std::string& op) {
  if (!std::isfinite(scale)) {
    ctx.bad_input(op + ": scale factors must be finite, got " + std::to_string(scale));
  }
  if (auto n = size.as_int64()) {
    const double product = static_cast<double>(*n) * scale;
    if (!(std::fabs(product) < 0x1p62)) {
      ctx.bad_input(op + ": scale factor " + std::to_string(scale) + " makes a size too large");
    }
    return Expr(static_cast<long>(static_cast<int64_t>(product)));
  }
  if (scale <= 0) return Expr(0);  // the product is not positive: refused as too small below
  int e = 0;
  double mantissa = std::frexp(scale, &e);  // scale = mantissa * 2^e, mantissa in [0.5, 1)
  // m: mantissa * 2^53 as an integer, made odd.
  int64_t m = static_cast<int64_t>(std::ldexp(mantissa, 53));
  e -= 53;
  while (m % 2 == 0) {
    m /= 2;
    ++e;
  }
  constexpr int64_t kWideOdd = int64_t{1} << 21;
  if (m >= kWideOdd) {
    return ctx.new_unbacked_size();  // see above: rounding makes the exact size data-dependent
  }
  const Expr product = size * Expr(static_cast<long>(m));
  require(ctx, product < Expr(cln::ash(Int(1), 53)), "upsample_scale_exact",
          op + ": size " + size.str() + " times scale factor " + std::to_string(scale) +
              " is beyond the integers a double holds exactly");
  if (e >= 0) return ctx.simplify(product * Expr(cln::ash(Int(1), e)));
  return ctx.simplify(floordiv(product, Expr(cln::ash(Int(1), -e))));
}

// upsample_{nearest,bilinear,bicubic}Nd(self, output_size, [align_corners,] scales...) and their
// .vec overloads (input, output_size?, [align_corners,] scale_factors?): N, C, then k spatial
// dims of the output size, each from output_size or from the input size and a scale factor.
ShapeRule upsample(Interp mode, size_t k) {
  return [mode, k](OpContext& ctx) {
    const std::string op = interp_name(mode) + std::to_string(k) + "d";
    const std::string self = ctx.schema().params.at(0).name;
    TensorMeta t = ctx.tensor(self);
    auto sizes_arg = ctx.optional_int_list("output_size");
    const bool vec = ctx.declares("scale_factors");
    std::optional<std::vector<double>> scales;
    if (vec && ctx.has("scale_factors")) {
      Value v = ctx.value("scale_factors");
      std::vector<double> list;
      for (const Value& item : v.items) {
        if (item.kind == Value::Kind::Float) {
          list.push_back(item.real);
        } else if (item.kind == Value::Kind::Int && item.integer.as_int64()) {
          list.push_back(static_cast<double>(*item.integer.as_int64()));
        } else {
          ctx.bad_input(op + ": scale_factors must be a list of numbers, got " + v.str());
        }
      }
      if (v.kind != Value::Kind::List) {
        ctx.bad_input(op + ": scale_factors must be a list of numbers, got " + v.str());
      }
      scales = list;
    }
    if (mode == Interp::Bilinear || mode == Interp::Bicubic) ctx.boolean("align_corners", false);
    if (t.rank() != k + 2) {
      ctx.bad_input(op + " expects a " + std::to_string(k + 2) + "D input (N, C and " +
                    std::to_string(k) + " spatial dims), got " + shape_str(t.sizes));
    }
    if (sizes_arg.has_value() == scales.has_value()) {
      ctx.bad_input(op + ": must specify exactly one of output_size and scale_factors");
    }
    std::vector<Expr> out;
    if (sizes_arg) {
      if (sizes_arg->size() != k) {
        ctx.bad_input(op + ": output_size must have " + std::to_string(k) + " ints, got " +
                      shape_str(*sizes_arg));
      }
      out = *sizes_arg;
    } else {
      if (scales->size() != k) {
        ctx.bad_input(op + ": scale_factors must have " + std::to_string(k) + " numbers, got " +
                      std::to_string(scales->size()));
      }
      for (size_t i = 0; i < k; ++i)
        out.push_back(scaled_size(ctx, t.sizes[2 + i], (*scales)[i], op));
    }
    if (!vec) {
      for (const char* name : {"scales", "scales_d", "scales_h", "scales_w"}) {
        if (ctx.declares(name)) ctx.real(name, 0.0);
      }
    }
    std::string shapes = "input " + shape_str(t.sizes) + ", output size " + shape_str(out);
    for (size_t i = 0; i < k; ++i) {
      require(ctx, t.sizes[2 + i] > 0 && out[i] > 0, "upsample_sizes",
              op + ": input and output sizes should be greater than 0, but got " + shapes);
    }
    require(ctx, t.sizes[1] != 0, "upsample_nonempty",
            op + ": non-empty " + std::to_string(k + 2) + "D data tensor expected but got " +
                shape_str(t.sizes));
    std::vector<Expr> sizes = {t.sizes[0], t.sizes[1]};
    for (const Expr& e : out) sizes.push_back(ctx.simplify(e));
    return Value::of(contiguous(t.dtype, sizes));
  };
}

// ---- im2col / col2im ----

// The four int[2] parameters of im2col / col2im (a single int is both), each checked.
struct Blocks {
  std::vector<int64_t> kernel, dilation, padding, stride;
};

std::vector<int64_t> pair_param(const OpContext& ctx, std::string_view name,
                                const std::string& op) {
  std::vector<Expr> list = ctx.int_list(name);
  if (list.size() == 1) list.push_back(list[0]);
  std::vector<int64_t> out;
  for (const Expr& e : list) {
    if (!e.as_int64()) ctx.bad_input(op + ": " + std::string(name) + " must be constants");
    out.push_back(*e.as_int64());
  }
  if (out.size() != 2) {
    ctx.bad_input(op + ": " + std::string(name) + " must have 2 ints, got " + shape_str(list));
  }
  return out;
}

Blocks block_params(const OpContext& ctx, const std::string& op) {
  Blocks b{pair_param(ctx, "kernel_size", op), pair_param(ctx, "dilation", op),
           pair_param(ctx, "padding", op), pair_param(ctx, "stride", op)};
  auto check = [&](const std::vector<int64_t>& v, int64_t least, const char* what) {
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

// The number of sliding blocks along a dim of `size`: floor((size + 2p - d(k-1) - 1) / s) + 1.
Expr block_count(const OpContext& ctx, const Expr& size, const Blocks& b, size_t i) {
  const Expr span = size + Expr(static_cast<long>(2 * b.padding[i])) -
                    Expr(static_cast<long>(b.dilation[i] * (b.kernel[i] - 1) + 1));
  return ctx.simplify(floordiv(span, Expr(static_cast<long>(b.stride[i]))) + 1);
}

// im2col(self [N, C, H, W] or [C, H, W], kernel_size, dilation, padding, stride):
// [N, C * kh * kw, blocks].
Value im2col(OpContext& ctx) {
  const std::string op = "im2col";
  TensorMeta t = ctx.tensor("self");
  const Blocks b = block_params(ctx, op);
  if (t.rank() != 3 && t.rank() != 4) {
    ctx.bad_input(op + ": expected a 3D or 4D (batch mode) input, got " + shape_str(t.sizes));
  }
  const size_t first = t.rank() - 3;
  for (size_t d = first; d < t.rank(); ++d) {
    require(ctx, t.sizes[d] != 0, "im2col_nonempty",
            op + ": expected non-zero dimensions (but a possibly empty batch) for input " +
                shape_str(t.sizes));
  }
  std::vector<Expr> blocks;
  for (size_t i = 0; i < 2; ++i) blocks.push_back(block_count(ctx, t.sizes[first + 1 + i], b, i));
  for (const Expr& n : blocks) {
    require(ctx, n >= 1, "im2col_blocks",
            op + ": input " + shape_str(t.sizes) + " gives " + shape_str(blocks) +
                " sliding blocks, but each must be at least one");
  }
  std::vector<Expr> sizes;
  if (first) sizes.push_back(t.sizes[0]);
  sizes.push_back(
      ctx.simplify(t.sizes[first] * Expr(static_cast<long>(b.kernel[0] * b.kernel[1]))));
  sizes.push_back(ctx.simplify(blocks[0] * blocks[1]));
  return Value::of(contiguous(t.dtype, sizes));
}

// col2im(self [N, C * kh * kw, L] or [C * kh * kw, L], output_size, kernel_size, dilation,
// padding, stride): [N, C, H, W], L being the number of sliding blocks over (H, W).
Value col2im(OpContext& ctx) {
  const std::string op = "col2im";
  TensorMeta t = ctx.tensor("self");
  std::vector<Expr> out = ctx.int_list("output_size");
  if (out.size() == 1) out.push_back(out[0]);
  if (out.size() != 2) ctx.bad_input(op + ": output_size must have 2 ints, got " + shape_str(out));
  const Blocks b = block_params(ctx, op);
  if (t.rank() != 2 && t.rank() != 3) {
    ctx.bad_input(op + ": expected a 2D or 3D (batch mode) input, got " + shape_str(t.sizes));
  }
  const size_t first = t.rank() - 2;
  for (size_t d = first; d < t.rank(); ++d) {
    require(ctx, t.sizes[d] != 0, "col2im_nonempty",
            op + ": expected non-zero dimensions (but a possibly empty batch) for input " +
                shape_str(t.sizes));
  }
  for (const Expr& o : out) {
    require(ctx, o > 0, "col2im_output",
            op + ": output_size " + shape_str(out) + " should be greater than zero");
  }
  const Expr kernel(static_cast<long>(b.kernel[0] * b.kernel[1]));
  require(ctx, mod(t.sizes[first], kernel) == 0, "col2im_channels",
          op + ": expected size of input's dimension " + std::to_string(first) +
              " to be divisible by the product of kernel_size (" + kernel.str() + "), got " +
              shape_str(t.sizes));
  std::vector<Expr> blocks = {block_count(ctx, out[0], b, 0), block_count(ctx, out[1], b, 1)};
  ctx.require_equal(t.sizes[first + 1], blocks[0] * blocks[1], "col2im_blocks",
                    op + ": expected size of input's dimension " + std::to_string(first + 1) +
                        " to match the calculated number of sliding blocks " +
                        ctx.simplify(blocks[0] * blocks[1]).str() + ", got " + shape_str(t.sizes));
  for (const Expr& n : blocks) {
    require(ctx, n >= 1, "col2im_blocks",
            op + ": output_size " + shape_str(out) + " gives " + shape_str(blocks) +
                " sliding blocks, but each must be at least one");
  }
  std::vector<Expr> sizes;
  if (first) sizes.push_back(t.sizes[0]);
  sizes.push_back(ctx.simplify(floordiv(t.sizes[first], kernel)));
  sizes.push_back(out[0]);
  sizes.push_back(out[1]);
  return Value::of(contiguous(t.dtype, sizes));
}

// ---- grid_sampler_2d ----

// grid_sampler_2d(input [N, C, H, W], grid [N, Ho, Wo, 2], interpolation_mode, padding_mode,
// align_corners): [N, C, Ho, Wo]. Bilinear (0) and nearest (1) interpolation with zeros (0) or
// border (1) padding; the other modes are refused as not supported yet.
Value grid_sampler_2d(OpContext& ctx) {
  const std::string op = "grid_sampler_2d";
  TensorMeta input = ctx.tensor("input");
  TensorMeta grid = ctx.tensor("grid");
  const int64_t interpolation = ctx.constant("interpolation_mode");
  const int64_t padding = ctx.constant("padding_mode");
  ctx.boolean("align_corners", false);
  if (interpolation != 0 && interpolation != 1) {
    ctx.bad_input(op + ": interpolation_mode " + std::to_string(interpolation) +
                  " is not supported (0 bilinear and 1 nearest are; 2 bicubic is not yet)");
  }
  if (padding != 0 && padding != 1) {
    ctx.bad_input(op + ": padding_mode " + std::to_string(padding) +
                  " is not supported (0 zeros and 1 border are; 2 reflection is not yet)");
  }
  if (input.dtype != grid.dtype) {
    ctx.bad_input(op + ": expected input and grid to have the same dtype, got " +
                  std::string(to_string(input.dtype)) + " and " +
                  std::string(to_string(grid.dtype)));
  }
  if (!is_floating(input.dtype)) {
    ctx.bad_input(op + ": expected floating-point input and grid, got " +
                  std::string(to_string(input.dtype)));
  }
  if (input.rank() != 4 || grid.rank() != 4) {
    ctx.bad_input(op + ": expected 4D input and grid, got input " + shape_str(input.sizes) +
                  " and grid " + shape_str(grid.sizes));
  }
  ctx.require_equal(input.sizes[0], grid.sizes[0], "grid_sampler_batch",
                    op + ": expected grid " + shape_str(grid.sizes) + " and input " +
                        shape_str(input.sizes) + " to have the same batch size");
  ctx.require_equal(
      grid.sizes[3], Expr(2), "grid_sampler_last",
      op + ": expected grid to have size 2 in its last dimension, got " + shape_str(grid.sizes));
  for (size_t d = 2; d < 4; ++d) {
    require(ctx, input.sizes[d] > 0, "grid_sampler_spatial",
            op + ": expected input to have non-empty spatial dimensions, got " +
                shape_str(input.sizes));
  }
  return Value::of(
      contiguous(input.dtype, {input.sizes[0], input.sizes[1], grid.sizes[1], grid.sizes[2]}));
}

// ---- _native_multi_head_attention ----

// The mask of _native_multi_head_attention and _transformer_encoder_layer_fwd, checked against
// the attention scores [B, heads, T, T]. By mask_type: 0, an attention mask [T, T]; 1, a key
// padding mask [B, T]; 2, a mask of the scores' shape. A mask that is not 2-D is always of type 2,
// as PyTorch's _masked_softmax treats it. Any dtype: PyTorch makes it bool (non-zero masks out).
void check_attention_mask(const OpContext& ctx, const std::string& op, const Expr& batch,
                          const Expr& seq, int64_t heads) {
  std::optional<TensorMeta> mask = ctx.optional_tensor("mask");
  if (!mask) return;
  std::optional<int64_t> type;
  if (auto t = ctx.optional_integer("mask_type")) {
    type = t->as_int64();
    if (!type) ctx.bad_input(op + ": mask_type must be a constant, got " + t->str());
  }
  if (mask->rank() != 2) type = 2;
  if (!type) ctx.bad_input(op + ": a 2-D mask needs a mask_type (0: [T, T], 1: [B, T])");
  std::vector<Expr> want;
  switch (*type) {
    case 0: want = {seq, seq}; break;
    case 1: want = {batch, seq}; break;
    case 2: want = {batch, Expr(static_cast<long>(heads)), seq, seq}; break;
    default: ctx.bad_input(op + ": mask_type must be 0, 1 or 2, got " + std::to_string(*type));
  }
  const std::string message = op + ": a mask of mask_type " + std::to_string(*type) +
                              " must have shape " + shape_str(want) + ", got " +
                              shape_str(mask->sizes);
  if (mask->rank() != want.size()) ctx.fail(message);
  for (size_t i = 0; i < want.size(); ++i) {
    ctx.require_equal(mask->sizes[i], want[i], "attention_mask", message);
  }
}

// _native_multi_head_attention(query, key, value [B, T, D], embed_dim D, num_head, qkv_weight
// [3D, D], qkv_bias [3D], proj_weight [D, D], proj_bias [D], mask, need_weights,
// average_attn_weights, mask_type): ([B, T, D], the attention weights). The weights are
// [B, T, T] averaged over heads, [B, num_head, T, T] per head, or None without need_weights
// (PyTorch's fast path returns an undefined tensor there). The mask, if any, as
// check_attention_mask says.
Value native_multi_head_attention(OpContext& ctx) {
  const std::string op = "_native_multi_head_attention";
  TensorMeta q = ctx.tensor("query"), k = ctx.tensor("key"), v = ctx.tensor("value");
  const Expr d = ctx.simplify(ctx.integer("embed_dim"));
  const int64_t heads = ctx.constant("num_head");
  TensorMeta w = ctx.tensor("qkv_weight"), b = ctx.tensor("qkv_bias");
  TensorMeta pw = ctx.tensor("proj_weight"), pb = ctx.tensor("proj_bias");
  const bool need_weights = ctx.boolean("need_weights", true);
  const bool average = ctx.boolean("average_attn_weights", true);
  if (heads <= 0) ctx.bad_input(op + ": num_head must be positive, got " + std::to_string(heads));
  auto rank = [&](const TensorMeta& t, size_t r, const char* name) {
    if (t.rank() != r) {
      ctx.bad_input(op + ": expected " + std::to_string(r) + "-D `" + name + "`, got " +
                    shape_str(t.sizes));
    }
  };
  rank(q, 3, "query");
  rank(k, 3, "key");
  rank(v, 3, "value");
  rank(w, 2, "qkv_weight");
  rank(b, 1, "qkv_bias");
  rank(pw, 2, "proj_weight");
  rank(pb, 1, "proj_bias");
  for (const TensorMeta* t : {&k, &v, &w, &b, &pw, &pb}) {
    if (t->dtype != q.dtype) {
      ctx.bad_input(op + ": every tensor must have query's dtype " +
                    std::string(to_string(q.dtype)) + ", got " + std::string(to_string(t->dtype)));
    }
  }
  if (!is_floating(q.dtype)) {
    ctx.bad_input(op + ": expected floating-point tensors, got " + std::string(to_string(q.dtype)));
  }
  ctx.require_equal(q.sizes[2], d, "mha_embed_dim",
                    op + ": passed-in embed_dim " + d.str() + " didn't match last dim of query " +
                        shape_str(q.sizes));
  for (size_t i = 0; i < 3; ++i) {
    ctx.require_equal(k.sizes[i], q.sizes[i], "mha_qkv_shapes",
                      op + ": expected query " + shape_str(q.sizes) + ", key " +
                          shape_str(k.sizes) + " and value " + shape_str(v.sizes) +
                          " shapes to match");
    ctx.require_equal(v.sizes[i], q.sizes[i], "mha_qkv_shapes",
                      op + ": expected query " + shape_str(q.sizes) + ", key " +
                          shape_str(k.sizes) + " and value " + shape_str(v.sizes) +
                          " shapes to match");
  }
  ctx.require_equal(
      w.sizes[0], 3 * d, "mha_qkv_weight",
      op + ": expected `qkv_weight` " + shape_str(w.sizes) + " first dim to be 3x embed_dim");
  ctx.require_equal(
      w.sizes[1], d, "mha_qkv_weight",
      op + ": expected `qkv_weight` " + shape_str(w.sizes) + " second dim to be embed_dim");
  ctx.require_equal(b.sizes[0], 3 * d, "mha_qkv_bias",
                    op + ": expected `qkv_bias` " + shape_str(b.sizes) + " to have 3x embed_dim");
  require(
      ctx, mod(d, Expr(static_cast<long>(heads))) == 0, "mha_heads",
      op + ": embed_dim " + d.str() + " must divide evenly by num_head " + std::to_string(heads));
  ctx.require_equal(pw.sizes[0], d, "mha_proj_weight",
                    op + ": expected `proj_weight` " + shape_str(pw.sizes) + " to be [D, D]");
  ctx.require_equal(pw.sizes[1], d, "mha_proj_weight",
                    op + ": expected `proj_weight` " + shape_str(pw.sizes) + " to be [D, D]");
  ctx.require_equal(pb.sizes[0], d, "mha_proj_bias",
                    op + ": expected `proj_bias` " + shape_str(pb.sizes) + " to be [D]");
  const Expr& batch = q.sizes[0];
  const Expr& seq = q.sizes[1];
  check_attention_mask(ctx, op, batch, seq, heads);
  Value out = Value::of(contiguous(q.dtype, {batch, seq, d}));
  Value weights = Value::none();
  if (need_weights) {
    weights = Value::of(contiguous(
        q.dtype, average ? std::vector<Expr>{batch, seq, seq}
                         : std::vector<Expr>{batch, Expr(static_cast<long>(heads)), seq, seq}));
  }
  return Value::list({out, weights});
}

// ---- _transformer_encoder_layer_fwd ----

// _transformer_encoder_layer_fwd(src [B, T, D], embed_dim, num_heads, the attention's and the
// feed-forward block's weights, ...): src's shape. An empty src is returned as a copy without
// any check (as PyTorch does); otherwise every weight must have its shape, and the mask, if any,
// as check_attention_mask says.
Value transformer_encoder_layer(OpContext& ctx) {
  const std::string op = "_transformer_encoder_layer_fwd";
  TensorMeta src = ctx.tensor("src");
  const Expr d = ctx.simplify(ctx.integer("embed_dim"));
  const int64_t heads = ctx.constant("num_heads");
  ctx.boolean("use_gelu", false);
  ctx.boolean("norm_first", false);
  ctx.real("eps", 1e-5);
  if (src.rank() != 3) ctx.bad_input(op + ": expected a 3-D `src`, got " + shape_str(src.sizes));
  if (!is_floating(src.dtype)) {
    ctx.bad_input(op + ": expected a floating-point `src`, got " +
                  std::string(to_string(src.dtype)));
  }
  TensorMeta out = contiguous(src.dtype, src.sizes);
  if (ctx.known(src.numel() == 0) == Truth::True ||
      (ctx.known(src.numel() != 0) != Truth::True &&
       ctx.decide(src.numel() == 0, "encoder_empty"))) {
    return Value::of(out);
  }
  if (heads <= 0) {
    ctx.bad_input(op + ": num_heads must be positive, got " + std::to_string(heads));
  }
  ctx.require_equal(src.sizes[2], d, "encoder_embed_dim",
                    op + ": passed-in embed_dim " + d.str() + " didn't match last dim of src " +
                        shape_str(src.sizes));
  require(
      ctx, mod(d, Expr(static_cast<long>(heads))) == 0, "encoder_heads",
      op + ": embed_dim " + d.str() + " must divide evenly by num_heads " + std::to_string(heads));
  TensorMeta f1 = ctx.tensor("ffn_weight_1");
  if (f1.rank() != 2) ctx.bad_input(op + ": expected a 2-D `ffn_weight_1`");
  const Expr hidden = f1.sizes[0];
  const std::pair<const char*, std::vector<Expr>> params[] = {
      {"qkv_weight", {3 * d, d}}, {"qkv_bias", {3 * d}},         {"proj_weight", {d, d}},
      {"proj_bias", {d}},         {"norm_weight_1", {d}},        {"norm_bias_1", {d}},
      {"norm_weight_2", {d}},     {"norm_bias_2", {d}},          {"ffn_weight_1", {hidden, d}},
      {"ffn_bias_1", {hidden}},   {"ffn_weight_2", {d, hidden}}, {"ffn_bias_2", {d}}};
  for (const auto& [name, sizes] : params) {
    TensorMeta t = ctx.tensor(name);
    if (t.dtype != src.dtype) {
      ctx.bad_input(op + ": `" + name + "` must have src's dtype " +
                    std::string(to_string(src.dtype)));
    }
    const std::string message =
        op + ": expected `" + name + "` of " + shape_str(sizes) + ", got " + shape_str(t.sizes);
    if (t.rank() != sizes.size()) ctx.bad_input(message);
    for (size_t i = 0; i < sizes.size(); ++i) {
      ctx.require_equal(t.sizes[i], sizes[i], "encoder_weights", message);
    }
  }
  check_attention_mask(ctx, op, src.sizes[0], src.sizes[1], heads);
  return Value::of(out);
}

}  // namespace

void register_structured(OpRegistry& r) {
  r.add("aten.tril", triangle("tril"));
  r.add("aten.triu", triangle("triu"));
  r.add("aten.diagonal", diagonal);
  r.add("aten.linalg_diagonal", diagonal);
  r.add("aten.diagonal_copy", [](OpContext& ctx) {
    Value v = diagonal(ctx);
    v.tensor.strides.clear();  // a contiguous copy
    return v;
  });
  r.add("aten.diag", diag);
  r.add("aten.diag_embed", diag_embed);
  r.add("aten.diagonal_scatter", diagonal_scatter);
  r.add("aten.as_strided_scatter", as_strided_scatter);
  r.add("aten.unfold", unfold);
  r.add("aten.unfold_copy", [](OpContext& ctx) {
    Value v = unfold(ctx);
    v.tensor.strides.clear();
    return v;
  });
  r.add("aten.one_hot", one_hot);
  r.add("aten.bucketize", search(true));
  r.add("aten.searchsorted", search(false));
  r.add("aten.cdist", cdist);
  r.add("aten._cdist_forward", cdist);
  r.add("aten._pdist_forward", pdist_forward);
  for (size_t n = 1; n <= 3; ++n) {
    r.add("aten.reflection_pad" + std::to_string(n) + "d", pad_nd(PadMode::Reflect, n));
    r.add("aten.replication_pad" + std::to_string(n) + "d", pad_nd(PadMode::Replicate, n));
  }
  r.add("aten._pad_circular", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor("self");
    return padded(ctx, t, ctx.int_list("pad"), PadMode::Circular, "_pad_circular");
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

}  // namespace symshape::ops
