// Structured ops: triangles (tril / triu), diagonals (diagonal, diag, diag_embed,
// diagonal_scatter), sliding windows (unfold), as_strided_scatter, one_hot, bucketize /
// searchsorted and cdist.
#include <algorithm>
#include <cmath>

#include "symshape/ops/families.h"
#include "symshape/ops/validate/structured.h"

namespace symshape::ops {

namespace {

using validate::PadMode;

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
  const auto [d1, d2] = validate::diagonal_dims(ctx, t.sizes, dim1, dim2, op);
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
    validate::triangle_input(ctx, t.sizes, op);
    return Value::of(contiguous(t.dtype, t.sizes));
  };
}

// diag: a 1-d input of n becomes the (n + |d|)-square matrix with it on diagonal d; a 2-d input
// gives its diagonal d.
Value diag(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  const int64_t d = dim_arg(ctx, "diagonal", 0, "diag");
  validate::diag_input(ctx, t.sizes);
  if (t.rank() == 1) {
    const Expr offset(static_cast<long>(d));  // |d| as an Expr: -INT64_MIN is fine there
    Expr n = ctx.simplify(t.sizes[0] + (d < 0 ? -offset : offset));
    return Value::of(contiguous(t.dtype, {n, n}));
  }
  return Value::of(contiguous(t.dtype, {diagonal_length(ctx, t.sizes[0], t.sizes[1], d)}));
}

// diag_embed(self, offset, dim1, dim2): the last dim of self becomes diagonal `offset` of a new
// square pair of dims (dim1, dim2 of the result, which has one dim more).
Value diag_embed(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  const int64_t offset = dim_arg(ctx, "offset", 0, "diag_embed");
  const auto [d1, d2] = validate::diag_embed_dims(
      ctx, t.sizes, dim_arg(ctx, "dim1", -2, "diag_embed"), dim_arg(ctx, "dim2", -1, "diag_embed"));
  const size_t rank = t.rank() + 1;
  const Expr o(static_cast<long>(offset));
  const Expr n = ctx.simplify(t.sizes.back() + (offset < 0 ? -o : o));
  std::vector<Expr> rest(t.sizes.begin(), t.sizes.end() - 1), sizes;
  size_t next = 0;
  for (size_t d = 0; d < rank; ++d) sizes.push_back(d == d1 || d == d2 ? n : rest[next++]);
  return Value::of(contiguous(t.dtype, sizes));
}

Value diagonal_scatter(OpContext& ctx) {
  TensorMeta self = ctx.tensor("self");
  TensorMeta src = ctx.tensor("src");
  const TensorMeta view =
      diagonal_of(ctx, self, dim_arg(ctx, "offset", 0, "diagonal_scatter"),
                  dim_arg(ctx, "dim1", 0, "diagonal_scatter"),
                  dim_arg(ctx, "dim2", 1, "diagonal_scatter"), "diagonal_scatter");
  validate::scatter_src(ctx, src.sizes, view.sizes, "diagonal_scatter");
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
  validate::strided_view(ctx, sizes, strides, offset, op);
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
  validate::scatter_src(ctx, src.sizes, sizes, op);
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
  const size_t k = validate::unfold_args(ctx, t.sizes, dim, size, step);
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
  Expr n = ctx.simplify(ctx.integer("num_classes", Expr(-1)));
  validate::one_hot_args(ctx, t.dtype, t.sizes, t.numel(), n);
  std::vector<Expr> sizes = t.sizes;
  if (n.is_constant() && *n.constant() == -1) {
    // Classes 0..max(self): at least one (an empty self cannot infer its count).
    Expr classes = ctx.new_unbacked_size(ValueRange::at_least(1));
    sizes.push_back(classes);
    return Value::of(contiguous(DType::Int64, sizes));
  }
  sizes.push_back(n);
  return Value::of(contiguous(DType::Int64, sizes));
}

// bucketize(self, boundaries, out_int32, right) and searchsorted(sorted_sequence, self, ...):
// an index for every element of self (a number gives a 0-dim result).
ShapeRule search(bool bucketize) {
  return [bucketize](OpContext& ctx) {
    TensorMeta seq = ctx.tensor(bucketize ? "boundaries" : "sorted_sequence");
    std::optional<TensorMeta> self;
    if (ctx.is_tensor_arg("self")) self = ctx.tensor("self");
    validate::search_args(ctx, bucketize, seq, self ? &*self : nullptr);
    const DType out = ctx.boolean("out_int32", false) ? DType::Int32 : DType::Int64;
    return Value::of(contiguous(out, self ? self->sizes : std::vector<Expr>{}));
  };
}

// cdist(x1 [*, P, M], x2 [*, R, M], p): [*broadcast, P, R].
// _pdist_forward (self, p): [N * (N - 1) / 2] for a 2-D floating input [N, M].
Value pdist_forward(OpContext& ctx) {
  TensorMeta x = ctx.tensor("self");
  validate::pdist_args(ctx, x, ctx.real("p", 2.0));
  const Expr& n = x.sizes[0];
  return Value::of(contiguous(x.dtype, {ctx.simplify(floordiv(n * (n - 1), 2))}));
}

Value cdist(OpContext& ctx) {
  TensorMeta a = ctx.tensor("x1");
  TensorMeta b = ctx.tensor("x2");
  validate::cdist_args(ctx, a, b, ctx.real("p", 2.0));
  std::vector<Expr> batch = broadcast_shapes(ctx, {a.sizes.begin(), a.sizes.end() - 2},
                                             {b.sizes.begin(), b.sizes.end() - 2});
  batch.push_back(a.sizes[a.rank() - 2]);
  batch.push_back(b.sizes[b.rank() - 2]);
  return Value::of(contiguous(a.dtype, batch));
}

// ---- reflection / replication / circular padding ----

const char* mode_name(PadMode m) {
  switch (m) {
    case PadMode::Reflect: return "reflect";
    case PadMode::Replicate: return "replicate";
    case PadMode::Circular: return "circular";
  }
  return "?";
}

// Pads the last pad.size() / 2 dims of t: pad holds (left, right) pairs from the last dim inward
// (checked by validate::padding: each requirement is a guard when symbolic).
Value padded(const OpContext& ctx, const TensorMeta& t, const std::vector<Expr>& pad, PadMode mode,
             const std::string& op) {
  validate::padding(ctx, t.sizes, pad, mode, op);
  std::vector<Expr> sizes = t.sizes;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const size_t d = t.rank() - 1 - i;
    sizes[d] = ctx.simplify(t.sizes[d] + pad[2 * i] + pad[2 * i + 1]);
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
    validate::padding_count(ctx, pad, n, op);
    return padded(ctx, t, pad, mode, op);
  };
}

// aten.pad(self, pad, mode, value): constant_pad_nd for "constant", else the padding of the mode
// for 1 to 3 padded dims (PyTorch's _pad_enum).
Value pad(OpContext& ctx) {
  TensorMeta t = ctx.tensor("self");
  std::vector<Expr> p = ctx.int_list("pad");
  const std::string mode = ctx.string("mode", "constant");
  const std::optional<PadMode> m = validate::pad_args(ctx, t.sizes, p, mode);
  if (!m) {
    std::vector<Expr> sizes = t.sizes;
    for (size_t i = 0; i < p.size() / 2; ++i) {
      const size_t d = t.rank() - 1 - i;
      sizes[d] = ctx.simplify(sizes[d] + p[2 * i] + p[2 * i + 1]);
    }
    return Value::of(contiguous(t.dtype, sizes));
  }
  return padded(ctx, t, p, *m, std::string("pad (") + mode_name(*m) + ")");
}

// ---- upsampling ----

using validate::Interp;
using validate::interp_name;

// PyTorch's output size from a scale factor: the double product size * scale truncated to an
// int. A finite double is m * 2^e with m odd, so for a symbolic size the product is exactly
// size * m / 2^e, and the double multiplication equals it while size * m < 2^53 (a guard).
// For a scale whose odd part is too wide for a useful bound (0.1, 1/3, ...), where rounding in
// the double product could cross an integer, the size is left data-dependent instead of guessed.
Expr scaled_size(const OpContext& ctx, const Expr& size, double scale, const std::string& op) {
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
    const std::optional<std::vector<double>> scales = validate::scale_factors(ctx, op);
    if (mode == Interp::Bilinear || mode == Interp::Bicubic) ctx.boolean("align_corners", false);
    validate::upsample_args(ctx, t.sizes, sizes_arg, scales, k, op);
    std::vector<Expr> out;
    if (sizes_arg) {
      out = *sizes_arg;
    } else {
      for (size_t i = 0; i < k; ++i)
        out.push_back(scaled_size(ctx, t.sizes[2 + i], (*scales)[i], op));
    }
    if (!vec) {
      for (const char* name : {"scales", "scales_d", "scales_h", "scales_w"}) {
        if (ctx.declares(name)) ctx.real(name, 0.0);
      }
    }
    validate::upsample_sizes(ctx, t.sizes, out, op);
    std::vector<Expr> sizes = {t.sizes[0], t.sizes[1]};
    for (const Expr& e : out) sizes.push_back(ctx.simplify(e));
    return Value::of(contiguous(t.dtype, sizes));
  };
}

// ---- im2col / col2im ----

using validate::Blocks;

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
  const Blocks b = validate::block_params(ctx, op);
  const size_t first = validate::blocks_input(ctx, t.sizes, 3, op);
  std::vector<Expr> blocks;
  for (size_t i = 0; i < 2; ++i) blocks.push_back(block_count(ctx, t.sizes[first + 1 + i], b, i));
  validate::block_counts(ctx, blocks, "input " + shape_str(t.sizes), op);
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
  validate::pair_param(ctx, out, "output_size", op);
  const Blocks b = validate::block_params(ctx, op);
  const size_t first = validate::blocks_input(ctx, t.sizes, 2, op);
  validate::col2im_output(ctx, out);
  std::vector<Expr> blocks = {block_count(ctx, out[0], b, 0), block_count(ctx, out[1], b, 1)};
  validate::col2im_sizes(ctx, t.sizes, first, out, b, blocks);
  const Expr kernel(static_cast<long>(b.kernel[0] * b.kernel[1]));
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
  TensorMeta input = ctx.tensor("input");
  TensorMeta grid = ctx.tensor("grid");
  const int64_t interpolation = ctx.constant("interpolation_mode");
  const int64_t padding = ctx.constant("padding_mode");
  ctx.boolean("align_corners", false);
  validate::grid_sampler_args(ctx, input, grid, interpolation, padding);
  return Value::of(
      contiguous(input.dtype, {input.sizes[0], input.sizes[1], grid.sizes[1], grid.sizes[2]}));
}

// ---- _native_multi_head_attention ----

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
  validate::multi_head_attention_args(ctx, q, k, v, w, b, pw, pb, d, heads);
  const Expr& batch = q.sizes[0];
  const Expr& seq = q.sizes[1];
  validate::attention_mask(ctx, ctx.optional_tensor("mask"), op, batch, seq, heads);
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
  validate::encoder_src(ctx, src);
  TensorMeta out = contiguous(src.dtype, src.sizes);
  if (ctx.known(src.numel() == 0) == Truth::True ||
      (ctx.known(src.numel() != 0) != Truth::True &&
       ctx.decide(src.numel() == 0, "encoder_empty"))) {
    return Value::of(out);
  }
  validate::encoder_weights(ctx, src, d, heads);
  validate::attention_mask(ctx, ctx.optional_tensor("mask"), op, src.sizes[0], src.sizes[1], heads);
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
