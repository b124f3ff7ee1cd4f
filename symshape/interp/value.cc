// Run-time values and errors.
#include "symshape/interp.h"
#include "symshape/ir/float_text.h"

namespace symshape::interp {

RValue RValue::of(Tensor t) {
  RValue v;
  v.kind = Kind::Tensor;
  v.tensor = std::move(t);
  return v;
}

RValue RValue::of_int(int64_t x) {
  RValue v;
  v.kind = Kind::Int;
  v.integer = x;
  return v;
}

RValue RValue::of_float(double x) {
  RValue v;
  v.kind = Kind::Float;
  v.real = x;
  return v;
}

RValue RValue::of_bool(bool x) {
  RValue v;
  v.kind = Kind::Bool;
  v.truth = x;
  return v;
}

RValue RValue::list(std::vector<RValue> items) {
  RValue v;
  v.kind = Kind::List;
  v.items = std::move(items);
  return v;
}

std::string RValue::str() const {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Tensor: return tensor.str();
    case Kind::Int: return std::to_string(integer);
    case Kind::Float: return detail::float_text(real);
    case Kind::Bool: return truth ? "True" : "False";
    case Kind::List: {
      std::string out = "(";
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ", ";
        out += items[i].str();
      }
      if (items.size() == 1) out += ",";
      return out + ")";
    }
  }
  return "?";
}

namespace {
std::string label(const Node& node) {
  return "node " + node.name + (node.target.empty() ? "" : " (" + node.target + ")");
}
}  // namespace

RunError::RunError(const Node& node, const std::string& message)
    : Error(label(node) + ": " + message) {}

}  // namespace symshape::interp
