// ONNX's reductions, data-dependent operators (NonZero, TopK, Unique, NonMaxSuppression), random
// and signal operators (windows, DFT, STFT, MelWeightMatrix), losses, Det, optionals and the
// preview training operators. Control flow (If, Loop, Scan) is in control_flow.cc.
#include "symshape/onnx/rules.h"
#include "symshape/ops/families.h"

namespace symshape::onnx {

namespace {

// The node's outputs: a list of as many values as the node has outputs (the rest dropped), or
// the one value when it has one (an optional output left out).
Value outputs(Op& op, std::vector<Value> values) {
  const size_t n = op.num_outputs();
  if (n > values.size()) {
    op.bad_input("has " + std::to_string(n) + " outputs, " + std::string(op.op_type()) +
                 " has at most " + std::to_string(values.size()));
  }
  if (n == 1) return values[0];
  values.resize(n);
  return Value::list(std::move(values));
}

// A dtype attribute (an ONNX elem type) or fallback when absent.
DType dtype_attr(Op& op, std::string_view name, DType fallback) {
  std::optional<int64_t> t = op.optional_attr_int(name);
  if (!t) return fallback;
  std::optional<DType> d = dtype_of_elem_type(static_cast<int>(*t));
  if (!d) {
    op.bad_input("attribute '" + std::string(name) + "' names element type " + std::to_string(*t) +
                 ", which symshape has no dtype for");
  }
  return *d;
}

// A fresh data-dependent size known to lie in [0, bound] (bound a size expression): the range
// when bound is a constant, else a runtime assert.
Expr unbacked_at_most(Op& op, const Expr& bound, std::string_view rule) {
  const Expr b = op.ctx().simplify(bound);
  if (std::optional<Int> c = b.constant()) {
    if (*c < 0) op.bad_input("the bound " + b.str() + " of a data-dependent size is negative");
    return op.ctx().new_unbacked_size(ValueRange::closed(Int(0), *c));
  }
  Expr u = op.ctx().new_unbacked_size();
  op.ctx().assert_runtime(Cond::rel(RelOp::Le, u, b), rule);
  return u;
}

// A scalar input (rank 0, or one element) giving a size: its known value, or nullopt.
std::optional<Expr> scalar_int(Op& op, size_t i, std::string_view what) {
  const TensorMeta t = op.tensor(i);
  if (!is_integral(t.dtype))
    op.bad_input(std::string(what) + " must be an integer tensor, got " + t.str());
  if (t.rank() > 1) op.bad_input(std::string(what) + " must be a scalar, got " + t.str());
  std::optional<std::vector<Expr>> v = op.ints(i);
  if (!v) return std::nullopt;
  if (v->size() != 1) {
    op.bad_input(std::string(what) + " must hold one value, holds " + std::to_string(v->size()));
  }
  return op.ctx().simplify((*v)[0]);
}

// A size from a scalar input: its known value (checked non-negative), else a fresh
// data-dependent size.
Expr size_input(Op& op, size_t i, std::string_view what) {
  std::optional<Expr> v = scalar_int(op, i, what);
  if (!v) return op.ctx().new_unbacked_size();
  ops::require(op.ctx(), Cond::rel(RelOp::Ge, *v, Expr(0)), "size_input",
               [&] { return std::string(what) + " is negative: " + v->str(); });
  return *v;
}

void require_same(Op& op, const Expr& a, const Expr& b, std::string_view rule,
                  const std::function<std::string()>& message) {
  op.ctx().require_equal(a, b, rule, message);
}

// ---- reductions ----

// The axes a reduction reduces: an attribute in older opsets, an input in newer ones (either
// is read); nullopt when none are given.
std::optional<std::vector<int64_t>> reduce_axes(Op& op) {
  if (op.has_attr("axes")) return op.attr_ints("axes");
  if (!op.has_input(1)) return std::nullopt;
  const TensorMeta t = op.tensor(1);
  if (t.rank() != 1 || !is_integral(t.dtype))
    op.bad_input("axes must be a 1-D integer tensor, got " + t.str());
  std::optional<std::vector<int64_t>> axes = op.constants(1);
  if (!axes) op.bad_input("axes must be known constants (they decide the output's shape)");
  return axes;
}

// Reduces known integral elements (sum or product) over the given dims of constant sizes;
// nullopt when the sizes are symbolic or the elements unknown.
std::optional<std::vector<Expr>> reduce_elements(Op& op, const TensorMeta& x,
                                                 const std::vector<bool>& reduced, bool product) {
  std::optional<std::vector<Expr>> known = op.ints(0);
  if (!known) return std::nullopt;
  std::vector<int64_t> sizes;
  for (const Expr& e : x.sizes) {
    std::optional<int64_t> c = op.ctx().simplify(e).as_int64();
    if (!c) return std::nullopt;
    sizes.push_back(*c);
  }
  size_t numel = 1, out_numel = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    numel *= static_cast<size_t>(sizes[d]);
    if (!reduced[d]) out_numel *= static_cast<size_t>(sizes[d]);
  }
  if (known->size() != numel) return std::nullopt;
  std::vector<Expr> out(out_numel, Expr(product ? 1 : 0));
  std::vector<int64_t> index(sizes.size(), 0);
  for (size_t k = 0; k < numel; ++k) {
    size_t o = 0;
    for (size_t d = 0; d < sizes.size(); ++d)
      if (!reduced[d]) o = o * static_cast<size_t>(sizes[d]) + static_cast<size_t>(index[d]);
    out[o] = product ? out[o] * (*known)[k] : out[o] + (*known)[k];
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  for (Expr& e : out) e = op.ctx().simplify(e);
  return out;
}

Value reduce_rule(Op& op) {
  const Value in = op.input(0);
  if (!in.is_tensor()) op.bad_input("data is not a tensor");
  const TensorMeta x = in.tensor;
  const bool keepdims = op.attr_int("keepdims", 1) != 0;
  std::optional<std::vector<int64_t>> axes = reduce_axes(op);
  if ((!axes || axes->empty()) && op.attr_int("noop_with_empty_axes", 0) != 0) return in;
  std::vector<bool> reduced(x.rank(), !axes || axes->empty());
  if (axes) {
    for (int64_t a : *axes) {
      const size_t d = op.axis(a, x.rank(), "axes entry");
      if (reduced[d]) op.bad_input("axes name dim " + std::to_string(d) + " twice");
      reduced[d] = true;
    }
  }
  std::vector<Expr> sizes;
  for (size_t d = 0; d < x.rank(); ++d) {
    if (!reduced[d]) {
      sizes.push_back(x.sizes[d]);
    } else if (keepdims) {
      sizes.emplace_back(1);
    }
  }
  // Sums and products of a shape stay known (ReduceProd(Shape(x)) is x's element count).
  const std::string_view type = op.op_type();
  if (type == "ReduceSum" || type == "ReduceProd") {
    if (auto e = reduce_elements(op, x, reduced, type == "ReduceProd"))
      return int_tensor(x.dtype, sizes, std::move(*e));
  }
  return tensor_value(x.dtype, sizes);
}

Value arg_reduce_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  if (x.rank() == 0) op.bad_input("data must have rank >= 1");
  const size_t axis = op.axis(op.attr_int("axis", 0), x.rank());
  const bool keepdims = op.attr_int("keepdims", 1) != 0;
  std::vector<Expr> sizes;
  for (size_t d = 0; d < x.rank(); ++d) {
    if (d != axis) {
      sizes.push_back(x.sizes[d]);
    } else if (keepdims) {
      sizes.emplace_back(1);
    }
  }
  return tensor_value(DType::Int64, sizes);
}

// ---- data-dependent ----

Value nonzero_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  const Expr rank(static_cast<long long>(x.rank()));
  // Known elements (a constant) give the count itself.
  if (std::optional<std::vector<Expr>> known = op.ints(0)) {
    long long count = 0;
    bool all = true;
    for (const Expr& e : *known) {
      Truth t = op.ctx().known(Cond::rel(RelOp::Ne, e, Expr(0)));
      if (t == Truth::Unknown) {
        all = false;
        break;
      }
      if (t == Truth::True) ++count;
    }
    if (all) return tensor_value(DType::Int64, {rank, Expr(count)});
  }
  return tensor_value(DType::Int64, {rank, unbacked_at_most(op, x.numel(), "nonzero")});
}

Value topk_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  if (x.rank() == 0) op.bad_input("X must have rank >= 1");
  const size_t axis = op.axis(op.attr_int("axis", -1), x.rank());
  const Expr& dim = x.sizes[axis];
  Expr k;
  if (op.opset() < 10) {
    std::optional<int64_t> a = op.optional_attr_int("k");
    if (!a) op.bad_input("attribute 'k' is required before opset 10");
    k = Expr(static_cast<long long>(*a));
  } else {
    const TensorMeta kt = op.tensor(1);
    if (kt.rank() != 1 && kt.rank() != 0)
      op.bad_input("K must be a 1-D tensor of one element, got " + kt.str());
    std::optional<Expr> known = scalar_int(op, 1, "K");
    if (!known) {
      // K computed from data: a size up to the dim.
      std::vector<Expr> sizes = x.sizes;
      sizes[axis] = unbacked_at_most(op, dim, "topk");
      return outputs(op, {tensor_value(x.dtype, sizes), tensor_value(DType::Int64, sizes)});
    }
    k = *known;
  }
  ops::require(op.ctx(), Cond::rel(RelOp::Ge, k, Expr(0)), "topk",
               [&] { return "K is negative: " + k.str(); });
  ops::require(op.ctx(), Cond::rel(RelOp::Le, k, dim), "topk", [&] {
    return "K = " + k.str() + " is larger than dim " + std::to_string(axis) + " of " + x.str();
  });
  std::vector<Expr> sizes = x.sizes;
  sizes[axis] = k;
  return outputs(op, {tensor_value(x.dtype, sizes), tensor_value(DType::Int64, sizes)});
}

Value unique_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  std::optional<int64_t> axis_attr = op.optional_attr_int("axis");
  std::vector<Expr> y_sizes;
  Expr u, inverse;
  if (axis_attr) {
    const size_t axis = op.axis(*axis_attr, x.rank());
    u = unbacked_at_most(op, x.sizes[axis], "unique");
    y_sizes = x.sizes;
    y_sizes[axis] = u;
    inverse = x.sizes[axis];
  } else {
    inverse = op.ctx().simplify(x.numel());
    u = unbacked_at_most(op, inverse, "unique");
    y_sizes = {u};
  }
  return outputs(op, {tensor_value(x.dtype, y_sizes), tensor_value(DType::Int64, {u}),
                      tensor_value(DType::Int64, {inverse}), tensor_value(DType::Int64, {u})});
}

Value nms_rule(Op& op) {
  const TensorMeta boxes = op.tensor(0), scores = op.tensor(1);
  if (boxes.rank() != 3)
    op.bad_input("boxes must be [num_batches, spatial_dimension, 4], got " + boxes.str());
  if (scores.rank() != 3) {
    op.bad_input("scores must be [num_batches, num_classes, spatial_dimension], got " +
                 scores.str());
  }
  require_same(op, boxes.sizes[2], Expr(4), "nms",
               [&] { return "boxes must have 4 coordinates in dim 2, got " + boxes.str(); });
  require_same(op, boxes.sizes[0], scores.sizes[0], "nms", [&] {
    return "boxes " + boxes.str() + " and scores " + scores.str() + " differ in num_batches";
  });
  require_same(op, boxes.sizes[1], scores.sizes[2], "nms", [&] {
    return "boxes " + boxes.str() + " and scores " + scores.str() + " differ in spatial_dimension";
  });
  Expr per_class = boxes.sizes[1];
  if (!op.has_input(2)) {
    per_class = Expr(0);  // no max_output_boxes_per_class: no output
  } else if (std::optional<Expr> m = scalar_int(op, 2, "max_output_boxes_per_class")) {
    per_class = min(*m, boxes.sizes[1]);
    if (std::optional<Int> c = op.ctx().simplify(*m).constant(); c && *c <= 0) per_class = Expr(0);
  }
  const Expr bound = op.ctx().simplify(scores.sizes[0] * scores.sizes[1] * per_class);
  Expr n =
      bound.is_constant() && *bound.constant() == 0 ? Expr(0) : unbacked_at_most(op, bound, "nms");
  return tensor_value(DType::Int64, {n, Expr(3)});
}

// ---- random ----

Value like_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  return tensor_value(dtype_attr(op, "dtype", x.dtype), x.sizes);
}

Value random_rule(Op& op) {
  std::optional<std::vector<int64_t>> shape = op.optional_attr_ints("shape");
  if (!shape) op.bad_input("attribute 'shape' is required");
  std::vector<Expr> sizes;
  for (int64_t s : *shape) {
    if (s < 0) op.bad_input("shape has a negative size " + std::to_string(s));
    sizes.emplace_back(static_cast<long long>(s));
  }
  return tensor_value(dtype_attr(op, "dtype", DType::Float32), sizes);
}

Value multinomial_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  if (x.rank() != 2) op.bad_input("input must be [batch_size, class_size], got " + x.str());
  const int64_t samples = op.attr_int("sample_size", 1);
  if (samples < 0) op.bad_input("sample_size is negative");
  const DType d = dtype_attr(op, "dtype", DType::Int32);
  if (d != DType::Int32 && d != DType::Int64) op.bad_input("dtype must be int32 or int64");
  return tensor_value(d, {x.sizes[0], Expr(static_cast<long long>(samples))});
}

// ---- signal ----

Value window_rule(Op& op) {
  const Expr n = size_input(op, 0, "size");
  return tensor_value(dtype_attr(op, "output_datatype", DType::Float32), {n});
}

// The complex-or-real last dim of a signal: 1 or 2.
void require_signal_last_dim(Op& op, const TensorMeta& t, std::string_view what) {
  const Expr last = t.sizes.back();
  ops::require(
      op.ctx(),
      Cond::any({Cond::rel(RelOp::Eq, last, Expr(1)), Cond::rel(RelOp::Eq, last, Expr(2))}),
      "signal", [&] {
        return std::string(what) + " must end in a dim of 1 (real) or 2 (complex), got " + t.str();
      });
}

Value dft_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  if (x.rank() < 3) {
    op.bad_input("input must be [batch, signal dims..., 1 or 2] (rank >= 3), got " + x.str());
  }
  require_signal_last_dim(op, x, "input");
  int64_t axis = op.attr_int("axis", 1);
  if (op.opset() >= 20 && op.has_input(2)) {
    std::optional<std::vector<int64_t>> a = op.constants(2);
    if (!a || a->size() != 1) op.bad_input("axis must be a known scalar");
    axis = (*a)[0];
  }
  // The last dim holds the real and imaginary parts: not an axis to transform.
  const auto r = static_cast<int64_t>(x.rank());
  if (axis < -r || axis == -1 || axis >= r - 1) {
    op.bad_input("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r) +
                 " (expected [" + std::to_string(-r) + ", -2] or [0, " + std::to_string(r - 2) +
                 "])");
  }
  const auto a = static_cast<size_t>(axis < 0 ? axis + r : axis);
  Expr n = x.sizes[a];
  if (op.has_input(1)) n = size_input(op, 1, "dft_length");
  const bool onesided = op.attr_int("onesided", 0) != 0;
  std::vector<Expr> sizes = x.sizes;
  sizes[a] = onesided ? op.ctx().simplify(floordiv(n, Expr(2)) + 1) : n;
  sizes.back() = Expr(2);
  return tensor_value(x.dtype, sizes);
}

Value stft_rule(Op& op) {
  const TensorMeta signal = op.tensor(0);
  if (signal.rank() != 3)
    op.bad_input("signal must be [batch_size, signal_length, 1 or 2], got " + signal.str());
  require_signal_last_dim(op, signal, "signal");
  std::optional<Expr> step = scalar_int(op, 1, "frame_step");
  std::optional<Expr> length;
  if (op.has_input(2)) {
    const TensorMeta w = op.tensor(2);
    if (w.rank() != 1) op.bad_input("window must be 1-D, got " + w.str());
    length = w.sizes[0];
  }
  if (op.has_input(3)) {
    Expr given = size_input(op, 3, "frame_length");
    if (length) {
      const Expr w = *length;
      require_same(op, given, w, "stft", [&] {
        return "frame_length " + given.str() + " differs from the window's length " + w.str();
      });
    }
    length = given;
  }
  if (!length) op.bad_input("needs a window or a frame_length");
  Expr frames;
  if (step) {
    const Expr s = *step;
    ops::require(op.ctx(), Cond::rel(RelOp::Ge, s, Expr(1)), "stft",
                 [&] { return "frame_step must be positive, got " + s.str(); });
    ops::require(op.ctx(), Cond::rel(RelOp::Le, *length, signal.sizes[1]), "stft", [&] {
      return "frame_length " + length->str() + " is longer than the signal " + signal.str();
    });
    frames = op.ctx().simplify(floordiv(signal.sizes[1] - *length, s) + 1);
  } else {
    frames = unbacked_at_most(op, signal.sizes[1], "stft");
  }
  const bool onesided = op.attr_int("onesided", 1) != 0;
  const Expr bins = onesided ? op.ctx().simplify(floordiv(*length, Expr(2)) + 1) : *length;
  return tensor_value(signal.dtype, {signal.sizes[0], frames, bins, Expr(2)});
}

Value mel_rule(Op& op) {
  const Expr mel = size_input(op, 0, "num_mel_bins");
  const Expr dft = size_input(op, 1, "dft_length");
  return tensor_value(dtype_attr(op, "output_datatype", DType::Float32),
                      {op.ctx().simplify(floordiv(dft, Expr(2)) + 1), mel});
}

// ---- linear algebra and losses ----

Value det_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  if (x.rank() < 2) op.bad_input("X must be [*, M, M], got " + x.str());
  require_same(op, x.sizes[x.rank() - 2], x.sizes[x.rank() - 1], "det",
               [&] { return "X must be square in its last two dims, got " + x.str(); });
  return tensor_value(x.dtype, std::vector<Expr>(x.sizes.begin(), x.sizes.end() - 2));
}

// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: input [N, C, d...], target [N, d...],
// weight [C]; the loss per element with reduction none, else a scalar.
Value loss_shape(Op& op, const TensorMeta& input, const TensorMeta& target) {
  if (input.rank() < 2) op.bad_input("the input must be [N, C, d...], got " + input.str());
  if (target.rank() + 1 != input.rank()) {
    op.bad_input("the target must be [N, d...] for input " + input.str() + ", got " + target.str());
  }
  if (!is_integral(target.dtype)) op.bad_input("the target must be int32 or int64");
  for (size_t d = 0; d < target.rank(); ++d) {
    const size_t in_dim = d == 0 ? 0 : d + 1;
    require_same(op, target.sizes[d], input.sizes[in_dim], "loss", [&] {
      return "the target " + target.str() + " does not match the input " + input.str() +
             " in dim " + std::to_string(in_dim);
    });
  }
  if (op.has_input(2)) {
    const TensorMeta w = op.tensor(2);
    if (w.rank() != 1) op.bad_input("the weight must be [C], got " + w.str());
    require_same(op, w.sizes[0], input.sizes[1], "loss", [&] {
      return "the weight " + w.str() + " does not match C of the input " + input.str();
    });
  }
  const std::string reduction = op.attr_string("reduction", "mean");
  if (reduction == "none") return tensor_value(input.dtype, target.sizes);
  if (reduction == "mean" || reduction == "sum") return tensor_value(input.dtype, {});
  op.bad_input("reduction must be none, mean or sum, got '" + reduction + "'");
}

Value nll_rule(Op& op) { return loss_shape(op, op.tensor(0), op.tensor(1)); }

Value sce_rule(Op& op) {
  const TensorMeta scores = op.tensor(0);
  Value loss = loss_shape(op, scores, op.tensor(1));
  return outputs(op, {loss, tensor_value(scores.dtype, scores.sizes)});
}

// ---- optionals (an optional holding a value is the value) ----

Value optional_rule(Op& op) {
  if (!op.has_input(0)) {
    op.bad_input("an empty Optional has no value symshape can represent (no optional values)");
  }
  return op.input(0);
}

Value optional_has_element_rule(Op& op) {
  return int_tensor(DType::Bool, {}, {Expr(op.has_input(0) ? 1 : 0)});
}

Value optional_get_element_rule(Op& op) {
  const Value v = op.input(0);
  if (!v.is_tensor()) op.bad_input("holds no tensor (sequences are not supported): " + v.str());
  return v;
}

// ---- ai.onnx.preview.training ----

// Adagrad, Adam, Momentum: inputs R, T, then n tensors of each of `groups` kinds (X, G, ...);
// outputs n tensors of each kind listed in `out_groups`, each the shape of its input.
void add_training(OpRegistry& r, const std::string& type, size_t groups,
                  std::vector<size_t> out_groups) {
  r.add("ai.onnx.preview.training." + type, [groups, out_groups](OpContext& ctx) {
    Op op(ctx);
    if (op.num_inputs() < 2 + groups || (op.num_inputs() - 2) % groups != 0) {
      op.bad_input("needs R, T and " + std::to_string(groups) +
                   " inputs per optimized tensor, got " + std::to_string(op.num_inputs()) +
                   " inputs");
    }
    const size_t n = (op.num_inputs() - 2) / groups;
    for (size_t g = 1; g < groups; ++g) {
      for (size_t i = 0; i < n; ++i) {
        const TensorMeta x = op.tensor(2 + i), other = op.tensor(2 + g * n + i);
        if (x.rank() != other.rank()) {
          op.bad_input("input " + std::to_string(2 + g * n + i) + " " + other.str() +
                       " does not have the shape of X " + x.str());
        }
        for (size_t d = 0; d < x.rank(); ++d) {
          require_same(op, x.sizes[d], other.sizes[d], "optimizer", [&] {
            return "input " + std::to_string(2 + g * n + i) + " " + other.str() +
                   " does not have the shape of X " + x.str();
          });
        }
      }
    }
    std::vector<Value> out;
    for (size_t g : out_groups)
      for (size_t i = 0; i < n; ++i) out.push_back(Value::of(op.tensor(2 + g * n + i)));
    const size_t want = op.num_outputs();
    if (want > out.size()) {
      op.bad_input("has " + std::to_string(want) + " outputs, at most " +
                   std::to_string(out.size()) + " for " + std::to_string(n) + " tensors");
    }
    if (want == 1) return out[0];
    out.resize(want);
    return Value::list(std::move(out));
  });
}

}  // namespace

// TfIdfVectorizer: [C] or [N, C] of token ids gives float32 [K] or [N, K], K one more than the
// largest output index.
Value tfidf_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  if (x.rank() != 1 && x.rank() != 2) op.bad_input("input must be [C] or [N, C], got " + x.str());
  const std::vector<int64_t> indexes = op.attr_ints("ngram_indexes");
  if (indexes.empty()) op.bad_input("attribute 'ngram_indexes' is required");
  int64_t largest = 0;
  for (int64_t i : indexes) {
    if (i < 0) op.bad_input("ngram_indexes has a negative index " + std::to_string(i));
    largest = std::max(largest, i);
  }
  std::vector<Expr> sizes;
  if (x.rank() == 2) sizes.push_back(x.sizes[0]);
  sizes.emplace_back(static_cast<long long>(largest) + 1);
  return tensor_value(DType::Float32, sizes);
}

void add_misc_rules(OpRegistry& r) {
  for (const char* name :
       {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}) {
    add(r, name, reduce_rule);
  }
  add(r, "ArgMax", arg_reduce_rule);
  add(r, "ArgMin", arg_reduce_rule);

  add(r, "NonZero", nonzero_rule);
  add(r, "TopK", topk_rule);
  add(r, "Unique", unique_rule);
  add(r, "NonMaxSuppression", nms_rule);

  add(r, "Bernoulli", like_rule);
  add(r, "RandomUniformLike", like_rule);
  add(r, "RandomNormalLike", like_rule);
  add(r, "RandomUniform", random_rule);
  add(r, "RandomNormal", random_rule);
  add(r, "Multinomial", multinomial_rule);

  for (const char* name : {"BlackmanWindow", "HannWindow", "HammingWindow"})
    add(r, name, window_rule);
  add(r, "DFT", dft_rule);
  add(r, "STFT", stft_rule);
  add(r, "MelWeightMatrix", mel_rule);

  add(r, "Det", det_rule);
  add(r, "TfIdfVectorizer", tfidf_rule);
  add(r, "NegativeLogLikelihoodLoss", nll_rule);
  add(r, "SoftmaxCrossEntropyLoss", sce_rule);

  add(r, "Optional", optional_rule);
  add(r, "OptionalHasElement", optional_has_element_rule);
  add(r, "OptionalGetElement", optional_get_element_rule);

  add_training(r, "Adagrad", 3, {0, 2});   // X, G, H -> X, H
  add_training(r, "Momentum", 3, {0, 2});  // X, G, V -> X, V
  add_training(r, "Adam", 4, {0, 2, 3});   // X, G, V, H -> X, V, H
}

}  // namespace symshape::onnx
