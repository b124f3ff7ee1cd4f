// ONNX's shape, layout and indexing operators, with shape arithmetic: Shape and Size produce
// known elements, which Gather, Slice, Concat, Unsqueeze, Squeeze, Split, Cast, Expand, Tile,
// Range and friends carry, so that a Reshape / Expand / ConstantOfShape whose target was computed
// from Shape(x) gets exact symbolic sizes. A target computed from data gets unbacked sizes.
#include <algorithm>
#include <cstdlib>
#include <limits>

#include "symshape/onnx/rules.h"
#include "symshape/ops/families.h"

namespace symshape::onnx {

namespace {

// Known elements are kept up to this many (a shape, a small index list).
constexpr int64_t kMaxKnown = 4096;
// A shape input (Reshape's, Expand's, Slice's starts) longer than this is refused.
constexpr int64_t kMaxRank = 1024;

Expr product(const std::vector<Expr>& sizes) {
  Expr p(1);
  for (const Expr& e : sizes) p *= e;
  return p;
}

std::string str(int64_t v) { return std::to_string(v); }
std::string str(size_t v) { return std::to_string(v); }

// Fresh data-dependent sizes for a target the graph computes from data.
std::vector<Expr> unbacked_sizes(Op& op, size_t rank) {
  std::vector<Expr> out;
  for (size_t k = 0; k < rank; ++k) out.push_back(op.ctx().new_unbacked_size());
  return out;
}

// A 1-D shape input's length, which must be a constant.
size_t shape_length(Op& op, size_t i, std::string_view what) {
  const TensorMeta t = op.tensor(i);
  if (t.rank() != 1) op.bad_input(std::string(what) + " must be 1-D, got " + t.str());
  std::optional<int64_t> n = op.ctx().simplify(t.sizes[0]).as_int64();
  if (!n) op.bad_input(std::string(what) + " must have a constant length, got " + t.str());
  // It names one entry per dim: no tensor has this many (and the rule would build them all).
  if (*n < 0 || *n > kMaxRank) {
    op.bad_input(std::string(what) + " has " + str(*n) + " entries, more than any rank (" +
                 str(kMaxRank) + ")");
  }
  return static_cast<size_t>(*n);
}

// The known elements of input i, when it has them and they match its (constant) element count.
std::optional<std::vector<Expr>> known_elements(Op& op, size_t i) {
  std::optional<std::vector<Expr>> e = op.ints(i);
  if (!e) return std::nullopt;
  std::optional<std::vector<int64_t>> sizes = constant_sizes(op, op.tensor(i).sizes);
  if (!sizes) return std::nullopt;
  if (std::count(sizes->begin(), sizes->end(), 0) > 0) {
    return e->empty() ? e : std::nullopt;
  }
  size_t n = 1;
  for (int64_t s : *sizes) {
    if (s < 0) return std::nullopt;
    n *= static_cast<size_t>(s);
    if (n > e->size()) return std::nullopt;
  }
  if (n != e->size()) return std::nullopt;
  return e;
}

// A value with input 0's known elements kept (a view that does not reorder them).
Value keep_data(Op& op, DType dtype, std::vector<Expr> sizes) {
  Value out = tensor_value(dtype, std::move(sizes));
  if (Value in = op.input(0); in.is_tensor() && in.data) out.data = in.data;
  return out;
}

// The op's results: a list when the node has several outputs, else the one value.
Value results(Op& op, std::vector<Value> items) {
  const auto& extra = op.node().extra;
  if (extra.is_object() && extra.contains("outputs")) return Value::list(std::move(items));
  if (items.size() != 1) op.bad_input("expected one output, the rule made " + str(items.size()));
  return items[0];
}

// The value of a scalar (or one-element) int input: its known element, or nullopt.
std::optional<Expr> scalar_int(Op& op, size_t i) {
  std::optional<std::vector<Expr>> e = op.ints(i);
  if (!e || e->size() != 1) return std::nullopt;
  return op.ctx().simplify((*e)[0]);
}

// Whether cond holds: statically when the env knows, else decided on the hints with a guard.
bool decide(Op& op, const Cond& cond, std::string_view rule) {
  switch (op.ctx().known(cond)) {
    case Truth::True: return true;
    case Truth::False: return false;
    case Truth::Unknown: break;
  }
  return op.ctx().decide(cond, rule);
}

// max(a, b) and min(a, b) of sizes, decided (a guard when not static) so that the result is one
// of them rather than a max / min expression.
Expr decided_max(Op& op, const Expr& a, const Expr& b, std::string_view rule) {
  Expr x = op.ctx().simplify(a), y = op.ctx().simplify(b);
  return decide(op, x >= y, rule) ? x : y;
}
Expr decided_min(Op& op, const Expr& a, const Expr& b, std::string_view rule) {
  Expr x = op.ctx().simplify(a), y = op.ctx().simplify(b);
  return decide(op, x <= y, rule) ? x : y;
}

Value shape_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  const auto rank = static_cast<int64_t>(x.rank());
  auto clamp = [&](int64_t v) {
    if (v < 0) v += rank;
    return std::clamp<int64_t>(v, 0, rank);
  };
  const int64_t start = clamp(op.attr_int("start", 0));
  const int64_t end = clamp(op.attr_int("end", rank));
  std::vector<Expr> sizes;
  for (int64_t d = start; d < end; ++d) sizes.push_back(x.sizes[static_cast<size_t>(d)]);
  return int_tensor(DType::Int64, std::move(sizes));
}

Value gather_rule(Op& op) {
  const TensorMeta data = op.tensor(0), indices = op.tensor(1);
  if (data.rank() == 0) op.bad_input("data must have rank >= 1");
  if (!is_integral(indices.dtype)) op.bad_input("indices must be int32 or int64");
  const size_t axis = op.axis(op.attr_int("axis", 0), data.rank());
  std::vector<Expr> sizes(data.sizes.begin(), data.sizes.begin() + static_cast<long>(axis));
  sizes.insert(sizes.end(), indices.sizes.begin(), indices.sizes.end());
  sizes.insert(sizes.end(), data.sizes.begin() + static_cast<long>(axis) + 1, data.sizes.end());
  Value out = tensor_value(data.dtype, sizes);
  // Known elements: gathering from a known tensor (a shape) with constant indices.
  std::optional<std::vector<Expr>> known = known_elements(op, 0);
  std::optional<std::vector<int64_t>> index = op.constants(1);
  std::optional<std::vector<int64_t>> dims = constant_sizes(op, data.sizes);
  if (!known || known->empty() || !index || !dims) return out;
  const int64_t n = (*dims)[axis];
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= (*dims)[d];
  for (size_t d = axis + 1; d < dims->size(); ++d) inner *= (*dims)[d];
  if (outer * static_cast<int64_t>(index->size()) * inner > kMaxKnown) return out;
  std::vector<Expr> picked;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i : *index) {
      if (i < -n || i >= n) {
        op.bad_input("index " + str(i) + " is out of range for a dim of " + str(n) + " elements");
      }
      const int64_t row = i < 0 ? i + n : i;
      for (int64_t k = 0; k < inner; ++k) {
        picked.push_back((*known)[static_cast<size_t>((o * n + row) * inner + k)]);
      }
    }
  }
  return int_tensor(data.dtype, out.tensor.sizes, std::move(picked));
}

Value concat_rule(Op& op) {
  if (op.num_inputs() == 0) op.bad_input("needs at least one input");
  const TensorMeta first = op.tensor(0);
  if (!op.has_attr("axis")) op.bad_input("attribute 'axis' is required");
  const size_t axis = op.axis(op.attr_int("axis", 0), first.rank());
  std::vector<Expr> sizes = first.sizes;
  bool known = first.rank() == 1;
  std::vector<Expr> elements;
  for (size_t i = 0; i < op.num_inputs(); ++i) {
    const TensorMeta t = op.tensor(i);
    if (t.dtype != first.dtype) op.bad_input("inputs have different element types");
    if (t.rank() != first.rank()) {
      op.fail("input " + str(i) + " has rank " + str(t.rank()) + ", input 0 has rank " +
              str(first.rank()));
    }
    for (size_t d = 0; d < t.rank(); ++d) {
      if (d == axis) continue;
      op.ctx().require_equal(t.sizes[d], first.sizes[d], "concat", [&] {
        return "input " + str(i) + " has size " + t.sizes[d].str() + " in dim " + str(d) +
               ", input 0 has " + first.sizes[d].str();
      });
    }
    if (i > 0) sizes[axis] = sizes[axis] + t.sizes[axis];
    std::optional<std::vector<Expr>> e = known ? known_elements(op, i) : std::nullopt;
    if (e) {
      elements.insert(elements.end(), e->begin(), e->end());
    } else {
      known = false;
    }
  }
  sizes[axis] = op.ctx().simplify(sizes[axis]);
  if (known) return int_tensor(first.dtype, sizes, std::move(elements));
  return tensor_value(first.dtype, sizes);
}

// The axes of Unsqueeze / Squeeze: an attribute before opset 13, an input after.
std::optional<std::vector<int64_t>> axes_of(Op& op, size_t input) {
  if (op.has_attr("axes")) return op.attr_ints("axes");
  if (!op.has_input(input)) return std::nullopt;
  std::optional<std::vector<int64_t>> axes = op.constants(input);
  if (!axes) op.bad_input("axes must be a constant (they decide the output's rank)");
  return axes;
}

Value unsqueeze_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  std::optional<std::vector<int64_t>> axes = axes_of(op, 1);
  if (!axes) op.bad_input("needs axes");
  const size_t rank = x.rank() + axes->size();
  std::vector<bool> inserted(rank, false);
  for (int64_t a : *axes) {
    const size_t d = op.axis(a, rank, "axes entry");
    if (inserted[d]) op.bad_input("axes name dim " + str(d) + " twice");
    inserted[d] = true;
  }
  std::vector<Expr> sizes;
  size_t next = 0;
  for (size_t d = 0; d < rank; ++d) sizes.push_back(inserted[d] ? Expr(1) : x.sizes[next++]);
  return keep_data(op, x.dtype, sizes);
}

Value squeeze_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  std::optional<std::vector<int64_t>> axes = axes_of(op, 1);
  std::vector<bool> drop(x.rank(), false);
  if (axes) {
    for (int64_t a : *axes) {
      const size_t d = op.axis(a, x.rank(), "axes entry");
      if (drop[d]) op.bad_input("axes name dim " + str(d) + " twice");
      drop[d] = true;
      op.ctx().require_equal(x.sizes[d], Expr(1), "squeeze", [&] {
        return "cannot squeeze dim " + str(d) + " of " + x.str() + ": its size is not 1";
      });
    }
  } else {
    // Every dim of size 1: symbolic dims are decided (a guard when the env cannot tell).
    for (size_t d = 0; d < x.rank(); ++d) drop[d] = decide(op, x.sizes[d] == Expr(1), "squeeze");
  }
  std::vector<Expr> sizes;
  for (size_t d = 0; d < x.rank(); ++d) {
    if (!drop[d]) sizes.push_back(x.sizes[d]);
  }
  return keep_data(op, x.dtype, sizes);
}

Value cast_to(Op& op, DType to) {
  const Value in = op.input(0);
  if (!in.is_tensor()) op.bad_input("input is not a tensor");
  Value out = tensor_value(to, in.tensor.sizes);
  if (!in.data) return out;
  auto data = std::make_shared<KnownData>();
  if (!in.data->real) {
    if (to == DType::Bool) {
      // x != 0, when the env knows it for every element.
      for (const Expr& e : in.data->ints) {
        const Truth t = op.ctx().known(e != Expr(0));
        if (t == Truth::Unknown) return out;
        data->ints.emplace_back(t == Truth::True ? 1 : 0);
      }
    } else if (is_integral(to)) {
      // Integers stay exact through an integral cast (int32 <-> int64 of a shape).
      out.data = in.data;
      return out;
    } else if (std::optional<std::vector<double>> r = op.reals(0)) {
      data->real = true;
      data->reals = std::move(*r);
    } else {
      return out;
    }
  } else if (is_floating(to)) {
    out.data = in.data;
    return out;
  } else if (is_integral(to) || to == DType::Bool) {
    // Truncation toward zero, as a float-to-int cast does.
    for (double v : in.data->reals) {
      if (!(std::abs(v) < 9.0e15)) return out;
      const auto i = static_cast<long long>(v);
      data->ints.emplace_back(to == DType::Bool ? (v != 0.0 ? 1LL : 0LL) : i);
    }
  } else {
    return out;
  }
  out.data = std::move(data);
  return out;
}

Value cast_rule(Op& op) {
  std::optional<int64_t> to = op.optional_attr_int("to");
  if (!to) op.bad_input("attribute 'to' is required");
  std::optional<DType> d = dtype_of_elem_type(static_cast<int>(*to));
  if (!d) op.bad_input("cannot cast to element type " + str(*to));
  return cast_to(op, *d);
}

Value reshape_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  const size_t rank = shape_length(op, 1, "shape");
  std::optional<std::vector<Expr>> target = op.ints(1);
  if (target && target->size() != rank) target.reset();
  if (!target) {
    // A target computed from data: sizes nobody knows, with the element count they must keep.
    std::vector<Expr> sizes = unbacked_sizes(op, rank);
    op.ctx().assert_runtime(Cond::rel(RelOp::Eq, product(sizes), x.numel()), "reshape");
    return tensor_value(x.dtype, sizes);
  }
  const bool allowzero = op.attr_int("allowzero", 0) != 0;
  std::vector<Expr> sizes;
  std::optional<size_t> inferred;
  for (size_t d = 0; d < target->size(); ++d) {
    const Expr e = op.ctx().simplify((*target)[d]);
    std::optional<int64_t> c = e.as_int64();
    if (c && *c == -1) {
      if (inferred) op.bad_input("shape has more than one -1");
      inferred = d;
      sizes.emplace_back(1);
    } else if (c && *c == 0 && !allowzero) {
      if (d >= x.rank()) {
        op.bad_input("shape[" + str(d) + "] is 0 (copy the input's dim) but the input has rank " +
                     str(x.rank()));
      }
      sizes.push_back(x.sizes[d]);
    } else if (c && *c < 0) {
      op.bad_input("shape[" + str(d) + "] is " + str(*c));
    } else {
      sizes.push_back(e);
    }
  }
  const Expr numel = x.numel();
  if (inferred) {
    const Expr rest = op.ctx().simplify(product(sizes));
    if (std::optional<int64_t> c = rest.as_int64(); c && *c == 0) {
      op.bad_input("shape " + ops::shape_str(*target) +
                   " has a -1 and a 0-sized dim: the -1 cannot be inferred");
    }
    op.ctx().require_equal(mod(numel, rest), Expr(0), "reshape", [&] {
      return "cannot reshape " + x.str() + " into " + ops::shape_str(*target) + ": " + numel.str() +
             " elements are not a multiple of " + rest.str();
    });
    sizes[*inferred] = op.ctx().simplify(floordiv(numel, rest));
  } else {
    op.ctx().require_equal(op.ctx().simplify(product(sizes)), numel, "reshape", [&] {
      return "cannot reshape " + x.str() + " into " + ops::shape_str(sizes) +
             ": the element counts differ";
    });
  }
  return keep_data(op, x.dtype, sizes);
}

// ---- Slice ----

// A Slice start or end clamped as ONNX defines it: negative values count from the end (dim is
// added), then the index is clamped into [lo, hi]. A huge value (INT64_MAX, "to the end") clamps
// without arithmetic on it. Symbolic comparisons are decided through the env.
Expr clamp_slice_index(Op& op, const Expr& index, const Expr& dim, const Expr& lo, const Expr& hi,
                       std::string_view rule) {
  const Expr i = op.ctx().simplify(index);
  constexpr int64_t huge = std::numeric_limits<int64_t>::max() / 2;
  if (std::optional<int64_t> c = i.as_int64()) {
    if (*c >= huge) return op.ctx().simplify(hi);
    if (*c <= -huge) return op.ctx().simplify(lo);
  }
  if (decide(op, i < Expr(0), rule)) return decided_max(op, i + dim, lo, rule);
  return decided_min(op, i, hi, rule);
}

Value slice_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  const size_t rank = x.rank();
  std::optional<std::vector<Expr>> starts, ends;
  std::optional<std::vector<int64_t>> axes, steps;
  size_t count = 0;
  if (op.opset() < 10) {
    std::optional<std::vector<int64_t>> s = op.optional_attr_ints("starts");
    std::optional<std::vector<int64_t>> e = op.optional_attr_ints("ends");
    if (!s || !e) op.bad_input("attributes 'starts' and 'ends' are required before opset 10");
    starts.emplace();
    ends.emplace();
    for (int64_t v : *s) starts->emplace_back(static_cast<long long>(v));
    for (int64_t v : *e) ends->emplace_back(static_cast<long long>(v));
    count = starts->size();
    if (ends->size() != count) {
      op.bad_input("starts has " + str(count) + " entries, ends has " + str(ends->size()));
    }
    axes = op.optional_attr_ints("axes");
  } else {
    count = shape_length(op, 1, "starts");
    if (shape_length(op, 2, "ends") != count) {
      op.bad_input("starts and ends have different lengths");
    }
    starts = op.ints(1);
    ends = op.ints(2);
    if (starts && starts->size() != count) starts.reset();
    if (ends && ends->size() != count) ends.reset();
    if (op.has_input(3)) {
      axes = op.constants(3);
      if (!axes) op.bad_input("axes must be a constant (they decide which dims change)");
    }
    if (op.has_input(4)) {
      steps = op.constants(4);
      if (!steps) op.bad_input("steps must be a constant");
    }
  }
  if (count > rank) {
    op.bad_input("starts has " + str(count) + " entries for an input of rank " + str(rank));
  }
  if (!axes) {
    axes.emplace();
    for (size_t k = 0; k < count; ++k) axes->push_back(static_cast<int64_t>(k));
  }
  if (!steps) steps = std::vector<int64_t>(count, 1);
  if (axes->size() != count) {
    op.bad_input("axes has " + str(axes->size()) + " entries, starts has " + str(count));
  }
  if (steps->size() != count) {
    op.bad_input("steps has " + str(steps->size()) + " entries, starts has " + str(count));
  }
  std::vector<Expr> sizes = x.sizes;
  std::vector<Expr> first(rank, Expr(0));
  std::vector<int64_t> step_of(rank, 1);
  std::vector<bool> seen(rank, false);
  for (size_t k = 0; k < count; ++k) {
    const size_t d = op.axis((*axes)[k], rank, "axes entry");
    if (seen[d]) op.bad_input("axes name dim " + str(d) + " twice");
    seen[d] = true;
    const int64_t step = (*steps)[k];
    if (step == 0) op.bad_input("steps[" + str(k) + "] is 0");
    step_of[d] = step;
    const Expr& dim = x.sizes[d];
    if (!starts || !ends) {
      // Bounds computed from data: a size nobody knows, at most the dim's.
      const Expr u = op.ctx().new_unbacked_size();
      op.ctx().assert_runtime(u <= dim, "slice");
      sizes[d] = u;
      continue;
    }
    Expr start, end, len;
    if (step > 0) {
      start = clamp_slice_index(op, (*starts)[k], dim, Expr(0), dim, "slice_start");
      end = clamp_slice_index(op, (*ends)[k], dim, Expr(0), dim, "slice_end");
      len = ceildiv(end - start, Expr(static_cast<long long>(step)));
    } else {
      start = clamp_slice_index(op, (*starts)[k], dim, Expr(0), dim - 1, "slice_start");
      end = clamp_slice_index(op, (*ends)[k], dim, Expr(-1), dim - 1, "slice_end");
      len = ceildiv(start - end, Expr(static_cast<long long>(-step)));
    }
    first[d] = start;
    sizes[d] = decided_max(op, len, Expr(0), "slice_size");
  }
  Value out = tensor_value(x.dtype, sizes);
  // Known elements: slicing a known 1-D tensor (a shape) with constant bounds.
  std::optional<std::vector<Expr>> known = rank == 1 ? known_elements(op, 0) : std::nullopt;
  if (!known) return out;
  std::optional<int64_t> begin = op.ctx().simplify(first[0]).as_int64();
  std::optional<int64_t> n = op.ctx().simplify(sizes[0]).as_int64();
  if (!begin || !n) return out;
  std::vector<Expr> picked;
  for (int64_t j = 0; j < *n; ++j) {
    const int64_t at = *begin + j * step_of[0];
    if (at < 0 || at >= static_cast<int64_t>(known->size())) return out;
    picked.push_back((*known)[static_cast<size_t>(at)]);
  }
  return int_tensor(x.dtype, sizes, std::move(picked));
}

// ---- Split ----

Value split_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  if (x.rank() == 0) op.bad_input("cannot split a scalar");
  const size_t axis = op.axis(op.attr_int("axis", 0), x.rank());
  const Expr& dim = x.sizes[axis];
  const size_t outputs = op.num_outputs();
  std::optional<std::vector<Expr>> parts;
  if (op.has_attr("split")) {
    parts.emplace();
    for (int64_t v : op.attr_ints("split")) parts->emplace_back(static_cast<long long>(v));
  } else if (op.has_input(1)) {
    const size_t n = shape_length(op, 1, "split");
    parts = op.ints(1);
    if (!parts || parts->size() != n) {
      // Sizes computed from data: unknown, summing to the dim.
      parts = unbacked_sizes(op, n);
      op.ctx().assert_runtime(Cond::rel(
                                  RelOp::Eq,
                                  [&] {
                                    Expr s(0);
                                    for (const Expr& e : *parts) s += e;
                                    return s;
                                  }(),
                                  dim),
                              "split");
    }
  }
  if (parts) {
    if (parts->size() != outputs) {
      op.bad_input("split has " + str(parts->size()) + " sizes for " + str(outputs) + " outputs");
    }
    Expr sum(0);
    for (size_t k = 0; k < parts->size(); ++k) {
      (*parts)[k] = op.ctx().simplify((*parts)[k]);
      if (op.ctx().known((*parts)[k] >= Expr(0)) == Truth::False) {
        op.bad_input("split[" + str(k) + "] is negative: " + (*parts)[k].str());
      }
      sum += (*parts)[k];
    }
    op.ctx().require_equal(op.ctx().simplify(sum), dim, "split", [&] {
      return "split sizes " + ops::shape_str(*parts) + " do not add up to dim " + str(axis) +
             " of " + x.str();
    });
  } else {
    parts.emplace();
    if (std::optional<int64_t> n = op.optional_attr_int("num_outputs")) {
      // Opset 18: chunks of ceil(dim / n), the last one smaller when it does not divide.
      if (*n < 1 || static_cast<size_t>(*n) != outputs) {
        op.bad_input("num_outputs is " + str(*n) + " but the node has " + str(outputs) +
                     " outputs");
      }
      const Expr chunk = op.ctx().simplify(ceildiv(dim, Expr(static_cast<long long>(*n))));
      const Expr last = op.ctx().simplify(dim - chunk * Expr(static_cast<long long>(*n - 1)));
      ops::require(op.ctx(), last > Expr(0), "split", [&] {
        return "cannot split dim " + str(axis) + " of " + x.str() + " into " + str(*n) +
               " chunks of " + chunk.str();
      });
      for (int64_t k = 0; k + 1 < *n; ++k) parts->push_back(chunk);
      parts->push_back(last);
    } else {
      const Expr parts_n(static_cast<long long>(outputs));
      op.ctx().require_equal(op.ctx().simplify(mod(dim, parts_n)), Expr(0), "split", [&] {
        return "cannot split dim " + str(axis) + " of " + x.str() + " into " + str(outputs) +
               " equal parts";
      });
      const Expr chunk = op.ctx().simplify(floordiv(dim, parts_n));
      for (size_t k = 0; k < outputs; ++k) parts->push_back(chunk);
    }
  }
  std::optional<std::vector<Expr>> known = x.rank() == 1 ? known_elements(op, 0) : std::nullopt;
  std::vector<Value> items;
  int64_t offset = 0;
  for (const Expr& p : *parts) {
    std::vector<Expr> sizes = x.sizes;
    sizes[axis] = p;
    std::optional<int64_t> c = p.as_int64();
    if (known && c && offset >= 0 && offset + *c <= static_cast<int64_t>(known->size())) {
      items.push_back(
          int_tensor(x.dtype, sizes,
                     std::vector<Expr>(known->begin() + offset, known->begin() + offset + *c)));
      offset += *c;
    } else {
      offset = -1;
      items.push_back(tensor_value(x.dtype, sizes));
    }
  }
  return results(op, std::move(items));
}

// ---- layout ----

Value flatten_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  const auto rank = static_cast<int64_t>(x.rank());
  int64_t axis = op.attr_int("axis", 1);
  if (axis < -rank || axis > rank) {
    op.bad_input("axis " + str(axis) + " is out of range for rank " + str(rank) + " (expected [" +
                 str(-rank) + ", " + str(rank) + "])");
  }
  if (axis < 0) axis += rank;
  const auto mid = x.sizes.begin() + static_cast<long>(axis);
  const Expr outer = op.ctx().simplify(product(std::vector<Expr>(x.sizes.begin(), mid)));
  const Expr inner = op.ctx().simplify(product(std::vector<Expr>(mid, x.sizes.end())));
  return keep_data(op, x.dtype, {outer, inner});
}

Value transpose_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  const size_t rank = x.rank();
  std::vector<int64_t> perm = op.attr_ints("perm");
  if (!op.has_attr("perm")) {
    for (size_t d = rank; d-- > 0;) perm.push_back(static_cast<int64_t>(d));
  }
  if (perm.size() != rank) {
    op.bad_input("perm has " + str(perm.size()) + " entries for rank " + str(rank));
  }
  std::vector<bool> used(rank, false);
  std::vector<Expr> sizes;
  for (int64_t p : perm) {
    const size_t d = op.axis(p, rank, "perm entry");
    if (used[d]) op.bad_input("perm names dim " + str(d) + " twice");
    used[d] = true;
    sizes.push_back(x.sizes[d]);
  }
  Value out = tensor_value(x.dtype, sizes);
  if (rank <= 1) {
    if (Value in = op.input(0); in.data) out.data = in.data;
  }
  return out;
}

// Input 0's known elements broadcast into out_sizes (all constant), or nullopt.
std::optional<std::vector<Expr>> broadcast_known(Op& op, size_t i,
                                                 const std::vector<Expr>& out_sizes) {
  std::optional<std::vector<Expr>> known = known_elements(op, i);
  std::optional<std::vector<int64_t>> shape = constant_sizes(op, out_sizes);
  if (!known || !shape) return std::nullopt;
  int64_t n = 1;
  for (int64_t s : *shape) {
    if (s < 0 || s > kMaxKnown) return std::nullopt;
    n *= s;
    if (n > kMaxKnown) return std::nullopt;
  }
  std::vector<Expr> zeros(static_cast<size_t>(n), Expr(0)), sizes;
  std::vector<Expr> in_sizes = op.tensor(i).sizes;
  for (Expr& e : in_sizes) e = op.ctx().simplify(e);
  return broadcast_elements(
      *known, in_sizes, zeros, out_sizes, [](const Expr& a, const Expr&) { return a; }, &sizes);
}

Value expand_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  const size_t rank = shape_length(op, 1, "shape");
  std::optional<std::vector<Expr>> target = op.ints(1);
  if (!target || target->size() != rank) {
    // A target computed from data: an input dim that is not 1 stays (the target can only
    // repeat it or name it again); elsewhere the size is unknown.
    const size_t out_rank = std::max(rank, x.rank());
    std::vector<Expr> sizes;
    for (size_t d = 0; d < out_rank; ++d) {
      const bool in_x = d + x.rank() >= out_rank;
      const Expr dim = in_x ? x.sizes[d + x.rank() - out_rank] : Expr(1);
      const bool reached = d + rank >= out_rank;
      if (!reached || (in_x && op.ctx().known(dim != Expr(1)) == Truth::True)) {
        sizes.push_back(dim);
      } else {
        sizes.push_back(op.ctx().new_unbacked_size());
      }
    }
    return tensor_value(x.dtype, sizes);
  }
  for (Expr& e : *target) e = op.ctx().simplify(e);
  std::vector<Expr> sizes = ops::broadcast_shapes(op.ctx(), x.sizes, *target);
  for (Expr& e : sizes) e = op.ctx().simplify(e);
  Value out = tensor_value(x.dtype, sizes);
  if (std::optional<std::vector<Expr>> e = broadcast_known(op, 0, sizes)) {
    return int_tensor(x.dtype, sizes, std::move(*e));
  }
  return out;
}

Value tile_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  const size_t n = shape_length(op, 1, "repeats");
  if (n != x.rank()) {
    op.bad_input("repeats has " + str(n) + " entries for an input of rank " + str(x.rank()));
  }
  std::optional<std::vector<Expr>> repeats = op.ints(1);
  if (!repeats || repeats->size() != n) return tensor_value(x.dtype, unbacked_sizes(op, n));
  std::vector<Expr> sizes;
  for (size_t d = 0; d < n; ++d) {
    const Expr r = op.ctx().simplify((*repeats)[d]);
    if (op.ctx().known(r >= Expr(0)) == Truth::False) {
      op.bad_input("repeats[" + str(d) + "] is negative: " + r.str());
    }
    sizes.push_back(op.ctx().simplify(x.sizes[d] * r));
  }
  Value out = tensor_value(x.dtype, sizes);
  std::optional<std::vector<Expr>> known = n == 1 ? known_elements(op, 0) : std::nullopt;
  std::optional<int64_t> times =
      n == 1 ? op.ctx().simplify((*repeats)[0]).as_int64() : std::nullopt;
  if (!known || !times || *times < 0 || *times > kMaxKnown ||
      static_cast<int64_t>(known->size()) * *times > kMaxKnown) {
    return out;
  }
  std::vector<Expr> elements;
  for (int64_t t = 0; t < *times; ++t)
    elements.insert(elements.end(), known->begin(), known->end());
  return int_tensor(x.dtype, sizes, std::move(elements));
}

// ---- creation ----

Value constant_of_shape_rule(Op& op) {
  const size_t rank = shape_length(op, 0, "shape");
  DType dtype = DType::Float32;
  std::optional<Expr> fill = Expr(0);
  if (std::optional<Value> value = op.attr_tensor("value")) {
    if (!value->is_tensor()) op.bad_input("attribute 'value' is not a tensor");
    dtype = value->tensor.dtype;
    fill.reset();
    if (value->data && !value->data->real && value->data->ints.size() == 1) {
      fill = value->data->ints[0];
    }
  }
  std::optional<std::vector<Expr>> target = op.ints(0);
  if (!target || target->size() != rank) return tensor_value(dtype, unbacked_sizes(op, rank));
  std::vector<Expr> sizes;
  for (size_t d = 0; d < rank; ++d) {
    const Expr s = op.ctx().simplify((*target)[d]);
    if (op.ctx().known(s >= Expr(0)) == Truth::False) {
      op.bad_input("shape[" + str(d) + "] is negative: " + s.str());
    }
    sizes.push_back(s);
  }
  Value out = tensor_value(dtype, sizes);
  std::optional<int64_t> n = op.ctx().simplify(product(sizes)).as_int64();
  if (fill && !is_floating(dtype) && n && *n >= 0 && *n <= kMaxKnown) {
    return int_tensor(dtype, sizes, std::vector<Expr>(static_cast<size_t>(*n), *fill));
  }
  return out;
}

Value range_rule(Op& op) {
  const TensorMeta start = op.tensor(0), limit = op.tensor(1), delta = op.tensor(2);
  for (const TensorMeta* t : {&start, &limit, &delta}) {
    if (t->rank() != 0 && !(t->rank() == 1 && op.ctx().simplify(t->sizes[0]).as_int64() == 1)) {
      op.bad_input("start, limit and delta must be scalars, got " + t->str());
    }
  }
  if (limit.dtype != start.dtype || delta.dtype != start.dtype) {
    op.bad_input("start, limit and delta have different element types");
  }
  const DType dtype = start.dtype;
  if (is_floating(dtype)) {
    std::optional<std::vector<double>> a = op.reals(0), b = op.reals(1), c = op.reals(2);
    if (a && b && c && a->size() == 1 && b->size() == 1 && c->size() == 1) {
      if ((*c)[0] == 0) op.bad_input("delta is 0");
      const double n = std::ceil(((*b)[0] - (*a)[0]) / (*c)[0]);
      if (n < 9.0e15) {
        return tensor_value(dtype, {Expr(static_cast<long long>(std::max(n, 0.0)))});
      }
    }
    return tensor_value(dtype, {op.ctx().new_unbacked_size()});
  }
  std::optional<Expr> a = scalar_int(op, 0), b = scalar_int(op, 1), c = scalar_int(op, 2);
  if (!a || !b || !c) return tensor_value(dtype, {op.ctx().new_unbacked_size()});
  Expr n;
  if (c->as_int64() == 0) op.bad_input("delta is 0");
  if (decide(op, *c > Expr(0), "range_delta")) {
    n = ceildiv(*b - *a, *c);
  } else {
    n = ceildiv(*a - *b, -*c);
  }
  const Expr size = decided_max(op, n, Expr(0), "range_size");
  std::optional<int64_t> count = size.as_int64();
  if (!count || *count > kMaxKnown) return tensor_value(dtype, {size});
  std::vector<Expr> elements;
  for (int64_t k = 0; k < *count; ++k) {
    elements.push_back(op.ctx().simplify(*a + *c * Expr(static_cast<long long>(k))));
  }
  return int_tensor(dtype, {size}, std::move(elements));
}

Value eye_like_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  if (x.rank() != 2) op.bad_input("input must be 2-D, got " + x.str());
  DType dtype = x.dtype;
  if (std::optional<int64_t> d = op.optional_attr_int("dtype")) {
    std::optional<DType> t = dtype_of_elem_type(static_cast<int>(*d));
    if (!t) op.bad_input("unsupported dtype " + str(*d));
    dtype = *t;
  }
  return tensor_value(dtype, x.sizes);
}

Value one_hot_rule(Op& op) {
  const TensorMeta indices = op.tensor(0), depth = op.tensor(1), values = op.tensor(2);
  if (values.rank() != 1) op.bad_input("values must be 1-D (off, on), got " + values.str());
  Expr n;
  if (std::optional<Expr> d = scalar_int(op, 1)) {
    n = *d;
  } else if (std::optional<std::vector<double>> r = op.reals(1); r && r->size() == 1) {
    n = Expr(static_cast<long long>((*r)[0]));
  } else {
    n = op.ctx().new_unbacked_size();
  }
  (void)depth;
  if (op.ctx().known(n >= Expr(1)) == Truth::False)
    op.bad_input("depth must be positive: " + n.str());
  const auto rank = static_cast<int64_t>(indices.rank());
  int64_t axis = op.attr_int("axis", -1);
  if (axis < -rank - 1 || axis > rank) {
    op.bad_input("axis " + str(axis) + " is out of range for an output of rank " + str(rank + 1));
  }
  if (axis < 0) axis += rank + 1;
  std::vector<Expr> sizes = indices.sizes;
  sizes.insert(sizes.begin() + axis, n);
  return tensor_value(values.dtype, sizes);
}

// ---- indexing ----

Value same_as_input(Op& op) { return tensor_value(op.tensor(0).dtype, op.tensor(0).sizes); }

Value gather_elements_rule(Op& op) {
  const TensorMeta data = op.tensor(0), indices = op.tensor(1);
  if (data.rank() == 0) op.bad_input("data must have rank >= 1");
  if (indices.rank() != data.rank()) {
    op.bad_input("indices has rank " + str(indices.rank()) + ", data has " + str(data.rank()));
  }
  op.axis(op.attr_int("axis", 0), data.rank());
  return tensor_value(data.dtype, indices.sizes);
}

Value gather_nd_rule(Op& op) {
  const TensorMeta data = op.tensor(0), indices = op.tensor(1);
  if (data.rank() == 0 || indices.rank() == 0) op.bad_input("data and indices need rank >= 1");
  const int64_t b = op.attr_int("batch_dims", 0);
  if (b < 0 || static_cast<size_t>(b) >= std::min(data.rank(), indices.rank())) {
    op.bad_input("batch_dims " + str(b) + " must be less than both ranks");
  }
  std::optional<int64_t> m = op.ctx().simplify(indices.sizes.back()).as_int64();
  if (!m) op.bad_input("the last dim of indices must be a constant, got " + indices.str());
  if (*m < 1 || static_cast<size_t>(b + *m) > data.rank()) {
    op.bad_input("indices tuples of " + str(*m) + " entries after " + str(b) +
                 " batch dims index past data's rank " + str(data.rank()));
  }
  for (size_t d = 0; d < static_cast<size_t>(b); ++d) {
    op.ctx().require_equal(indices.sizes[d], data.sizes[d], "gather_nd", [&] {
      return "batch dim " + str(d) + " differs: indices " + indices.str() + ", data " + data.str();
    });
  }
  std::vector<Expr> sizes(indices.sizes.begin(), indices.sizes.end() - 1);
  sizes.insert(sizes.end(), data.sizes.begin() + b + *m, data.sizes.end());
  return tensor_value(data.dtype, sizes);
}

Value scatter_rule(Op& op) {
  const TensorMeta data = op.tensor(0), indices = op.tensor(1), updates = op.tensor(2);
  if (indices.rank() != data.rank() || updates.rank() != data.rank()) {
    op.bad_input("data, indices and updates must have one rank: " + data.str() + ", " +
                 indices.str() + ", " + updates.str());
  }
  if (data.rank() > 0) op.axis(op.attr_int("axis", 0), data.rank());
  for (size_t d = 0; d < indices.rank(); ++d) {
    op.ctx().require_equal(indices.sizes[d], updates.sizes[d], "scatter", [&] {
      return "indices " + indices.str() + " and updates " + updates.str() + " differ in dim " +
             str(d);
    });
  }
  return tensor_value(data.dtype, data.sizes);
}

Value scatter_nd_rule(Op& op) {
  const TensorMeta data = op.tensor(0), indices = op.tensor(1), updates = op.tensor(2);
  if (indices.rank() == 0) op.bad_input("indices needs rank >= 1");
  std::optional<int64_t> m = op.ctx().simplify(indices.sizes.back()).as_int64();
  if (m && (*m < 1 || static_cast<size_t>(*m) > data.rank())) {
    op.bad_input("indices tuples of " + str(*m) + " entries for data of rank " + str(data.rank()));
  }
  if (m) {
    const size_t q = indices.rank();
    const size_t expected = q - 1 + data.rank() - static_cast<size_t>(*m);
    if (updates.rank() != expected) {
      op.bad_input("updates " + updates.str() + " must have rank " + str(expected));
    }
  }
  return tensor_value(data.dtype, data.sizes);
}

Value compress_rule(Op& op) {
  const TensorMeta x = op.tensor(0), cond = op.tensor(1);
  if (cond.rank() != 1) op.bad_input("condition must be 1-D, got " + cond.str());
  std::optional<std::vector<int64_t>> c = op.constants(1);
  std::optional<int64_t> axis_attr = op.optional_attr_int("axis");
  const Expr length = axis_attr ? x.sizes[op.axis(*axis_attr, x.rank())] : x.numel();
  Expr count;
  std::optional<int64_t> len = op.ctx().simplify(length).as_int64();
  if (c && len) {
    int64_t k = 0;
    for (size_t i = 0; i < c->size() && static_cast<int64_t>(i) < *len; ++i) k += (*c)[i] != 0;
    count = Expr(static_cast<long long>(k));
  } else {
    count = op.ctx().new_unbacked_size();
    op.ctx().assert_runtime(count <= length, "compress");
  }
  if (!axis_attr) return tensor_value(x.dtype, {count});
  std::vector<Expr> sizes = x.sizes;
  sizes[op.axis(*axis_attr, x.rank())] = count;
  return tensor_value(x.dtype, sizes);
}

}  // namespace

void add_shape_rules(OpRegistry& r) {
  add(r, "Shape", shape_rule);
  add(r, "Size", [](Op& op) { return int_tensor(DType::Int64, {}, {op.tensor(0).numel()}); });
  add(r, "Gather", gather_rule);
  add(r, "Concat", concat_rule);
  add(r, "Unsqueeze", unsqueeze_rule);
  add(r, "Squeeze", squeeze_rule);
  add(r, "Cast", cast_rule);
  add(r, "CastLike", [](Op& op) { return cast_to(op, op.tensor(1).dtype); });
  add(r, "Reshape", reshape_rule);
  add(r, "Slice", slice_rule);
  add(r, "Split", split_rule);
  add(r, "Flatten", flatten_rule);
  add(r, "Transpose", transpose_rule);
  add(r, "Expand", expand_rule);
  add(r, "Tile", tile_rule);
  add(r, "ConstantOfShape", constant_of_shape_rule);
  add(r, "Range", range_rule);
  add(r, "EyeLike", eye_like_rule);
  add(r, "OneHot", one_hot_rule);
  add(r, "GatherElements", gather_elements_rule);
  add(r, "GatherND", gather_nd_rule);
  add(r, "ScatterElements", scatter_rule);
  add(r, "Scatter", scatter_rule);
  add(r, "ScatterND", scatter_nd_rule);
  add(r, "Compress", compress_rule);
  for (const char* name : {"Trilu", "CumSum", "ReverseSequence"}) add(r, name, same_as_input);
}

}  // namespace symshape::onnx
