// Complex tensors: views between complex and real-with-a-trailing-2, and constructors.
#include "symshape/ops/families.h"

namespace symshape::ops {

namespace {

TensorMeta complex_tensor(const OpContext& ctx, size_t i, std::string_view name) {
  TensorMeta t = ctx.tensor(i, name);
  if (!is_complex(t.dtype)) {
    ctx.bad_input(std::string(name) + " must be a complex tensor, got " + std::string(to_string(t.dtype)));
  }
  return t;
}

// complex(real, imag) and polar(abs, angle): two real tensors broadcast into a complex one.
Value from_parts(OpContext& ctx, const char* first, const char* second) {
  TensorMeta a = ctx.tensor(0, first), b = ctx.tensor(1, second);
  if (!is_floating(a.dtype) || a.dtype != b.dtype) {
    ctx.bad_input(std::string("expects two floating tensors of one dtype, got ") + std::string(to_string(a.dtype)) +
                  " and " + std::string(to_string(b.dtype)));
  }
  return Value::of(contiguous(real_to_complex(a.dtype), broadcast_shapes(ctx, a.sizes, b.sizes)));
}

Value real_part(OpContext& ctx) {
  TensorMeta t = ctx.tensor(0, "self");
  return Value::of(contiguous(is_complex(t.dtype) ? complex_to_real(t.dtype) : t.dtype, t.sizes));
}

}  // namespace

void register_complex(OpRegistry& r) {
  r.add("aten.view_as_real", [](OpContext& ctx) {
    TensorMeta t = complex_tensor(ctx, 0, "self");
    std::vector<Expr> sizes = t.sizes;
    sizes.push_back(2);
    return Value::of(contiguous(complex_to_real(t.dtype), sizes));
  });
  r.add("aten.view_as_complex", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    if (t.dtype != DType::Float32 && t.dtype != DType::Float64 && t.dtype != DType::Float16) {
      ctx.bad_input("view_as_complex needs a float16, float32 or float64 tensor, got " +
                    std::string(to_string(t.dtype)));
    }
    if (t.rank() == 0) ctx.bad_input("view_as_complex needs a last dim of size 2, got a 0-dim tensor");
    ctx.require_equal(t.sizes.back(), Expr(2), "view_as_complex",
                      "view_as_complex needs a last dim of size 2, got " + shape_str(t.sizes));
    std::vector<Expr> sizes(t.sizes.begin(), t.sizes.end() - 1);
    return Value::of(contiguous(real_to_complex(t.dtype), sizes));
  });
  r.add("aten.complex", [](OpContext& ctx) { return from_parts(ctx, "real", "imag"); });
  r.add("aten.polar", [](OpContext& ctx) { return from_parts(ctx, "abs", "angle"); });
  r.add("aten.real", real_part);
  r.add("aten.imag", [](OpContext& ctx) {
    complex_tensor(ctx, 0, "self");
    return real_part(ctx);
  });
  r.add("aten.angle", [](OpContext& ctx) {
    TensorMeta t = ctx.tensor(0, "self");
    DType d = is_complex(t.dtype) ? complex_to_real(t.dtype) : to_floating(t.dtype);
    return Value::of(contiguous(d, t.sizes));
  });
  for (const char* op : {"aten.conj", "aten._conj", "aten.conj_physical", "aten.resolve_conj",
                         "aten.resolve_neg"}) {
    r.add(op, [](OpContext& ctx) { return Value::of(ctx.tensor(0, "self")); });
  }
}

}  // namespace symshape::ops
