#include <algorithm>
#include <optional>

#include "symshape/ops/families.h"
#include "symshape/ops/validate/common.h"

namespace symshape::ops {

std::string shape_str(const std::vector<Expr>& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + sizes[i].str();
  return s + "]";
}

namespace {

// Whether cond is known to hold. Layout decisions never guard: a comparison the context cannot
// decide statically counts as not holding (the dims it would order stay as the other operands
// and the default order leave them).
bool holds(const OpContext& ctx, const Cond& c) { return ctx.known(c) == Truth::True; }

std::vector<Expr> strides_or_contiguous(const TensorMeta& t) {
  return t.strides.size() == t.rank() ? t.strides : TensorMeta::contiguous_strides(t.sizes);
}

// Whether t is contiguous in the dim order `order` (slowest first): PyTorch's is_contiguous,
// where a size-1 dim's stride does not matter.
bool dense_in_order(const OpContext& ctx, const TensorMeta& t, const std::vector<size_t>& order) {
  const bool given = t.strides.size() == t.rank();
  const std::vector<Expr> computed = given ? std::vector<Expr>{} : strides_or_contiguous(t);
  const std::vector<Expr>& strides = given ? t.strides : computed;
  Expr expected = 1;
  for (size_t i = order.size(); i-- > 0;) {
    const size_t d = order[i];
    // The same expression, or a size of 1, settles it without a decision (the usual case).
    const std::optional<Int> size = t.sizes[d].constant();
    if (!strides[d].identical(expected) && !(size && *size == 1) &&
        !holds(ctx, t.sizes[d] == 1 || strides[d] == expected)) {
      return false;
    }
    if (i > 0) expected = expected * t.sizes[d];
  }
  return true;
}

}  // namespace

std::vector<Expr> elementwise_strides(const OpContext& ctx,
                                      const std::vector<const TensorMeta*>& inputs,
                                      bool scalar_operand, const std::vector<Expr>& shape) {
  const size_t ndim = shape.size();
  std::vector<Expr> contiguous = TensorMeta::contiguous_strides(shape);
  if (ndim <= 1 || inputs.empty()) return contiguous;
  // The usual case without a decision: every operand contiguous with the output's trailing
  // sizes (the very expressions: then its strides are those of the output's trailing dims), and
  // no dim of size 1. Every operand's strides then decrease strictly along the output's dims
  // (0 where it broadcasts), so TensorIterator's order is row-major, fast path or not.
  bool row_major = std::none_of(shape.begin(), shape.end(), [](const Expr& s) {
    const std::optional<Int> c = s.constant();
    return c && *c <= 1;
  });
  for (const TensorMeta* t : inputs) {
    const size_t rank = t->rank();
    if (!row_major) break;
    if (rank > ndim || t->strides.size() != rank) {
      row_major = false;
      break;
    }
    for (size_t i = 0; i < rank && row_major; ++i) {
      const size_t d = ndim - rank + i;
      row_major = t->sizes[i].identical(shape[d]) && t->strides[i].identical(contiguous[d]);
    }
  }
  if (row_major) return contiguous;
  // The fast paths: every operand a tensor of the output's shape, all contiguous (which wins)
  // or all channels_last.
  bool same_shape = !scalar_operand;
  for (const TensorMeta* t : inputs) {
    if (!same_shape) break;
    if (t->rank() != ndim) {
      same_shape = false;
      break;
    }
    for (size_t d = 0; d < ndim && same_shape; ++d)
      same_shape = t->sizes[d].identical(shape[d]) || holds(ctx, t->sizes[d] == shape[d]);
  }
  if (same_shape) {
    std::vector<size_t> order(ndim);
    for (size_t d = 0; d < ndim; ++d) order[d] = d;
    bool all = true;
    for (const TensorMeta* t : inputs) all = all && dense_in_order(ctx, *t, order);
    if (all) return contiguous;
    if (ndim == 4) {
      all = true;
      for (const TensorMeta* t : inputs) all = all && dense_in_order(ctx, *t, {0, 2, 3, 1});
      if (all) {
        std::vector<Expr> strides(4);
        strides[1] = 1;
        strides[3] = shape[1];
        strides[2] = ctx.simplify(shape[1] * shape[3]);
        strides[0] = ctx.simplify(shape[1] * shape[3] * shape[2]);
        return strides;
      }
    }
  }
  // Each operand's strides over the output's dims: 0 for a dim it lacks or broadcasts (size 1
  // against a larger size).
  std::vector<std::vector<Expr>> op_strides;
  for (const TensorMeta* t : inputs) {
    const std::vector<Expr> strides = strides_or_contiguous(*t);
    std::vector<Expr> out(ndim, Expr(0));
    const size_t offset = ndim - std::min(ndim, t->rank());
    for (size_t i = 0; i < t->rank() && i < ndim; ++i) {
      const size_t d = offset + i;
      // A size-1 dim against a dim not known to be 1 counts as broadcast (size-obliviously: a
      // symbolic size is taken to be at least 2).
      const bool broadcast = holds(ctx, t->sizes[i] == 1) && !holds(ctx, shape[d] == 1);
      out[d] = broadcast ? Expr(0) : strides[i];
    }
    op_strides.push_back(std::move(out));
  }
  // PyTorch's reorder_dimensions: perm[0] is the fastest dim. 1: dim0 goes after (is slower
  // than) dim1, -1: before, 0: no operand tells.
  auto should_swap = [&](size_t dim0, size_t dim1) {
    for (const std::vector<Expr>& st : op_strides) {
      const Expr& s0 = st[dim0];
      const Expr& s1 = st[dim1];
      if (holds(ctx, s0 == 0) || holds(ctx, s1 == 0)) continue;
      if (holds(ctx, s0 < s1)) return -1;
      if (holds(ctx, s0 > s1)) return 1;
      if (holds(ctx, s0 == s1) && holds(ctx, shape[dim0] > shape[dim1])) return 1;
    }
    return 0;
  };
  std::vector<size_t> perm(ndim);
  for (size_t i = 0; i < ndim; ++i) perm[i] = ndim - 1 - i;
  for (size_t i = 1; i < ndim; ++i) {
    size_t dim1 = i;
    for (size_t dim0 = i; dim0-- > 0;) {
      const int comparison = should_swap(perm[dim0], perm[dim1]);
      if (comparison > 0) {
        std::swap(perm[dim0], perm[dim1]);
        dim1 = dim0;
      } else if (comparison < 0) {
        break;
      }
    }
  }
  std::vector<Expr> strides(ndim);
  Expr step = 1;
  for (size_t k = 0; k < ndim; ++k) {
    strides[perm[k]] = ctx.simplify(step);
    step = step * shape[perm[k]];
  }
  return strides;
}

bool strides_like_channels_last(const OpContext& ctx, const TensorMeta& t) {
  const size_t rank = t.rank();
  if ((rank != 4 && rank != 5) || t.strides.size() != rank) return false;
  if (!holds(ctx, t.strides[1] != 0)) return false;
  // Channels, then the spatial dims from the last, then the batch: each stride at least the
  // previous dim's extent (stride times size, where the stride exceeds 1).
  std::vector<size_t> order = {1};
  for (size_t d = rank - 1; d >= 2; --d) order.push_back(d);
  order.push_back(0);
  Expr min = 0;
  for (const size_t d : order) {
    if (!holds(ctx, t.sizes[d] != 0) || !holds(ctx, t.strides[d] >= min)) return false;
    if (d == 0 && holds(ctx, min == t.strides[1])) return false;
    min = t.strides[d];
    if (holds(ctx, t.strides[d] > 1)) {
      min = ctx.simplify(min * t.sizes[d]);
    } else if (!holds(ctx, t.strides[d] <= 1)) {
      return false;  // undecided: the default (contiguous) format
    }
  }
  return true;
}

std::vector<Expr> channels_last_strides(const OpContext& ctx, const std::vector<Expr>& sizes) {
  const size_t rank = sizes.size();
  std::vector<Expr> strides(rank);
  strides[1] = 1;
  Expr step = sizes[1];
  for (size_t d = rank - 1; d >= 2; --d) {
    strides[d] = ctx.simplify(step);
    step *= sizes[d];
  }
  strides[0] = ctx.simplify(step);
  return strides;
}

std::vector<Expr> suggested_format_strides(const OpContext& ctx, const TensorMeta& t,
                                           const std::vector<Expr>& sizes) {
  if (sizes.size() == t.rank() && strides_like_channels_last(ctx, t)) {
    return channels_last_strides(ctx, sizes);
  }
  return TensorMeta::contiguous_strides(sizes);
}

bool non_overlapping_and_dense(const OpContext& ctx, const TensorMeta& t) {
  if (t.strides.size() != t.rank()) return true;  // contiguous
  // Take the dims (those of size 1 aside) in the order of their strides: each must start where
  // the ones before it end.
  std::vector<bool> used(t.rank(), false);
  size_t left = 0;
  for (size_t d = 0; d < t.rank(); ++d) {
    used[d] = holds(ctx, t.sizes[d] <= 1);
    if (!used[d]) ++left;
  }
  Expr expected = 1;
  while (left > 0) {
    std::optional<size_t> next;
    for (size_t d = 0; d < t.rank() && !next; ++d) {
      if (!used[d] && (t.strides[d].identical(expected) || holds(ctx, t.strides[d] == expected))) {
        next = d;
      }
    }
    if (!next) return false;
    used[*next] = true;
    --left;
    expected = ctx.simplify(expected * t.sizes[*next]);
  }
  return true;
}

std::vector<Expr> empty_like_strides(const OpContext& ctx, const TensorMeta& t) {
  if (t.strides.size() != t.rank()) return TensorMeta::contiguous_strides(t.sizes);
  if (non_overlapping_and_dense(ctx, t)) return t.strides;
  return elementwise_strides(ctx, {&t}, false, t.sizes);
}

TensorMeta contiguous(DType dtype, std::vector<Expr> sizes) {
  TensorMeta t;
  t.dtype = dtype;
  t.strides = TensorMeta::contiguous_strides(sizes);
  t.sizes = std::move(sizes);
  return t;
}

std::vector<Expr> broadcast_shapes(const OpContext& ctx, const std::vector<Expr>& a,
                                   const std::vector<Expr>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<Expr> out(rank);
  for (size_t k = 0; k < rank; ++k) {
    // Align from the right; a missing dim broadcasts like a 1.
    const bool has_a = k < a.size(), has_b = k < b.size();
    const Expr& da = has_a ? a[a.size() - 1 - k] : b[b.size() - 1 - k];
    const Expr& db = has_b ? b[b.size() - 1 - k] : da;
    Expr& slot = out[rank - 1 - k];
    if (!has_a || !has_b) {
      slot = da;
      continue;
    }
    if (da.identical(db)) {
      slot = da;
      continue;
    }
    // Size 1 stretches; for a dynamic dim this is usually decided by its range ([2, inf]).
    auto is_one = [&](const Expr& d) {
      if (ctx.is_data_dependent(d)) {
        return ctx.decide_size_oblivious(d == 1, "broadcast");
      }
      return ctx.decide(d == 1, "broadcast");
    };
    if (is_one(da)) {
      slot = db;
    } else if (is_one(db)) {
      slot = da;
    } else {
      const size_t dim = rank - 1 - k;
      ctx.require_equal(da, db, "broadcast",
                        "cannot broadcast " + shape_str(a) + " with " + shape_str(b) + " at dim " +
                            std::to_string(dim) + " (" + ctx.simplify(da).str() +
                            " != " + ctx.simplify(db).str() + ")");
      slot = da;
    }
  }
  for (Expr& e : out) e = ctx.simplify(e);
  return out;
}

std::vector<size_t> reduction_dims(const OpContext& ctx, size_t rank) {
  return validate::reduction_dims(ctx, rank);
}

std::vector<Expr> reduce_shape(const std::vector<Expr>& sizes, const std::vector<size_t>& dims,
                               bool keepdim) {
  std::vector<Expr> out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    bool reduced = std::binary_search(dims.begin(), dims.end(), i);
    if (!reduced) {
      out.push_back(sizes[i]);
    } else if (keepdim) {
      out.push_back(Expr(1));
    }
  }
  return out;
}

// The in-place form of a rule (`aten.add_`): the result is written into self, so it must have
// self's shape (self is never broadcast) and a dtype castable to self's; it is self.
ShapeRule in_place(ShapeRule functional) {
  return [functional](OpContext& ctx) {
    // What the op writes into is its first argument (self, as in-place ops name it).
    TensorMeta self = ctx.tensor(ctx.schema().params.at(0).name);
    Value out = functional(ctx);
    if (!out.is_tensor())
      ctx.fail("an in-place op must produce a tensor like self, got " + out.str());
    validate::in_place_result(ctx, self, out.tensor);
    return Value::of(self);
  };
}

DType to_floating(DType d) { return is_floating(d) || is_complex(d) ? d : DType::Float32; }

void require(const OpContext& ctx, const Cond& cond, std::string_view rule,
             const std::string& message) {
  require(ctx, cond, rule, [&] { return message; });
}

void require(const OpContext& ctx, const Cond& cond, std::string_view rule,
             const std::function<std::string()>& message) {
  Truth t = ctx.known(cond);
  if (t == Truth::True) return;
  if (t == Truth::False) ctx.fail(message());
  if (ctx.is_data_dependent(cond)) {
    ctx.assert_runtime(cond, rule);
    return;
  }
  // A guessed hint gives way to what the model requires (before the guess is recorded as a guard).
  if (ctx.env().options().hints_are_guesses) ctx.env().move_hint_to_satisfy(cond);
  // Said before deciding: the guard that a failure records would make cond false everywhere.
  const std::string why = at_the_hints(ctx, cond);
  if (!ctx.decide(cond, rule)) ctx.fail(message() + why);
}

std::string at_the_hints(const OpContext& ctx, const Cond& cond) {
  ShapeEnv& env = ctx.env();
  const Cond substituted = env.substitute(cond);
  const std::vector<std::string> names = substituted.free_symbols();
  Bindings hints;
  for (const std::string& name : names) {
    std::optional<Int> hint = env.size_hint(Expr::symbol(name));
    if (!hint) return "";
    hints[name] = *hint;
  }
  try {
    if (names.empty() || evaluate(substituted, hints)) return "";  // it holds: nothing to say
  } catch (const Error&) {
    return "";
  }
  std::string values;
  for (const auto& [name, v] : hints)
    values += (values.empty() ? "" : ", ") + name + " = " + to_string(v);
  const bool guessed = env.options().hints_are_guesses;
  return std::string(guessed ? " at the guessed sizes " : " at the example sizes ") + values +
         " (the op needs " + env.simplify(cond).str() + ")";
}

size_t output_count(const OpContext& ctx, const Int& n, std::string_view op) {
  if (n < 0 || n > Int(static_cast<long>(kMaxOutputs))) {
    ctx.bad_input(std::string(op) + " would return " + to_string(n) + " tensors (at most " +
                  std::to_string(kMaxOutputs) + " are supported)");
  }
  return static_cast<size_t>(cln::cl_I_to_long(n));
}

std::vector<bool> output_mask(const OpContext& ctx, size_t count) {
  std::vector<bool> mask(count, true);
  Value v = ctx.value("output_mask");
  if (v.kind == Value::Kind::None) return mask;
  const std::string message = "output_mask must be a list of " + std::to_string(count) + " bools";
  if (v.kind != Value::Kind::List || v.items.size() != count) ctx.bad_input(message);
  for (size_t i = 0; i < count; ++i) {
    const Value& item = v.items[i];
    if (item.kind != Value::Kind::Bool || !item.truth) ctx.bad_input(message);
    mask[i] = *item.truth;
  }
  return mask;
}

}  // namespace symshape::ops
