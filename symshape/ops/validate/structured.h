// Internal: the argument validation of the structured ops (triangles, diagonals, unfold,
// as_strided_scatter, one_hot, bucketize / searchsorted, cdist / pdist, padding, upsampling,
// im2col / col2im, grid_sampler_2d, the fused attention ops), shared by their shape rules
// (symshape/ops/structured.cc) and their kernels (symshape/interp/structured.cc). See checks.h.
#pragma once

#include <cmath>
#include <type_traits>
#include <utility>

#include "symshape/ops/validate/checks.h"

namespace symshape::validate {

// diagonal(offset, dim1, dim2) of a tensor of `sizes` (op names the caller): at least 2 dims and
// two distinct dims; returns them normalized.
template <class Ctx, class Size>
std::pair<size_t, size_t> diagonal_dims(const Ctx& ctx, const std::vector<Size>& sizes,
                                        int64_t dim1, int64_t dim2, const std::string& op) {
  if (sizes.size() < 2) {
    ctx.bad_input(op + " needs a tensor of at least 2 dims, got " + text(sizes));
  }
  const size_t d1 = ctx.normalize_dim(dim1, sizes.size());
  const size_t d2 = ctx.normalize_dim(dim2, sizes.size());
  if (d1 == d2) {
    ctx.bad_input(op + ": diagonal dimensions cannot be identical " + std::to_string(dim1) + ", " +
                  std::to_string(dim2));
  }
  return {d1, d2};
}

// tril / triu: at least 2 dims.
template <class Ctx, class Size>
void triangle_input(const Ctx& ctx, const std::vector<Size>& sizes, const std::string& op) {
  if (sizes.size() < 2) {
    ctx.bad_input(op + ": input tensor must have at least 2 dimensions, got " + text(sizes));
  }
}

// diag: a 1-d or a 2-d input.
template <class Ctx, class Size>
void diag_input(const Ctx& ctx, const std::vector<Size>& sizes) {
  if (sizes.size() != 1 && sizes.size() != 2) {
    ctx.bad_input("diag: supports 1D or 2D tensors, got " + std::to_string(sizes.size()) + "D " +
                  text(sizes));
  }
}

// diag_embed(dim1, dim2) of a tensor of `sizes`: at least 1 dim; two distinct dims of the result
// (one dim more), normalized.
template <class Ctx, class Size>
std::pair<size_t, size_t> diag_embed_dims(const Ctx& ctx, const std::vector<Size>& sizes,
                                          int64_t dim1, int64_t dim2) {
  if (sizes.empty()) ctx.bad_input("diag_embed needs a tensor of at least 1 dim, got a 0-dim one");
  const size_t rank = sizes.size() + 1;
  const size_t d1 = ctx.normalize_dim(dim1, rank), d2 = ctx.normalize_dim(dim2, rank);
  if (d1 == d2) ctx.bad_input("diag_embed: diagonal dimensions cannot be identical");
  return {d1, d2};
}

// A scatter's src must have the sizes of the view it replaces.
template <class Ctx, class Size>
void scatter_src(const Ctx& ctx, const std::vector<Size>& src, const std::vector<Size>& view,
                 const std::string& op) {
  require_shape(ctx, src, view, "scatter_src_size",
                op + ": src " + text(src) + " must have the shape of the view " + text(view) +
                    " it replaces");
}

// as_strided_scatter's view: size and stride of one length, no negative size, stride or offset.
// (Whether the view lies inside self is the caller's: the rule proves it, the kernel's as_strided
// checks its storage.)
template <class Ctx, class Size>
void strided_view(const Ctx& ctx, const std::vector<Size>& sizes, const std::vector<Size>& strides,
                  const Size& offset, const std::string& op) {
  if (sizes.size() != strides.size()) {
    ctx.bad_input(op + ": size " + text(sizes) + " and stride " + text(strides) +
                  " differ in length");
  }
  for (const Size& s : sizes) {
    refuse_unless(ctx, s >= 0, op + ": negative size " + text(s) + " in size " + text(sizes));
  }
  for (const Size& s : strides) {
    refuse_unless(ctx, s >= 0, op + ": negative stride " + text(s) + " in stride " + text(strides));
  }
  refuse_unless(ctx, offset >= 0, op + ": negative storage_offset " + text(offset));
  for (size_t d = 0; d < sizes.size(); ++d) {
    require(ctx, sizes[d] >= 0, "as_strided_scatter_size",
            op + ": negative size in size " + text(sizes));
    require(ctx, strides[d] >= 0, "as_strided_scatter_stride",
            op + ": negative stride in stride " + text(strides));
  }
  require(ctx, offset >= 0, "as_strided_scatter_offset",
          op + ": negative storage_offset " + text(offset));
}

// unfold(dimension, size, step) of a tensor of `sizes`: size >= 0, step > 0, size at most the
// dim's extent (1 for a 0-dim tensor). Returns the dim normalized.
template <class Ctx, class Size>
size_t unfold_args(const Ctx& ctx, const std::vector<Size>& sizes, int64_t dim, const Size& size,
                   const Size& step) {
  refuse_unless(ctx, size >= 0, "unfold: size is " + text(size) + " but must be >= 0");
  refuse_unless(ctx, step > 0, "unfold: step is " + text(step) + " but must be > 0");
  require(ctx, size >= 0, "unfold_size", "unfold: size is " + text(size) + " but must be >= 0");
  require(ctx, step > 0, "unfold_step", "unfold: step is " + text(step) + " but must be > 0");
  const size_t k = ctx.normalize_dim(dim, sizes.size());
  const Size extent = sizes.empty() ? Size(1) : sizes[k];
  require(ctx, size <= extent, "unfold_size",
          "unfold: maximum size for tensor at dimension " + std::to_string(k) + " is " +
              text(extent) + " but size is " + text(size));
  return k;
}

// one_hot(self, num_classes): an int64 self; num_classes -1 (inferred: self must not be empty)
// or positive.
template <class Ctx, class Size>
void one_hot_args(const Ctx& ctx, DType dtype, const std::vector<Size>& sizes, const Size& numel,
                  const Size& classes) {
  if (dtype != DType::Int64) {
    ctx.bad_input("one_hot is only applicable to an index tensor of type int64, got " +
                  text(dtype));
  }
  if (constant_of(classes) == std::optional<int64_t>(-1)) {
    require(ctx, numel > 0, "one_hot_infer",
            "one_hot: cannot infer the number of classes from an empty tensor " + text(sizes) +
                " (num_classes is -1)");
    return;
  }
  require(ctx, classes >= 1, "one_hot_num_classes",
          "one_hot: num_classes must be positive (or -1 to infer it), got " + text(classes));
}

// bucketize(self, boundaries, out_int32, right) / searchsorted(sorted_sequence, self, out_int32,
// right, side, sorter): `self` is null for a number. Orderable dtypes; a sequence of at least one
// dim (exactly one for bucketize), else with the input's leading dims; side and right that agree;
// an int64 sorter of the sequence's shape. Returns `right` as side and right say.
template <class Ctx, class T>
bool search_args(const Ctx& ctx, bool bucketize, const T& seq, const T* self) {
  const std::string op = bucketize ? "bucketize" : "searchsorted";
  const std::string seq_name = bucketize ? "boundaries" : "sorted_sequence";
  if (is_complex(dtype_of(seq)) || (self && is_complex(dtype_of(*self)))) {
    ctx.bad_input(op + ": complex tensors are not supported (they have no order)");
  }
  const auto& s = sizes_of(seq);
  if (s.empty()) {
    ctx.bad_input(op + ": " + seq_name + " must have at least one dimension, got a 0-dim tensor");
  }
  if (bucketize && s.size() != 1) {
    ctx.bad_input(op + ": boundaries must be 1 dimension, got " + text(s));
  }
  if (s.size() > 1) {
    const std::string message = op + ": " + seq_name + " " + text(s) +
                                " must be 1-d or have the leading dims of the input " +
                                (self ? text(sizes_of(*self)) : std::string("(a number)"));
    if (!self || s.size() != sizes_of(*self).size()) ctx.bad_input(message);
    for (size_t d = 0; d + 1 < s.size(); ++d) {
      require(ctx, s[d] == sizes_of(*self)[d], "searchsorted_leading_dims", message);
    }
  }
  bool right = ctx.boolean("right", false);
  if (bucketize) return right;
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
  if (auto sorter = ctx.optional_tensor("sorter")) {
    if (dtype_of(*sorter) != DType::Int64) {
      ctx.bad_input(op + ": sorter must be an int64 tensor, got " + text(dtype_of(*sorter)));
    }
    require_shape(ctx, sizes_of(*sorter), s, "searchsorted_sorter",
                  op + ": sorter " + text(sizes_of(*sorter)) + " must have the shape of " +
                      seq_name + " " + text(s));
  }
  return right;
}

// _pdist_forward(self, p): a 2-d floating input, p >= 0.
template <class Ctx, class T>
void pdist_args(const Ctx& ctx, const T& x, double p) {
  if (sizes_of(x).size() != 2) {
    ctx.bad_input("pdist only supports 2D tensors, got: " + std::to_string(sizes_of(x).size()) +
                  "D");
  }
  if (!is_floating(dtype_of(x))) {
    ctx.bad_input("pdist only supports floating-point dtypes, got " + text(dtype_of(x)));
  }
  if (!(p >= 0)) {
    ctx.bad_input("pdist only supports non-negative p values, got " + std::to_string(p));
  }
}

// cdist(x1, x2, p, compute_mode): inputs of at least 2 dims, floating and of one dtype, p >= 0,
// compute_mode None, 0, 1 or 2, and the same number of columns. (The batch dims broadcast: the
// caller's.)
template <class Ctx, class T>
void cdist_args(const Ctx& ctx, const T& a, const T& b, double p) {
  const auto &sa = sizes_of(a), &sb = sizes_of(b);
  if (sa.size() < 2 || sb.size() < 2) {
    ctx.bad_input("cdist only supports at least 2D tensors, got x1 " + text(sa) + " and x2 " +
                  text(sb));
  }
  if (!is_floating(dtype_of(a)) || !is_floating(dtype_of(b))) {
    ctx.bad_input("cdist only supports floating-point dtypes, got x1 " + text(dtype_of(a)) +
                  " and x2 " + text(dtype_of(b)));
  }
  if (dtype_of(a) != dtype_of(b)) {
    ctx.bad_input("cdist: x1 (" + text(dtype_of(a)) + ") and x2 (" + text(dtype_of(b)) +
                  ") must have the same dtype");
  }
  if (!(p >= 0)) {
    ctx.bad_input("cdist only supports non-negative p values, got " + std::to_string(p));
  }
  if (auto mode = ctx.optional_integer("compute_mode")) {
    auto m = constant_of(*mode);
    if (!m || *m < 0 || *m > 2) {
      ctx.bad_input("cdist: compute_mode must be None, 0, 1 or 2, got " + text(*mode));
    }
  }
  require_equal(ctx, sa.back(), sb.back(), "cdist_columns", [&] {
    return "cdist: x1 " + text(sa) + " and x2 " + text(sb) +
           " must have the same number of columns";
  });
}

// ---- reflection / replication / circular padding ----

enum class PadMode { Reflect, Replicate, Circular };

// The padding of the last pad.size() / 2 dims of a tensor of `sizes`, pad holding (left, right)
// pairs from the last dim inward. PyTorch's checks: the dims before the padded ones are 1 or 2 (an
// optional batch dim that may be empty, then channels); reflection and replication need every
// other dim non-empty and an output of at least 1, reflection pads smaller than the dim, circular
// pads at most the dim and an output that is not negative.
template <class Ctx, class Size>
void padding(const Ctx& ctx, const std::vector<Size>& sizes, const std::vector<Size>& pad,
             PadMode mode, const std::string& op) {
  if (pad.size() % 2 != 0 || pad.empty()) {
    ctx.bad_input(op + ": padding must have an even, non-zero length, got " + text(pad));
  }
  const size_t k = pad.size() / 2, rank = sizes.size();
  if (rank != k + 1 && rank != k + 2) {
    ctx.bad_input(op + ": expected a " + std::to_string(k + 1) + "D or " + std::to_string(k + 2) +
                  "D (batch mode) input for padding " + text(pad) + ", got " + text(sizes));
  }
  if (mode != PadMode::Circular) {
    for (size_t d = rank == k + 2 ? 1 : 0; d < rank; ++d) {
      require(ctx, sizes[d] != 0, "pad_nonempty", [&] {
        return op + ": expected a " + std::to_string(k + 1) + "D or " + std::to_string(k + 2) +
               "D (batch mode) tensor with possible 0 batch size and other non-zero "
               "dimensions for input, but got: " +
               text(sizes);
      });
    }
  }
  for (size_t i = 0; i < k; ++i) {
    const size_t d = rank - 1 - i;
    const Size &left = pad[2 * i], &right = pad[2 * i + 1], &size = sizes[d];
    auto at = [&] {
      return "(" + text(left) + ", " + text(right) + ") at dimension " + std::to_string(d) +
             " of input " + text(sizes);
    };
    if (mode == PadMode::Reflect) {
      require(ctx, left < size && right < size, "reflection_pad", [&] {
        return op + ": padding size should be less than the corresponding input dimension, but " +
               "got padding " + at();
      });
    } else if (mode == PadMode::Circular) {
      require(ctx, left <= size && right <= size, "circular_pad",
              [&] { return op + ": padding " + at() + " causes wrapping around more than once"; });
    }
    const auto out = simplified(ctx, wide(size) + wide(left) + wide(right));
    if (mode == PadMode::Circular) {
      require(ctx, out >= 0, "circular_pad", [&] {
        return op + ": negative padding " + at() + " is resulting in an empty dimension";
      });
    } else {
      require(ctx, out >= 1, "pad_output", [&] {
        return op + ": input (size " + text(size) + ") too small for padding " + at() +
               "; calculated output size: " + text(out);
      });
    }
  }
}

// reflection_padNd / replication_padNd: padding of exactly 2n ints.
template <class Ctx, class Size>
void padding_count(const Ctx& ctx, const std::vector<Size>& pad, size_t n, const std::string& op) {
  if (pad.size() != 2 * n) {
    ctx.bad_input(op + ": padding must have " + std::to_string(2 * n) + " ints, got " + text(pad));
  }
}

// aten.pad(self, pad, mode, value): a padding of an even length at most twice the rank, a known
// mode, no value but for "constant", 1 to 3 padded dims (with a batch dim or not) but for
// "constant", and constant padding that leaves no dim negative. Returns the mode (nullopt:
// constant).
template <class Ctx, class Size>
std::optional<PadMode> pad_args(const Ctx& ctx, const std::vector<Size>& sizes,
                                const std::vector<Size>& p, const std::string& mode) {
  const bool has_value = ctx.has("value");
  const double value = ctx.real("value", 0.0);
  const size_t rank = sizes.size();
  if (p.size() % 2 != 0) ctx.bad_input("pad: padding length must be divisible by 2");
  if (p.size() > 2 * rank) {
    ctx.bad_input(
        "pad: padding length should be less than or equal to two times the input "
        "dimension but got padding length " +
        std::to_string(p.size()) + " and input of dimension " + std::to_string(rank));
  }
  if (mode == "constant") {
    for (size_t i = 0; i < p.size() / 2; ++i) {
      const size_t d = rank - 1 - i;
      const auto s = simplified(ctx, wide(sizes[d]) + wide(p[2 * i]) + wide(p[2 * i + 1]));
      require(ctx, s >= 0, "pad", [&] {
        return "pad: padding " + text(p) + " makes dim " + std::to_string(d) +
               " negative: " + text(s);
      });
    }
    return std::nullopt;
  }
  PadMode m = PadMode::Reflect;
  if (mode == "reflect") {
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
  if (k < 1 || k > 3 || (rank != k + 1 && rank != k + 2)) {
    ctx.bad_input(
        "pad: only 2D, 3D, 4D, 5D padding with non-constant padding are supported, "
        "got padding " +
        text(p) + " for input " + text(sizes));
  }
  return m;
}

// ---- upsampling ----

enum class Interp { Nearest, NearestExact, Bilinear, Bicubic };

// The op's name without its rank ("upsample_bilinear" for upsample_bilinear2d).
inline const char* interp_name(Interp m) {
  switch (m) {
    case Interp::Nearest: return "upsample_nearest";
    case Interp::NearestExact: return "_upsample_nearest_exact";
    case Interp::Bilinear: return "upsample_bilinear";
    case Interp::Bicubic: return "upsample_bicubic";
  }
  return "?";
}

// The .vec overloads' scale_factors (a list of numbers), nullopt when absent or not a parameter.
template <class Ctx>
std::optional<std::vector<double>> scale_factors(const Ctx& ctx, const std::string& op) {
  if (!ctx.declares("scale_factors") || !ctx.has("scale_factors")) return std::nullopt;
  const auto v = ctx.value("scale_factors");
  if (!is_list(v)) ctx.bad_input(op + ": scale_factors must be a list of numbers, got " + v.str());
  std::vector<double> list;
  for (const auto& item : v.items) {
    const std::optional<double> x = number_of(item);
    if (!x) ctx.bad_input(op + ": scale_factors must be a list of numbers, got " + v.str());
    list.push_back(*x);
  }
  return list;
}

// upsample_*Nd(input, output_size | scale_factors): N, C and k spatial dims; exactly one of
// output_size (k ints) and scale_factors (k finite numbers).
template <class Ctx, class Size>
void upsample_args(const Ctx& ctx, const std::vector<Size>& sizes,
                   const std::optional<std::vector<Size>>& output_size,
                   const std::optional<std::vector<double>>& scales, size_t k,
                   const std::string& op) {
  if (sizes.size() != k + 2) {
    ctx.bad_input(op + " expects a " + std::to_string(k + 2) + "D input (N, C and " +
                  std::to_string(k) + " spatial dims), got " + text(sizes));
  }
  if (output_size.has_value() == scales.has_value()) {
    ctx.bad_input(op + ": must specify exactly one of output_size and scale_factors");
  }
  if (output_size && output_size->size() != k) {
    ctx.bad_input(op + ": output_size must have " + std::to_string(k) + " ints, got " +
                  text(*output_size));
  }
  if (scales) {
    if (scales->size() != k) {
      ctx.bad_input(op + ": scale_factors must have " + std::to_string(k) + " numbers, got " +
                    std::to_string(scales->size()));
    }
    for (double scale : *scales) {
      if (!std::isfinite(scale)) {
        ctx.bad_input(op + ": scale factors must be finite, got " + std::to_string(scale));
      }
    }
  }
}

// The sizes of an upsampling: every spatial input and output size positive, channels non-empty.
template <class Ctx, class Size>
void upsample_sizes(const Ctx& ctx, const std::vector<Size>& sizes, const std::vector<Size>& out,
                    const std::string& op) {
  const size_t k = out.size();
  for (size_t i = 0; i < k; ++i) {
    require(ctx, sizes[2 + i] > 0 && out[i] > 0, "upsample_sizes", [&] {
      return op + ": input and output sizes should be greater than 0, but got input " +
             text(sizes) + ", output size " + text(out);
    });
  }
  require(ctx, sizes[1] != 0, "upsample_nonempty", [&] {
    return op + ": non-empty " + std::to_string(k + 2) + "D data tensor expected but got " +
           text(sizes);
  });
}

// ---- im2col / col2im ----

// The four int[2] parameters of im2col / col2im, as plain ints.
struct Blocks {
  std::vector<int64_t> kernel, dilation, padding, stride;
};

// An int[2] parameter (a single int is both) must have 2 ints.
template <class Ctx, class Size>
void pair_param(const Ctx& ctx, std::vector<Size>& list, std::string_view name,
                const std::string& op) {
  if (list.size() == 1) list.push_back(list[0]);
  if (list.size() != 2) {
    ctx.bad_input(op + ": " + std::string(name) + " must have 2 ints, got " + text(list));
  }
}

// The four int[2] parameters (kernel_size, dilation, padding, stride), plain ints: kernel size,
// dilation and stride in [1, 2^31], padding in [0, 2^31].
template <class Ctx>
Blocks block_params(const Ctx& ctx, const std::string& op) {
  auto pair = [&](std::string_view name) {
    auto list = ctx.int_list(name);
    pair_param(ctx, list, name, op);
    std::vector<int64_t> out;
    for (const auto& e : list) {
      const std::optional<int64_t> v = constant_of(e);
      if (!v) ctx.bad_input(op + ": " + std::string(name) + " must be constants");
      out.push_back(*v);
    }
    return out;
  };
  Blocks b{pair("kernel_size"), pair("dilation"), pair("padding"), pair("stride")};
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

// The input of im2col (3-d, or 4-d with a batch) or col2im (2-d, or 3-d with a batch): non-empty
// but for the batch. Returns the index of its first non-batch dim.
template <class Ctx, class Size>
size_t blocks_input(const Ctx& ctx, const std::vector<Size>& sizes, size_t rank,
                    const std::string& op) {
  if (sizes.size() != rank && sizes.size() != rank + 1) {
    ctx.bad_input(op + ": expected a " + std::to_string(rank) + "D or " + std::to_string(rank + 1) +
                  "D (batch mode) input, got " + text(sizes));
  }
  const size_t first = sizes.size() - rank;
  for (size_t d = first; d < sizes.size(); ++d) {
    require(ctx, sizes[d] != 0, op + "_nonempty", [&] {
      return op + ": expected non-zero dimensions (but a possibly empty batch) for input " +
             text(sizes);
    });
  }
  return first;
}

// Every count of sliding blocks at least one (`over` says of what: "input [..]").
template <class Ctx, class Size>
void block_counts(const Ctx& ctx, const std::vector<Size>& blocks, const std::string& over,
                  const std::string& op) {
  for (const Size& n : blocks) {
    require(ctx, n >= 1, op + "_blocks", [&] {
      return op + ": " + over + " gives " + text(blocks) +
             " sliding blocks, but each must be at least one";
    });
  }
}

// col2im's output_size: every size positive.
template <class Ctx, class Size>
void col2im_output(const Ctx& ctx, const std::vector<Size>& out) {
  for (const Size& o : out) {
    require(ctx, o > 0, "col2im_output",
            [&] { return "col2im: output_size " + text(out) + " should be greater than zero"; });
  }
}

// col2im's input: dim `first` a multiple of the kernel's size, dim first + 1 the number of
// sliding blocks over output_size (`blocks` per dim, each at least one).
template <class Ctx, class Size>
void col2im_sizes(const Ctx& ctx, const std::vector<Size>& sizes, size_t first,
                  const std::vector<Size>& out, const Blocks& b, const std::vector<Size>& blocks) {
  const std::string op = "col2im";
  const int64_t kernel = b.kernel[0] * b.kernel[1];  // each at most 2^31
  require(ctx, remainder(wide(sizes[first]), wide(Size(kernel))) == 0, "col2im_channels", [&] {
    return op + ": expected size of input's dimension " + std::to_string(first) +
           " to be divisible by the product of kernel_size (" + std::to_string(kernel) + "), got " +
           text(sizes);
  });
  using Wide = std::decay_t<decltype(wide(sizes[first]))>;
  require_equal(ctx, Wide(wide(sizes[first + 1])), Wide(wide(blocks[0]) * wide(blocks[1])),
                "col2im_blocks", [&] {
                  return op + ": expected size of input's dimension " + std::to_string(first + 1) +
                         " to match the calculated number of sliding blocks " + text(blocks[0]) +
                         " * " + text(blocks[1]) + ", got " + text(sizes);
                });
  block_counts(ctx, blocks, "output_size " + text(out), op);
}

// ---- grid_sampler_2d ----

// grid_sampler_2d(input [N, C, H, W], grid [N, Ho, Wo, 2], interpolation_mode, padding_mode):
// bilinear (0) or nearest (1), zeros (0) or border (1) padding, one floating dtype, 4-d input and
// grid of one batch size, a grid of pairs, non-empty spatial dims.
template <class Ctx, class T>
void grid_sampler_args(const Ctx& ctx, const T& input, const T& grid, int64_t interpolation,
                       int64_t padding) {
  const std::string op = "grid_sampler_2d";
  if (interpolation != 0 && interpolation != 1) {
    ctx.bad_input(op + ": interpolation_mode " + std::to_string(interpolation) +
                  " is not supported (0 bilinear and 1 nearest are; 2 bicubic is not yet)");
  }
  if (padding != 0 && padding != 1) {
    ctx.bad_input(op + ": padding_mode " + std::to_string(padding) +
                  " is not supported (0 zeros and 1 border are; 2 reflection is not yet)");
  }
  if (dtype_of(input) != dtype_of(grid)) {
    ctx.bad_input(op + ": expected input and grid to have the same dtype, got " +
                  text(dtype_of(input)) + " and " + text(dtype_of(grid)));
  }
  if (!is_floating(dtype_of(input))) {
    ctx.bad_input(op + ": expected floating-point input and grid, got " + text(dtype_of(input)));
  }
  const auto &in = sizes_of(input), &g = sizes_of(grid);
  if (in.size() != 4 || g.size() != 4) {
    ctx.bad_input(op + ": expected 4D input and grid, got input " + text(in) + " and grid " +
                  text(g));
  }
  require_equal(ctx, in[0], g[0], "grid_sampler_batch", [&] {
    return op + ": expected grid " + text(g) + " and input " + text(in) +
           " to have the same batch size";
  });
  using Size = std::decay_t<decltype(g[3])>;
  require_equal(ctx, g[3], Size(2), "grid_sampler_last", [&] {
    return op + ": expected grid to have size 2 in its last dimension, got " + text(g);
  });
  for (size_t d = 2; d < 4; ++d) {
    require(ctx, in[d] > 0, "grid_sampler_spatial", [&] {
      return op + ": expected input to have non-empty spatial dimensions, got " + text(in);
    });
  }
}

// ---- the fused attention ops ----

// The mask of _native_multi_head_attention and _transformer_encoder_layer_fwd against the
// attention scores [B, heads, T, T]. By mask_type: 0, an attention mask [T, T]; 1, a key padding
// mask [B, T]; 2, a mask of the scores' shape. A mask that is not 2-D is always of type 2, as
// PyTorch's _masked_softmax treats it. Returns the type (nullopt: no mask).
template <class Ctx, class T, class Size>
std::optional<int64_t> attention_mask(const Ctx& ctx, const std::optional<T>& mask,
                                      const std::string& op, const Size& batch, const Size& seq,
                                      int64_t heads) {
  if (!mask) return std::nullopt;
  std::optional<int64_t> type;
  if (auto t = ctx.optional_integer("mask_type")) {
    type = constant_of(*t);
    if (!type) ctx.bad_input(op + ": mask_type must be a constant, got " + text(*t));
  }
  if (sizes_of(*mask).size() != 2) type = 2;
  if (!type) ctx.bad_input(op + ": a 2-D mask needs a mask_type (0: [T, T], 1: [B, T])");
  std::vector<Size> want;
  switch (*type) {
    case 0: want = {seq, seq}; break;
    case 1: want = {batch, seq}; break;
    case 2: want = {batch, Size(heads), seq, seq}; break;
    default: ctx.bad_input(op + ": mask_type must be 0, 1 or 2, got " + std::to_string(*type));
  }
  const std::string message = op + ": a mask of mask_type " + std::to_string(*type) +
                              " must have shape " + text(want) + ", got " + text(sizes_of(*mask));
  if (sizes_of(*mask).size() != want.size()) ctx.fail(message);
  for (size_t i = 0; i < want.size(); ++i) {
    require_equal(ctx, sizes_of(*mask)[i], want[i], "attention_mask", [&] { return message; });
  }
  return type;
}

// `t` must have `rank` dims (op and name for the message).
template <class Ctx, class T>
void rank_of(const Ctx& ctx, const T& t, size_t rank, const std::string& op, const char* name) {
  if (sizes_of(t).size() != rank) {
    ctx.bad_input(op + ": expected " + std::to_string(rank) + "-D `" + name + "`, got " +
                  text(sizes_of(t)));
  }
}

// _native_multi_head_attention(query, key, value [B, T, D], embed_dim D, num_head, qkv_weight
// [3D, D], qkv_bias [3D], proj_weight [D, D], proj_bias [D], ...): ranks, one floating dtype,
// shapes, and D a multiple of num_head > 0. (The mask: attention_mask.)
template <class Ctx, class T, class Size>
void multi_head_attention_args(const Ctx& ctx, const T& q, const T& k, const T& v, const T& w,
                               const T& b, const T& pw, const T& pb, const Size& d, int64_t heads) {
  const std::string op = "_native_multi_head_attention";
  if (heads <= 0) ctx.bad_input(op + ": num_head must be positive, got " + std::to_string(heads));
  rank_of(ctx, q, 3, op, "query");
  rank_of(ctx, k, 3, op, "key");
  rank_of(ctx, v, 3, op, "value");
  rank_of(ctx, w, 2, op, "qkv_weight");
  rank_of(ctx, b, 1, op, "qkv_bias");
  rank_of(ctx, pw, 2, op, "proj_weight");
  rank_of(ctx, pb, 1, op, "proj_bias");
  for (const T* t : {&k, &v, &w, &b, &pw, &pb}) {
    if (dtype_of(*t) != dtype_of(q)) {
      ctx.bad_input(op + ": every tensor must have query's dtype " + text(dtype_of(q)) + ", got " +
                    text(dtype_of(*t)));
    }
  }
  if (!is_floating(dtype_of(q))) {
    ctx.bad_input(op + ": expected floating-point tensors, got " + text(dtype_of(q)));
  }
  const auto &qs = sizes_of(q), &ks = sizes_of(k), &vs = sizes_of(v);
  require_equal(ctx, qs[2], d, "mha_embed_dim", [&] {
    return op + ": passed-in embed_dim " + text(d) + " didn't match last dim of query " + text(qs);
  });
  auto mismatch = [&] {
    return op + ": expected query " + text(qs) + ", key " + text(ks) + " and value " + text(vs) +
           " shapes to match";
  };
  for (size_t i = 0; i < 3; ++i) {
    require_equal(ctx, ks[i], qs[i], "mha_qkv_shapes", mismatch);
    require_equal(ctx, vs[i], qs[i], "mha_qkv_shapes", mismatch);
  }
  const auto d3 = simplified(ctx, 3 * wide(d));
  using Wide = std::decay_t<decltype(d3)>;
  require_equal(ctx, Wide(wide(sizes_of(w)[0])), d3, "mha_qkv_weight", [&] {
    return op + ": expected `qkv_weight` " + text(sizes_of(w)) + " first dim to be 3x embed_dim";
  });
  require_equal(ctx, sizes_of(w)[1], d, "mha_qkv_weight", [&] {
    return op + ": expected `qkv_weight` " + text(sizes_of(w)) + " second dim to be embed_dim";
  });
  require_equal(ctx, Wide(wide(sizes_of(b)[0])), d3, "mha_qkv_bias", [&] {
    return op + ": expected `qkv_bias` " + text(sizes_of(b)) + " to have 3x embed_dim";
  });
  require(ctx, remainder(wide(d), wide(Size(heads))) == 0, "mha_heads", [&] {
    return op + ": embed_dim " + text(d) + " must divide evenly by num_head " +
           std::to_string(heads);
  });
  for (size_t i = 0; i < 2; ++i) {
    require_equal(ctx, sizes_of(pw)[i], d, "mha_proj_weight", [&] {
      return op + ": expected `proj_weight` " + text(sizes_of(pw)) + " to be [D, D]";
    });
  }
  require_equal(ctx, sizes_of(pb)[0], d, "mha_proj_bias",
                [&] { return op + ": expected `proj_bias` " + text(sizes_of(pb)) + " to be [D]"; });
}

// _transformer_encoder_layer_fwd's src: 3-d and floating.
template <class Ctx, class T>
void encoder_src(const Ctx& ctx, const T& src) {
  const std::string op = "_transformer_encoder_layer_fwd";
  if (sizes_of(src).size() != 3) {
    ctx.bad_input(op + ": expected a 3-D `src`, got " + text(sizes_of(src)));
  }
  if (!is_floating(dtype_of(src))) {
    ctx.bad_input(op + ": expected a floating-point `src`, got " + text(dtype_of(src)));
  }
}

// _transformer_encoder_layer_fwd's other arguments (of a non-empty src): num_heads > 0 dividing
// embed_dim, src's last dim embed_dim, and every weight of src's dtype and its shape (the
// feed-forward width from a 2-d ffn_weight_1). Returns the weights by name, in order.
template <class Ctx, class T, class Size>
std::vector<std::pair<const char*, T>> encoder_weights(const Ctx& ctx, const T& src, const Size& d,
                                                       int64_t heads) {
  const std::string op = "_transformer_encoder_layer_fwd";
  if (heads <= 0) ctx.bad_input(op + ": num_heads must be positive, got " + std::to_string(heads));
  require_equal(ctx, sizes_of(src)[2], d, "encoder_embed_dim", [&] {
    return op + ": passed-in embed_dim " + text(d) + " didn't match last dim of src " +
           text(sizes_of(src));
  });
  require(ctx, remainder(wide(d), wide(Size(heads))) == 0, "encoder_heads", [&] {
    return op + ": embed_dim " + text(d) + " must divide evenly by num_heads " +
           std::to_string(heads);
  });
  const T f1 = ctx.tensor("ffn_weight_1");
  if (sizes_of(f1).size() != 2) ctx.bad_input(op + ": expected a 2-D `ffn_weight_1`");
  const Size hidden = sizes_of(f1)[0];
  const auto d3 = simplified(ctx, 3 * wide(d));
  using Wide = std::decay_t<decltype(d3)>;
  const Wide wd = wide(d), wh = wide(hidden);
  const std::pair<const char*, std::vector<Wide>> params[] = {
      {"qkv_weight", {d3, wd}}, {"qkv_bias", {d3}},         {"proj_weight", {wd, wd}},
      {"proj_bias", {wd}},      {"norm_weight_1", {wd}},    {"norm_bias_1", {wd}},
      {"norm_weight_2", {wd}},  {"norm_bias_2", {wd}},      {"ffn_weight_1", {wh, wd}},
      {"ffn_bias_1", {wh}},     {"ffn_weight_2", {wd, wh}}, {"ffn_bias_2", {wd}}};
  std::vector<std::pair<const char*, T>> out;
  for (const auto& [name, want] : params) {
    T t = ctx.tensor(name);
    if (dtype_of(t) != dtype_of(src)) {
      ctx.bad_input(op + ": `" + name + "` must have src's dtype " + text(dtype_of(src)));
    }
    std::vector<Wide> sizes;
    for (const Size& s : sizes_of(t)) sizes.push_back(wide(s));
    require_equal_shape(ctx, sizes, want, "encoder_weights",
                        op + ": expected `" + name + "` of " + text(want) + ", got " + text(sizes));
    out.emplace_back(name, std::move(t));
  }
  return out;
}

}  // namespace symshape::validate
