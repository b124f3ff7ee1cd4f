// ONNX's shape and layout operators, with shape arithmetic: Shape and Size produce known
// elements, which Gather, Concat, Unsqueeze, Cast and friends carry, so that a Reshape whose
// target was computed from Shape(x) gets exact symbolic sizes.
#include "symshape/onnx/rules.h"
#include "symshape/ops/families.h"

namespace symshape::onnx {

namespace {

Expr product(const std::vector<Expr>& sizes) {
  Expr p(1);
  for (const Expr& e : sizes) p *= e;
  return p;
}

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
  return static_cast<size_t>(*n);
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
  // Known elements: gathering from a 1-D known tensor (a shape) with constant indices.
  std::optional<std::vector<Expr>> known = op.ints(0);
  std::optional<std::vector<int64_t>> index = op.constants(1);
  if (!known || !index || data.rank() != 1) return out;
  const auto n = static_cast<int64_t>(known->size());
  std::vector<Expr> picked;
  for (int64_t i : *index) {
    if (i < -n || i >= n) {
      op.bad_input("index " + std::to_string(i) + " is out of range for " + std::to_string(n) +
                   " elements");
    }
    picked.push_back((*known)[static_cast<size_t>(i < 0 ? i + n : i)]);
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
      op.fail("input " + std::to_string(i) + " has rank " + std::to_string(t.rank()) +
              ", input 0 has rank " + std::to_string(first.rank()));
    }
    for (size_t d = 0; d < t.rank(); ++d) {
      if (d == axis) continue;
      op.ctx().require_equal(t.sizes[d], first.sizes[d], "concat", [&] {
        return "input " + std::to_string(i) + " has size " + t.sizes[d].str() + " in dim " +
               std::to_string(d) + ", input 0 has " + first.sizes[d].str();
      });
    }
    if (i > 0) sizes[axis] = sizes[axis] + t.sizes[axis];
    std::optional<std::vector<Expr>> e = op.ints(i);
    if (known && e) {
      elements.insert(elements.end(), e->begin(), e->end());
    } else {
      known = false;
    }
  }
  sizes[axis] = op.ctx().simplify(sizes[axis]);
  if (known) return int_tensor(first.dtype, sizes, std::move(elements));
  return tensor_value(first.dtype, sizes);
}

// The axes of Unsqueeze / Squeeze / Reduce*: an attribute before opset 13, an input after.
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
    if (inserted[d]) op.bad_input("axes name dim " + std::to_string(d) + " twice");
    inserted[d] = true;
  }
  std::vector<Expr> sizes;
  size_t next = 0;
  for (size_t d = 0; d < rank; ++d) sizes.push_back(inserted[d] ? Expr(1) : x.sizes[next++]);
  Value out = tensor_value(x.dtype, sizes);
  if (Value in = op.input(0); in.data) out.data = in.data;
  return out;
}

Value cast_rule(Op& op) {
  const Value in = op.input(0);
  if (!in.is_tensor()) op.bad_input("input is not a tensor");
  std::optional<int64_t> to = op.optional_attr_int("to");
  if (!to) op.bad_input("attribute 'to' is required");
  std::optional<DType> d = dtype_of_elem_type(static_cast<int>(*to));
  if (!d) op.bad_input("cannot cast to element type " + std::to_string(*to));
  Value out = tensor_value(*d, in.tensor.sizes);
  // Integers stay exact through an integral cast (int32 <-> int64 of a shape).
  if (in.data && !in.data->real && is_integral(*d) && *d != DType::Bool) out.data = in.data;
  return out;
}

Value reshape_rule(Op& op) {
  const TensorMeta x = op.tensor(0);
  const size_t rank = shape_length(op, 1, "shape");
  std::optional<std::vector<Expr>> target = op.ints(1);
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
        op.bad_input("shape[" + std::to_string(d) + "] is 0 (copy the input's dim) but the input has rank " +
                     std::to_string(x.rank()));
      }
      sizes.push_back(x.sizes[d]);
    } else if (c && *c < 0) {
      op.bad_input("shape[" + std::to_string(d) + "] is " + std::to_string(*c));
    } else {
      sizes.push_back(e);
    }
  }
  const Expr numel = x.numel();
  if (inferred) {
    const Expr rest = op.ctx().simplify(product(sizes));
    op.ctx().require_equal(mod(numel, rest), Expr(0), "reshape", [&] {
      return "cannot reshape " + x.str() + " into " + ops::shape_str(*target) + ": " +
             numel.str() + " elements are not a multiple of " + rest.str();
    });
    sizes[*inferred] = op.ctx().simplify(floordiv(numel, rest));
  } else {
    op.ctx().require_equal(op.ctx().simplify(product(sizes)), numel, "reshape", [&] {
      return "cannot reshape " + x.str() + " into " + ops::shape_str(sizes) +
             ": the element counts differ";
    });
  }
  Value out = tensor_value(x.dtype, sizes);
  if (Value in = op.input(0); in.data) out.data = in.data;
  return out;
}

}  // namespace

void add_shape_rules(OpRegistry& r) {
  add(r, "Shape", shape_rule);
  add(r, "Size", [](Op& op) { return int_tensor(DType::Int64, {}, {op.tensor(0).numel()}); });
  add(r, "Gather", gather_rule);
  add(r, "Concat", concat_rule);
  add(r, "Unsqueeze", unsqueeze_rule);
  add(r, "Cast", cast_rule);
  add(r, "Reshape", reshape_rule);
}

}  // namespace symshape::onnx
