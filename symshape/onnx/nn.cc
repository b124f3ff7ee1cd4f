// ONNX's neural-network operators: convolutions, pooling, normalization, Gemm and MatMul,
// Einsum, quantization, Resize and Pad, layout moves (DepthToSpace, SpaceToDepth) and the RNNs.
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "symshape/onnx/rules.h"
#include "symshape/ops/families.h"

namespace symshape::onnx {

namespace {

Expr num(int64_t v) { return Expr(static_cast<long long>(v)); }

Expr product(const std::vector<Expr>& sizes, size_t begin, size_t end) {
  Expr p(1);
  for (size_t d = begin; d < end; ++d) p *= sizes[d];
  return p;
}

std::vector<Expr> unbacked_sizes(Op& op, size_t rank) {
  std::vector<Expr> out;
  for (size_t k = 0; k < rank; ++k) out.push_back(op.ctx().new_unbacked_size());
  return out;
}

// The node's result: its one value, or the list of its outputs (the first num_outputs() of all).
Value results(Op& op, std::vector<Value> all) {
  const auto& extra = op.node().extra;
  if (!(extra.is_object() && extra.contains("outputs"))) return all.front();
  const size_t n = op.num_outputs();
  if (n > all.size()) {
    op.bad_input("has " + std::to_string(n) + " outputs; " + std::string(op.op_type()) +
                 " has at most " + std::to_string(all.size()));
  }
  all.resize(n);
  return Value::list(std::move(all));
}

void require(Op& op, const Cond& cond, std::string_view rule,
             const std::function<std::string()>& message) {
  ops::require(op.ctx(), cond, rule, message);
}

// An input that must have a rank (what names it in messages).
TensorMeta ranked(Op& op, size_t i, size_t rank, std::string_view what) {
  const TensorMeta t = op.tensor(i);
  if (t.rank() != rank) {
    op.bad_input(std::string(what) + " must have rank " + std::to_string(rank) + ", got " +
                 t.str());
  }
  return t;
}

// An [N, C, D1, ..., Dn] input with n >= 1 spatial dims.
TensorMeta image(Op& op, size_t i, std::string_view what = "X") {
  const TensorMeta t = op.tensor(i);
  if (t.rank() < 3) {
    op.bad_input(std::string(what) + " must be [N, C, D1, ...] (rank >= 3), got " + t.str());
  }
  return t;
}

// ---- convolution and pooling windows ----------------------------------------------------------

// A per-spatial-dim int attribute (strides, dilations, kernel_shape): fallback when absent.
std::vector<int64_t> spatial_attr(Op& op, std::string_view name, size_t n, int64_t fallback,
                                  int64_t at_least) {
  std::optional<std::vector<int64_t>> v = op.optional_attr_ints(name);
  if (!v || v->empty()) return std::vector<int64_t>(n, fallback);
  if (v->size() != n) {
    op.bad_input("attribute '" + std::string(name) + "' has " + std::to_string(v->size()) +
                 " values for " + std::to_string(n) + " spatial dims");
  }
  for (int64_t x : *v) {
    if (x < at_least) {
      op.bad_input("attribute '" + std::string(name) + "' has " + std::to_string(x) +
                   " (must be >= " + std::to_string(at_least) + ")");
    }
  }
  return *v;
}

// How a window (a kernel, strides, dilations, pads) slides over the spatial dims.
struct Window {
  std::vector<Expr> kernel;
  std::vector<int64_t> strides, dilations, pads;  // pads: n begins then n ends
  std::string auto_pad;                           // NOTSET, SAME_UPPER, SAME_LOWER, VALID
  bool ceil_mode = false;
};

Window read_window(Op& op, std::vector<Expr> kernel) {
  const size_t n = kernel.size();
  Window w;
  w.kernel = std::move(kernel);
  w.strides = spatial_attr(op, "strides", n, 1, 1);
  w.dilations = spatial_attr(op, "dilations", n, 1, 1);
  w.pads = spatial_attr(op, "pads", 2 * n, 0, 0);
  w.auto_pad = op.attr_string("auto_pad", "NOTSET");
  if (w.auto_pad.empty()) w.auto_pad = "NOTSET";
  if (w.auto_pad != "NOTSET" && w.auto_pad != "SAME_UPPER" && w.auto_pad != "SAME_LOWER" &&
      w.auto_pad != "VALID") {
    op.bad_input("auto_pad is '" + w.auto_pad +
                 "' (expected NOTSET, SAME_UPPER, SAME_LOWER or VALID)");
  }
  if (w.auto_pad != "NOTSET") w.pads.assign(2 * n, 0);  // computed, not read
  w.ceil_mode = op.attr_int("ceil_mode", 0) != 0;
  return w;
}

// The output spatial sizes of a window sliding over `in` (Conv and the pools).
std::vector<Expr> window_output(Op& op, const std::vector<Expr>& in, const Window& w) {
  std::vector<Expr> out;
  for (size_t d = 0; d < in.size(); ++d) {
    const Expr stride = num(w.strides[d]);
    const Expr extent = num(w.dilations[d]) * (w.kernel[d] - 1) + 1;
    if (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER") {
      out.push_back(op.ctx().simplify(ceildiv(in[d], stride)));
      continue;
    }
    const Expr begin = num(w.pads[d]), end = num(w.pads[d + in.size()]);
    const Expr span = op.ctx().simplify(in[d] + begin + end - extent);
    require(op, span >= Expr(0), "window", [&] {
      return "spatial dim " + std::to_string(d) + ": the padded input (" +
             op.ctx().simplify(in[d] + begin + end).str() + ") is smaller than the kernel extent " +
             op.ctx().simplify(extent).str();
    });
    if (!w.ceil_mode) {
      out.push_back(op.ctx().simplify(floordiv(span, stride) + 1));
      continue;
    }
    // Ceil mode: a last window that would start inside the end padding is dropped.
    Expr o = op.ctx().simplify(ceildiv(span, stride) + 1);
    if (op.ctx().decide((o - 1) * stride >= in[d] + begin, "pool_ceil_mode"))
      o = op.ctx().simplify(o - 1);
    out.push_back(o);
  }
  return out;
}

std::vector<Expr> spatial_of(const TensorMeta& t) { return {t.sizes.begin() + 2, t.sizes.end()}; }

std::vector<Expr> concat(std::vector<Expr> head, const std::vector<Expr>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

// The kernel from the weight's spatial dims, checked against kernel_shape when given.
std::vector<Expr> kernel_of(Op& op, const TensorMeta& w) {
  std::vector<Expr> kernel = spatial_of(w);
  if (std::optional<std::vector<int64_t>> k = op.optional_attr_ints("kernel_shape")) {
    if (k->size() != kernel.size()) {
      op.bad_input("kernel_shape has " + std::to_string(k->size()) + " values, the weight " +
                   w.str() + " has " + std::to_string(kernel.size()) + " spatial dims");
    }
    for (size_t d = 0; d < kernel.size(); ++d) {
      op.ctx().require_equal(kernel[d], num((*k)[d]), "conv_kernel", [&] {
        return "kernel_shape[" + std::to_string(d) + "] is " + std::to_string((*k)[d]) +
               ", the weight " + w.str() + " has " + kernel[d].str();
      });
    }
  }
  return kernel;
}

int64_t group_of(Op& op) {
  const int64_t group = op.attr_int("group", 1);
  if (group < 1) op.bad_input("group is " + std::to_string(group) + " (must be >= 1)");
  return group;
}

void check_bias(Op& op, size_t i, const Expr& channels) {
  if (!op.has_input(i)) return;
  const TensorMeta b = ranked(op, i, 1, "bias B");
  op.ctx().require_equal(b.sizes[0], channels, "conv_bias", [&] {
    return "bias B " + b.str() + " must have one value per output channel (" + channels.str() + ")";
  });
}

// Conv and its quantized forms: X at x, W at w, bias at bias; the output has dtype out.
Value conv(Op& op, size_t x_at, size_t w_at, std::optional<size_t> bias_at, DType out) {
  const TensorMeta x = image(op, x_at);
  const TensorMeta w = op.tensor(w_at);
  if (w.rank() != x.rank()) {
    op.bad_input("weight W " + w.str() + " must have the rank of X " + x.str());
  }
  const int64_t group = group_of(op);
  op.ctx().require_equal(x.sizes[1], w.sizes[1] * num(group), "conv_channels", [&] {
    return "X " + x.str() + " has " + x.sizes[1].str() + " channels; W " + w.str() +
           " with group " + std::to_string(group) + " expects " +
           op.ctx().simplify(w.sizes[1] * num(group)).str();
  });
  require(op, mod(w.sizes[0], num(group)) == Expr(0), "conv_group", [&] {
    return "W " + w.str() + " has " + w.sizes[0].str() +
           " output channels, not a multiple of group " + std::to_string(group);
  });
  if (bias_at) check_bias(op, *bias_at, w.sizes[0]);
  const Window win = read_window(op, kernel_of(op, w));
  return tensor_value(out, concat({x.sizes[0], w.sizes[0]}, window_output(op, spatial_of(x), win)));
}

Value conv_transpose(Op& op) {
  const TensorMeta x = image(op, 0);
  const TensorMeta w = op.tensor(1);
  if (w.rank() != x.rank()) {
    op.bad_input("weight W " + w.str() + " must have the rank of X " + x.str());
  }
  const int64_t group = group_of(op);
  op.ctx().require_equal(x.sizes[1], w.sizes[0], "conv_channels", [&] {
    return "X " + x.str() + " has " + x.sizes[1].str() + " channels; W " + w.str() + " expects " +
           w.sizes[0].str();
  });
  const Expr channels = op.ctx().simplify(w.sizes[1] * num(group));
  check_bias(op, 2, channels);
  const size_t n = x.rank() - 2;
  const Window win = read_window(op, kernel_of(op, w));
  std::vector<Expr> sizes{x.sizes[0], channels};
  if (std::optional<std::vector<int64_t>> shape = op.optional_attr_ints("output_shape")) {
    // The spatial sizes, or (as some exporters write) the whole shape.
    if (shape->size() != n && shape->size() != n + 2) {
      op.bad_input("output_shape has " + std::to_string(shape->size()) + " values for " +
                   std::to_string(n) + " spatial dims");
    }
    for (size_t d = shape->size() - n; d < shape->size(); ++d) {
      if ((*shape)[d] < 0) op.bad_input("output_shape has a negative size");
      sizes.push_back(num((*shape)[d]));
    }
    return tensor_value(x.dtype, sizes);
  }
  const std::vector<int64_t> output_padding = spatial_attr(op, "output_padding", n, 0, 0);
  for (size_t d = 0; d < n; ++d) {
    const Expr in = x.sizes[d + 2], stride = num(win.strides[d]);
    if (win.auto_pad == "SAME_UPPER" || win.auto_pad == "SAME_LOWER") {
      sizes.push_back(op.ctx().simplify(in * stride));
      continue;
    }
    const Expr extent = num(win.dilations[d]) * (win.kernel[d] - 1) + 1;
    const Expr o = op.ctx().simplify(stride * (in - 1) + num(output_padding[d]) + extent -
                                     num(win.pads[d]) - num(win.pads[d + n]));
    require(op, o >= Expr(0), "conv_transpose", [&] {
      return "spatial dim " + std::to_string(d) + " would have negative size " + o.str();
    });
    sizes.push_back(o);
  }
  return tensor_value(x.dtype, sizes);
}

// MaxPool, AveragePool, LpPool: kernel_shape is an attribute.
Value pool(Op& op, bool with_indices) {
  const TensorMeta x = image(op, 0);
  const size_t n = x.rank() - 2;
  std::optional<std::vector<int64_t>> k = op.optional_attr_ints("kernel_shape");
  if (!k) op.bad_input("attribute 'kernel_shape' is required");
  const std::vector<int64_t> kernel = spatial_attr(op, "kernel_shape", n, 1, 1);
  std::vector<Expr> kexpr;
  for (int64_t v : kernel) kexpr.push_back(num(v));
  const Window win = read_window(op, kexpr);
  const std::vector<Expr> sizes =
      concat({x.sizes[0], x.sizes[1]}, window_output(op, spatial_of(x), win));
  if (!with_indices) return tensor_value(x.dtype, sizes);
  return results(op, {tensor_value(x.dtype, sizes), tensor_value(DType::Int64, sizes)});
}

Value global_pool(Op& op) {
  const TensorMeta x = image(op, 0);
  std::vector<Expr> sizes(x.rank(), Expr(1));
  sizes[0] = x.sizes[0];
  sizes[1] = x.sizes[1];
  return tensor_value(x.dtype, sizes);
}

Value max_unpool(Op& op) {
  const TensorMeta x = image(op, 0);
  const size_t n = x.rank() - 2;
  if (op.has_input(2)) {
    ranked(op, 2, 1, "output_shape");
    if (std::optional<std::vector<Expr>> shape = op.ints(2)) {
      if (shape->size() != x.rank()) {
        op.bad_input("output_shape has " + std::to_string(shape->size()) +
                     " values for X of rank " + std::to_string(x.rank()));
      }
      return tensor_value(x.dtype, *shape);
    }
    return tensor_value(x.dtype, unbacked_sizes(op, x.rank()));
  }
  if (!op.has_attr("kernel_shape")) op.bad_input("attribute 'kernel_shape' is required");
  const std::vector<int64_t> kernel = spatial_attr(op, "kernel_shape", n, 1, 1);
  const std::vector<int64_t> strides = spatial_attr(op, "strides", n, 1, 1);
  const std::vector<int64_t> pads = spatial_attr(op, "pads", 2 * n, 0, 0);
  std::vector<Expr> sizes{x.sizes[0], x.sizes[1]};
  for (size_t d = 0; d < n; ++d) {
    sizes.push_back(op.ctx().simplify((x.sizes[d + 2] - 1) * num(strides[d]) + num(kernel[d]) -
                                      num(pads[d]) - num(pads[d + n])));
  }
  return tensor_value(x.dtype, sizes);
}

Value max_roi_pool(Op& op) {
  const TensorMeta x = ranked(op, 0, 4, "X");
  const TensorMeta rois = ranked(op, 1, 2, "rois");
  const std::vector<int64_t> pooled = op.attr_ints("pooled_shape");
  if (pooled.size() != 2) op.bad_input("attribute 'pooled_shape' must have 2 values");
  op.ctx().require_equal(rois.sizes[1], Expr(5), "roi",
                         "rois must be [num_rois, 5], got " + rois.str());
  return tensor_value(x.dtype, {rois.sizes[0], x.sizes[1], num(pooled[0]), num(pooled[1])});
}

Value roi_align(Op& op) {
  const TensorMeta x = ranked(op, 0, 4, "X");
  const TensorMeta rois = ranked(op, 1, 2, "rois");
  const TensorMeta index = ranked(op, 2, 1, "batch_indices");
  op.ctx().require_equal(rois.sizes[1], Expr(4), "roi",
                         "rois must be [num_rois, 4], got " + rois.str());
  op.ctx().require_equal(
      index.sizes[0], rois.sizes[0], "roi",
      "batch_indices " + index.str() + " must have one entry per roi " + rois.str());
  return tensor_value(x.dtype, {rois.sizes[0], x.sizes[1], num(op.attr_int("output_height", 1)),
                                num(op.attr_int("output_width", 1))});
}

// ---- normalization ------------------------------------------------------------------------

// An input of one value per channel (scale, bias, mean, var).
void check_per_channel(Op& op, size_t i, const Expr& channels, std::string_view what) {
  if (!op.has_input(i)) return;
  const TensorMeta t = ranked(op, i, 1, what);
  op.ctx().require_equal(t.sizes[0], channels, "norm_channels", [&] {
    return std::string(what) + " " + t.str() + " must have one value per channel (" +
           channels.str() + ")";
  });
}

Value batch_norm(Op& op) {
  const TensorMeta x = op.tensor(0);
  if (x.rank() < 1) op.bad_input("X must have rank >= 1");
  const Expr c = x.rank() >= 2 ? x.sizes[1] : Expr(1);
  check_per_channel(op, 1, c, "scale");
  check_per_channel(op, 2, c, "B");
  check_per_channel(op, 3, c, "input_mean");
  check_per_channel(op, 4, c, "input_var");
  const DType stats = op.has_input(3) ? op.tensor(3).dtype : x.dtype;
  const Value per_channel = tensor_value(stats, {c});
  return results(
      op, {tensor_value(x.dtype, x.sizes), per_channel, per_channel, per_channel, per_channel});
}

Value instance_norm(Op& op) {
  const TensorMeta x = image(op, 0, "input");
  check_per_channel(op, 1, x.sizes[1], "scale");
  check_per_channel(op, 2, x.sizes[1], "B");
  return tensor_value(x.dtype, x.sizes);
}

Value layer_norm(Op& op) {
  const TensorMeta x = op.tensor(0);
  const size_t axis = op.axis(op.attr_int("axis", -1), x.rank());
  std::vector<Expr> stat = x.sizes;
  for (size_t d = axis; d < stat.size(); ++d) stat[d] = Expr(1);
  std::optional<DType> stash = dtype_of_elem_type(static_cast<int>(op.attr_int("stash_type", 1)));
  if (!stash) op.bad_input("stash_type is not a type symshape knows");
  return results(
      op, {tensor_value(x.dtype, x.sizes), tensor_value(*stash, stat), tensor_value(*stash, stat)});
}

Value group_norm(Op& op) {
  const TensorMeta x = image(op, 0);
  const std::optional<int64_t> groups = op.optional_attr_int("num_groups");
  if (!groups || *groups < 1) op.bad_input("attribute 'num_groups' must be >= 1");
  require(op, mod(x.sizes[1], num(*groups)) == Expr(0), "group_norm", [&] {
    return "channels " + x.sizes[1].str() + " are not a multiple of num_groups " +
           std::to_string(*groups);
  });
  return tensor_value(x.dtype, x.sizes);
}

Value same_as_input(Op& op) { return tensor_value(op.tensor(0).dtype, op.tensor(0).sizes); }

Value dropout(Op& op) {
  const TensorMeta x = op.tensor(0);
  // The mask is bool from opset 10; before, it had the input's type.
  const DType mask = op.opset() >= 10 ? DType::Bool : x.dtype;
  return results(op, {tensor_value(x.dtype, x.sizes), tensor_value(mask, x.sizes)});
}

// ---- Gemm, MatMul, Einsum, quantization -----------------------------------------------------

std::vector<Expr> matmul_sizes(Op& op, const TensorMeta& a, const TensorMeta& b) {
  if (a.rank() == 0 || b.rank() == 0) op.bad_input("MatMul inputs must have rank >= 1");
  if (op.op_type() == "MatMul" && a.dtype != b.dtype) {
    op.bad_input("inputs have different element types (" + std::string(to_string(a.dtype)) +
                 " and " + std::string(to_string(b.dtype)) + ")");
  }
  std::vector<Expr> sa = a.sizes, sb = b.sizes;
  const bool a_vector = sa.size() == 1, b_vector = sb.size() == 1;
  if (a_vector) sa.insert(sa.begin(), Expr(1));
  if (b_vector) sb.push_back(Expr(1));
  const Expr k_a = sa[sa.size() - 1], k_b = sb[sb.size() - 2];
  op.ctx().require_equal(k_a, k_b, "matmul", [&] {
    return "cannot multiply " + a.str() + " by " + b.str() + ": inner sizes " + k_a.str() +
           " and " + k_b.str() + " differ";
  });
  std::vector<Expr> out =
      ops::broadcast_shapes(op.ctx(), {sa.begin(), sa.end() - 2}, {sb.begin(), sb.end() - 2});
  if (!a_vector) out.push_back(sa[sa.size() - 2]);
  if (!b_vector) out.push_back(sb.back());
  return out;
}

Value gemm(Op& op) {
  const TensorMeta a = ranked(op, 0, 2, "A"), b = ranked(op, 1, 2, "B");
  if (a.dtype != b.dtype) op.bad_input("A and B have different element types");
  const bool ta = op.attr_int("transA", 0) != 0, tb = op.attr_int("transB", 0) != 0;
  const Expr m = a.sizes[ta ? 1 : 0], ka = a.sizes[ta ? 0 : 1];
  const Expr kb = b.sizes[tb ? 1 : 0], n = b.sizes[tb ? 0 : 1];
  op.ctx().require_equal(ka, kb, "gemm", [&] {
    return "A " + a.str() + " and B " + b.str() + " have inner sizes " + ka.str() + " and " +
           kb.str();
  });
  const std::vector<Expr> out{m, n};
  if (op.has_input(2)) {
    // C broadcasts to [M, N] (one way: C is never the larger).
    const TensorMeta c = op.tensor(2);
    if (c.rank() > 2) op.bad_input("C must have rank <= 2, got " + c.str());
    for (size_t d = 0; d < c.rank(); ++d) {
      const Expr& target = out[2 - c.rank() + d];
      if (op.ctx().known(c.sizes[d] == Expr(1)) == Truth::True) continue;
      op.ctx().require_equal(c.sizes[d], target, "gemm_c", [&] {
        return "C " + c.str() + " does not broadcast to [" + m.str() + ", " + n.str() + "]";
      });
    }
  }
  return tensor_value(a.dtype, out);
}

// Einsum: one term per input (letters and at most one "..."), and an output term or the
// implicit one (the ellipsis, then the letters used once, in alphabetical order).
Value einsum(Op& op) {
  std::string eq;
  for (char ch : op.attr_string("equation", "")) {
    if (ch != ' ') eq += ch;
  }
  if (eq.empty()) op.bad_input("attribute 'equation' is required");
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(
        lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != op.num_inputs()) {
    op.bad_input("equation '" + eq + "' has " + std::to_string(terms.size()) + " terms for " +
                 std::to_string(op.num_inputs()) + " inputs");
  }
  // A term as letters, with '.' standing for the ellipsis (at most one).
  auto parse = [&](const std::string& term) {
    std::string out;
    for (size_t i = 0; i < term.size(); ++i) {
      if (term.compare(i, 3, "...") == 0) {
        if (out.find('.') != std::string::npos)
          op.bad_input("term '" + term + "' has two ellipses");
        out += '.';
        i += 2;
      } else if (std::isalpha(static_cast<unsigned char>(term[i])) != 0) {
        out += term[i];
      } else {
        op.bad_input("equation '" + eq + "' has a bad character '" + term[i] + "'");
      }
    }
    return out;
  };
  std::map<char, Expr> size_of;
  std::map<char, int> uses;
  std::vector<Expr> ellipsis;
  DType dtype = op.tensor(0).dtype;
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string term = parse(terms[i]);
    const TensorMeta t = op.tensor(i);
    const bool has_dots = term.find('.') != std::string::npos;
    const size_t letters = term.size() - (has_dots ? 1 : 0);
    if (t.rank() < letters || (!has_dots && t.rank() != letters)) {
      op.bad_input("term '" + terms[i] + "' does not fit input " + std::to_string(i) + " " +
                   t.str());
    }
    const size_t dots = t.rank() - letters;
    size_t d = 0;
    for (char ch : term) {
      if (ch == '.') {
        ellipsis = ops::broadcast_shapes(op.ctx(), ellipsis,
                                         {t.sizes.begin() + static_cast<long>(d),
                                          t.sizes.begin() + static_cast<long>(d + dots)});
        d += dots;
        continue;
      }
      ++uses[ch];
      auto [it, fresh] = size_of.emplace(ch, t.sizes[d]);
      if (!fresh) {
        op.ctx().require_equal(t.sizes[d], it->second, "einsum", [&] {
          return std::string("label '") + ch + "' has size " + t.sizes[d].str() + " in input " +
                 std::to_string(i) + " and " + it->second.str() + " before";
        });
      }
      ++d;
    }
  }
  std::string out_term;
  if (arrow != std::string::npos) {
    out_term = parse(eq.substr(arrow + 2));
    std::set<char> seen;
    for (char ch : out_term) {
      if (ch != '.' && !size_of.count(ch)) {
        op.bad_input(std::string("output label '") + ch + "' is in no input");
      }
      if (!seen.insert(ch).second) op.bad_input(std::string("output repeats '") + ch + "'");
    }
  } else {
    out_term = ".";
    for (const auto& [ch, n] : uses) {
      if (n == 1) out_term += ch;
    }
  }
  std::vector<Expr> sizes;
  for (char ch : out_term) {
    if (ch == '.') {
      sizes.insert(sizes.end(), ellipsis.begin(), ellipsis.end());
    } else {
      sizes.push_back(size_of.at(ch));
    }
  }
  return tensor_value(dtype, sizes);
}

// The dtype of an optional zero-point input, or fallback.
DType zero_point_type(Op& op, size_t i, DType fallback) {
  return op.has_input(i) ? op.tensor(i).dtype : fallback;
}

Value quantize(Op& op) {
  const TensorMeta x = op.tensor(0);
  if (std::optional<int64_t> t = op.optional_attr_int("output_dtype"); t && *t != 0) {
    std::optional<DType> d = dtype_of_elem_type(static_cast<int>(*t));
    if (!d) op.bad_input("output_dtype " + std::to_string(*t) + " is not a type symshape knows");
    return tensor_value(*d, x.sizes);
  }
  return tensor_value(zero_point_type(op, 2, DType::UInt8), x.sizes);
}

Value dequantize(Op& op) {
  const TensorMeta x = op.tensor(0);
  return tensor_value(op.has_input(1) ? op.tensor(1).dtype : DType::Float32, x.sizes);
}

Value dynamic_quantize(Op& op) {
  const TensorMeta x = op.tensor(0);
  return results(op, {tensor_value(DType::UInt8, x.sizes), tensor_value(DType::Float32, {}),
                      tensor_value(DType::UInt8, {})});
}

// ---- Resize, Upsample, Pad ------------------------------------------------------------------

// The length of a 1-D input (0 when it is empty: Resize's "not given" scales or sizes).
std::optional<int64_t> length_of(Op& op, size_t i) {
  if (!op.has_input(i)) return std::nullopt;
  const TensorMeta t = op.tensor(i);
  if (t.rank() != 1) op.bad_input("input " + std::to_string(i) + " must be 1-D, got " + t.str());
  return op.ctx().simplify(t.sizes[0]).as_int64();
}

// floor(in * scale), exactly: a double is p / 2^k, so floor(in * p / 2^k) = (in * p) // 2^k.
Expr scaled_size(Op& op, const Expr& in, double scale) {
  if (!(scale > 0) || !std::isfinite(scale)) {
    op.bad_input("scale " + std::to_string(scale) + " must be positive");
  }
  int exponent = 0;
  const double mantissa = std::frexp(scale, &exponent);  // scale = mantissa * 2^exponent
  auto p = static_cast<int64_t>(std::ldexp(mantissa, 53));
  int64_t k = 53 - exponent;
  while (k > 0 && p % 2 == 0) {
    p /= 2;
    --k;
  }
  if (k < 0 && k >= -20 && p <= (int64_t{1} << 40)) {
    p <<= -k;
    k = 0;
  }
  if (k < 0 || k > 62 || p > (int64_t{1} << 60)) {
    op.bad_input("scale " + std::to_string(scale) + " is out of the range symshape handles");
  }
  return op.ctx().simplify(floordiv(in * num(p), num(int64_t{1} << k)));
}

// The resized axes (Resize 18's `axes`, all by default), normalized.
std::vector<size_t> resize_axes(Op& op, size_t rank) {
  std::vector<size_t> axes;
  if (std::optional<std::vector<int64_t>> a = op.optional_attr_ints("axes")) {
    std::set<size_t> seen;
    for (int64_t v : *a) {
      const size_t d = op.axis(v, rank, "axes entry");
      if (!seen.insert(d).second) op.bad_input("axes name dim " + std::to_string(d) + " twice");
      axes.push_back(d);
    }
    return axes;
  }
  for (size_t d = 0; d < rank; ++d) axes.push_back(d);
  return axes;
}

Value resize_by_scales(Op& op, const TensorMeta& x, const std::vector<size_t>& axes,
                       const std::optional<std::vector<double>>& scales) {
  std::vector<Expr> sizes = x.sizes;
  if (scales && scales->size() != axes.size()) {
    op.bad_input("scales has " + std::to_string(scales->size()) + " values for " +
                 std::to_string(axes.size()) + " axes");
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    sizes[axes[i]] =
        scales ? scaled_size(op, x.sizes[axes[i]], (*scales)[i]) : op.ctx().new_unbacked_size();
  }
  return tensor_value(x.dtype, sizes);
}

Value resize(Op& op) {
  const TensorMeta x = op.tensor(0);
  const std::vector<size_t> axes = resize_axes(op, x.rank());
  if (op.opset() < 11) return resize_by_scales(op, x, axes, op.reals(1));  // X, scales
  const std::optional<int64_t> n_scales = length_of(op, 2), n_sizes = length_of(op, 3);
  const bool has_sizes = op.has_input(3) && n_sizes != int64_t{0};
  const bool has_scales = op.has_input(2) && n_scales != int64_t{0};
  if (has_sizes == has_scales) op.bad_input("exactly one of scales and sizes must be given");
  if (has_scales) return resize_by_scales(op, x, axes, op.reals(2));
  std::optional<std::vector<Expr>> target = op.ints(3);
  std::vector<Expr> sizes = x.sizes;
  if (!target) {
    for (size_t d : axes) sizes[d] = op.ctx().new_unbacked_size();
    return tensor_value(x.dtype, sizes);
  }
  if (target->size() != axes.size()) {
    op.bad_input("sizes has " + std::to_string(target->size()) + " values for " +
                 std::to_string(axes.size()) + " axes");
  }
  const std::string policy = op.attr_string("keep_aspect_ratio_policy", "stretch");
  if (policy == "stretch") {
    for (size_t i = 0; i < axes.size(); ++i) sizes[axes[i]] = (*target)[i];
    return tensor_value(x.dtype, sizes);
  }
  if (policy != "not_larger" && policy != "not_smaller") {
    op.bad_input("keep_aspect_ratio_policy is '" + policy +
                 "' (expected stretch, not_larger or not_smaller)");
  }
  // One scale for all axes: the smallest (not_larger) or largest of sizes[i] / in[i], chosen
  // by comparing cross products; each output is then round(scale * in), half up.
  size_t best = 0;
  for (size_t i = 1; i < axes.size(); ++i) {
    const Expr lhs = (*target)[i] * x.sizes[axes[best]];
    const Expr rhs = (*target)[best] * x.sizes[axes[i]];
    const bool better = policy == "not_larger" ? op.ctx().decide(rhs >= lhs + 1, "resize_policy")
                                               : op.ctx().decide(lhs >= rhs + 1, "resize_policy");
    if (better) best = i;
  }
  const Expr num_scale = (*target)[best], den_scale = x.sizes[axes[best]];
  for (size_t d : axes) {
    require(op, x.sizes[d] >= Expr(1), "resize_policy", [&] {
      return "dim " + std::to_string(d) + " of " + x.str() +
             " is empty; keep_aspect_ratio_policy needs its scale";
    });
  }
  for (size_t d : axes) {
    sizes[d] = op.ctx().simplify(floordiv(2 * num_scale * x.sizes[d] + den_scale, 2 * den_scale));
  }
  return tensor_value(x.dtype, sizes);
}

Value upsample(Op& op) {
  const TensorMeta x = op.tensor(0);
  const std::vector<size_t> axes = resize_axes(op, x.rank());
  if (op.opset() < 9) {
    const std::vector<double> scales = op.attr_floats("scales");
    if (scales.empty()) op.bad_input("attribute 'scales' is required");
    return resize_by_scales(op, x, axes, scales);
  }
  return resize_by_scales(op, x, axes, op.reals(1));
}

Value pad(Op& op) {
  const TensorMeta x = op.tensor(0);
  const std::string mode = op.attr_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap") {
    op.bad_input("mode is '" + mode + "' (expected constant, reflect, edge or wrap)");
  }
  std::vector<size_t> axes;
  std::optional<std::vector<Expr>> pads;
  if (op.opset() < 11) {
    std::optional<std::vector<int64_t>> p = op.optional_attr_ints("pads");
    if (!p) p = op.optional_attr_ints("paddings");
    if (!p) op.bad_input("attribute 'pads' is required");
    pads.emplace();
    for (int64_t v : *p) pads->push_back(num(v));
    for (size_t d = 0; d < x.rank(); ++d) axes.push_back(d);
  } else {
    ranked(op, 1, 1, "pads");
    pads = op.ints(1);
    if (op.has_input(3)) {
      std::optional<std::vector<int64_t>> a = op.constants(3);
      if (!a) op.bad_input("axes must be a constant (they decide which dims change)");
      std::set<size_t> seen;
      for (int64_t v : *a) {
        const size_t d = op.axis(v, x.rank(), "axes entry");
        if (!seen.insert(d).second) op.bad_input("axes name dim " + std::to_string(d) + " twice");
        axes.push_back(d);
      }
    } else {
      for (size_t d = 0; d < x.rank(); ++d) axes.push_back(d);
    }
  }
  std::vector<Expr> sizes = x.sizes;
  if (!pads) {
    for (size_t d : axes) sizes[d] = op.ctx().new_unbacked_size();
    return tensor_value(x.dtype, sizes);
  }
  if (pads->size() != 2 * axes.size()) {
    op.bad_input("pads has " + std::to_string(pads->size()) + " values; " +
                 std::to_string(2 * axes.size()) + " expected (a begin and an end per axis)");
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t d = axes[i];
    const Expr o = op.ctx().simplify(x.sizes[d] + (*pads)[i] + (*pads)[i + axes.size()]);
    require(op, o >= Expr(0), "pad", [&] {
      return "dim " + std::to_string(d) + " of " + x.str() + " padded by " + (*pads)[i].str() +
             " and " + (*pads)[i + axes.size()].str() + " is negative (" + o.str() + ")";
    });
    sizes[d] = o;
  }
  return tensor_value(x.dtype, sizes);
}

Value center_crop_pad(Op& op) {
  const TensorMeta x = op.tensor(0);
  ranked(op, 1, 1, "shape");
  std::vector<size_t> axes = resize_axes(op, x.rank());
  std::vector<Expr> sizes = x.sizes;
  std::optional<std::vector<Expr>> shape = op.ints(1);
  if (!shape) {
    for (size_t d : axes) sizes[d] = op.ctx().new_unbacked_size();
    return tensor_value(x.dtype, sizes);
  }
  if (shape->size() != axes.size()) {
    op.bad_input("shape has " + std::to_string(shape->size()) + " values for " +
                 std::to_string(axes.size()) + " axes");
  }
  for (size_t i = 0; i < axes.size(); ++i) sizes[axes[i]] = (*shape)[i];
  return tensor_value(x.dtype, sizes);
}

// ---- layout -----------------------------------------------------------------------------------

int64_t blocksize(Op& op) {
  const std::optional<int64_t> b = op.optional_attr_int("blocksize");
  if (!b || *b < 1) op.bad_input("attribute 'blocksize' must be >= 1");
  return *b;
}

Value depth_to_space(Op& op) {
  const TensorMeta x = ranked(op, 0, 4, "input");
  const Expr b = num(blocksize(op));
  const std::string mode = op.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") op.bad_input("mode is '" + mode + "' (expected DCR or CRD)");
  require(op, mod(x.sizes[1], b * b) == Expr(0), "depth_to_space", [&] {
    return "channels " + x.sizes[1].str() +
           " are not a multiple of blocksize^2 = " + op.ctx().simplify(b * b).str();
  });
  return tensor_value(x.dtype,
                      {x.sizes[0], op.ctx().simplify(floordiv(x.sizes[1], b * b)),
                       op.ctx().simplify(x.sizes[2] * b), op.ctx().simplify(x.sizes[3] * b)});
}

Value space_to_depth(Op& op) {
  const TensorMeta x = ranked(op, 0, 4, "input");
  const Expr b = num(blocksize(op));
  for (size_t d : {size_t{2}, size_t{3}}) {
    require(op, mod(x.sizes[d], b) == Expr(0), "space_to_depth", [&] {
      return "dim " + std::to_string(d) + " of " + x.str() + " is not a multiple of blocksize " +
             b.str();
    });
  }
  return tensor_value(x.dtype, {x.sizes[0], op.ctx().simplify(x.sizes[1] * b * b),
                                op.ctx().simplify(floordiv(x.sizes[2], b)),
                                op.ctx().simplify(floordiv(x.sizes[3], b))});
}

Value grid_sample(Op& op) {
  const TensorMeta x = image(op, 0);
  const TensorMeta grid = op.tensor(1);
  const size_t n = x.rank() - 2;
  if (grid.rank() != x.rank()) {
    op.bad_input("grid " + grid.str() + " must have the rank of X " + x.str());
  }
  op.ctx().require_equal(grid.sizes[0], x.sizes[0], "grid_sample", [&] {
    return "grid " + grid.str() + " and X " + x.str() + " differ in batch size";
  });
  op.ctx().require_equal(grid.sizes.back(), num(static_cast<int64_t>(n)), "grid_sample", [&] {
    return "grid " + grid.str() + " must end in " + std::to_string(n) + " coordinates";
  });
  std::vector<Expr> sizes{x.sizes[0], x.sizes[1]};
  sizes.insert(sizes.end(), grid.sizes.begin() + 1, grid.sizes.end() - 1);
  return tensor_value(x.dtype, sizes);
}

Value affine_grid(Op& op) {
  const TensorMeta theta = ranked(op, 0, 3, "theta");
  ranked(op, 1, 1, "size");
  std::optional<std::vector<Expr>> size = op.ints(1);
  if (!size) {
    const std::optional<int64_t> n = length_of(op, 1);
    if (!n || (*n != 4 && *n != 5)) op.bad_input("size must have 4 or 5 values");
    size = unbacked_sizes(op, static_cast<size_t>(*n));
  }
  if (size->size() != 4 && size->size() != 5) op.bad_input("size must have 4 or 5 values");
  const size_t n = size->size() - 2;
  op.ctx().require_equal(theta.sizes[0], (*size)[0], "affine_grid",
                         [&] { return "theta " + theta.str() + " and size differ in batch size"; });
  std::vector<Expr> sizes{(*size)[0]};
  sizes.insert(sizes.end(), size->begin() + 2, size->end());
  sizes.push_back(num(static_cast<int64_t>(n)));
  return tensor_value(theta.dtype, sizes);
}

Value col2im(Op& op) {
  const TensorMeta x = ranked(op, 0, 3, "input");
  std::optional<std::vector<Expr>> image_shape = op.ints(1);
  std::optional<std::vector<Expr>> block = op.ints(2);
  if (!block) op.bad_input("block_shape must be known (it decides the channels)");
  const size_t n = block->size();
  for (const Expr& b : *block) {
    require(op, b >= Expr(1), "col2im",
            [&] { return "block_shape has " + b.str() + " (must be >= 1)"; });
  }
  std::vector<Expr> sizes{x.sizes[0]};
  const Expr per_channel = op.ctx().simplify(product(*block, 0, n));
  require(op, mod(x.sizes[1], per_channel) == Expr(0), "col2im", [&] {
    return "dim 1 of " + x.str() + " is not a multiple of the block size " + per_channel.str();
  });
  sizes.push_back(op.ctx().simplify(floordiv(x.sizes[1], per_channel)));
  if (image_shape && image_shape->size() != n) {
    op.bad_input("image_shape and block_shape have different lengths");
  }
  for (size_t d = 0; d < n; ++d) {
    sizes.push_back(image_shape ? (*image_shape)[d] : op.ctx().new_unbacked_size());
  }
  return tensor_value(x.dtype, sizes);
}

// ---- recurrent ------------------------------------------------------------------------------

Value recurrent(Op& op, int64_t gates, size_t max_outputs) {
  const TensorMeta x = ranked(op, 0, 3, "X");
  const TensorMeta w = ranked(op, 1, 3, "W");
  const TensorMeta r = ranked(op, 2, 3, "R");
  const std::string direction = op.attr_string("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
    op.bad_input("direction is '" + direction + "' (expected forward, reverse or bidirectional)");
  }
  const Expr dirs(direction == "bidirectional" ? 2 : 1);
  const int64_t layout = op.attr_int("layout", 0);
  if (layout != 0 && layout != 1) op.bad_input("layout must be 0 or 1");
  const Expr seq = x.sizes[layout == 0 ? 0 : 1], batch = x.sizes[layout == 0 ? 1 : 0];
  if (op.has_attr("hidden_size") && op.attr_int("hidden_size", 0) < 1) {
    op.bad_input("hidden_size must be >= 1");
  }
  const Expr hidden = op.has_attr("hidden_size") ? num(op.attr_int("hidden_size", 0)) : r.sizes[2];
  auto check = [&](const Expr& a, const Expr& b, const std::string& what) {
    op.ctx().require_equal(a, b, "rnn", [&] { return what; });
  };
  check(w.sizes[0], dirs, "W " + w.str() + " must have one slice per direction");
  check(r.sizes[0], dirs, "R " + r.str() + " must have one slice per direction");
  check(w.sizes[1], num(gates) * hidden,
        "W " + w.str() + " must have " + std::to_string(gates) + " * hidden_size rows");
  check(r.sizes[1], num(gates) * hidden,
        "R " + r.str() + " must have " + std::to_string(gates) + " * hidden_size rows");
  check(r.sizes[2], hidden, "R " + r.str() + " must be [dirs, gates * hidden, hidden]");
  check(w.sizes[2], x.sizes[2], "W " + w.str() + " and X " + x.str() + " differ in input size");
  // The optional inputs: B (input and recurrence biases), initial states, peepholes.
  auto check_shape = [&](size_t i, const std::vector<Expr>& want, const std::string& what) {
    if (!op.has_input(i)) return;
    const TensorMeta t = ranked(op, i, want.size(), what);
    for (size_t d = 0; d < want.size(); ++d) {
      check(t.sizes[d], want[d], what + " " + t.str() + " must be " + ops::shape_str(want));
    }
  };
  check_shape(3, {dirs, op.ctx().simplify(num(2 * gates) * hidden)}, "B");
  const std::vector<Expr> state_sizes =
      layout == 0 ? std::vector<Expr>{dirs, batch, hidden} : std::vector<Expr>{batch, dirs, hidden};
  check_shape(4, {batch}, "sequence_lens");
  check_shape(5, state_sizes, "initial_h");
  if (max_outputs == 3) {
    check_shape(6, state_sizes, "initial_c");
    check_shape(7, {dirs, op.ctx().simplify(num(3) * hidden)}, "P");
  }
  const Value y = tensor_value(
      x.dtype, layout == 0 ? std::vector<Expr>{seq, dirs, batch, op.ctx().simplify(hidden)}
                           : std::vector<Expr>{batch, seq, dirs, op.ctx().simplify(hidden)});
  const Value state = tensor_value(
      x.dtype, layout == 0 ? std::vector<Expr>{dirs, batch, op.ctx().simplify(hidden)}
                           : std::vector<Expr>{batch, dirs, op.ctx().simplify(hidden)});
  std::vector<Value> all{y, state, state};
  all.resize(max_outputs);
  return results(op, all);
}

}  // namespace

void add_nn_rules(OpRegistry& r) {
  add(r, "Conv", [](Op& op) { return conv(op, 0, 1, 2, op.tensor(0).dtype); });
  add(r, "ConvInteger", [](Op& op) { return conv(op, 0, 1, std::nullopt, DType::Int32); });
  // x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B
  add(r, "QLinearConv", [](Op& op) { return conv(op, 0, 3, 8, op.tensor(7).dtype); });
  // X, W, offset, B, mask
  add(r, "DeformConv", [](Op& op) { return conv(op, 0, 1, 3, op.tensor(0).dtype); });
  add(r, "ConvTranspose", conv_transpose);

  add(r, "MaxPool", [](Op& op) { return pool(op, true); });
  add(r, "AveragePool", [](Op& op) { return pool(op, false); });
  add(r, "LpPool", [](Op& op) { return pool(op, false); });
  for (const char* name : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}) {
    add(r, name, global_pool);
  }
  add(r, "MaxUnpool", max_unpool);
  add(r, "MaxRoiPool", max_roi_pool);
  add(r, "RoiAlign", roi_align);

  add(r, "BatchNormalization", batch_norm);
  add(r, "InstanceNormalization", instance_norm);
  add(r, "LayerNormalization", layer_norm);
  add(r, "GroupNormalization", group_norm);
  add(r, "LRN", same_as_input);
  add(r, "Dropout", dropout);

  add(r, "Gemm", gemm);
  add(r, "MatMul", [](Op& op) {
    return tensor_value(op.tensor(0).dtype, matmul_sizes(op, op.tensor(0), op.tensor(1)));
  });
  add(r, "MatMulInteger", [](Op& op) {
    return tensor_value(DType::Int32, matmul_sizes(op, op.tensor(0), op.tensor(1)));
  });
  // a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point
  add(r, "QLinearMatMul", [](Op& op) {
    return tensor_value(op.tensor(7).dtype, matmul_sizes(op, op.tensor(0), op.tensor(3)));
  });
  add(r, "Einsum", einsum);
  add(r, "QuantizeLinear", quantize);
  add(r, "DequantizeLinear", dequantize);
  add(r, "DynamicQuantizeLinear", dynamic_quantize);

  add(r, "Resize", resize);
  add(r, "Upsample", upsample);
  add(r, "Pad", pad);
  add(r, "CenterCropPad", center_crop_pad);
  add(r, "DepthToSpace", depth_to_space);
  add(r, "SpaceToDepth", space_to_depth);
  add(r, "GridSample", grid_sample);
  add(r, "AffineGrid", affine_grid);
  add(r, "Col2Im", col2im);

  add(r, "RNN", [](Op& op) { return recurrent(op, 1, 2); });
  add(r, "GRU", [](Op& op) { return recurrent(op, 3, 2); });
  add(r, "LSTM", [](Op& op) { return recurrent(op, 4, 3); });
}

}  // namespace symshape::onnx
