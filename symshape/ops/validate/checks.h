// Internal: the words a family's argument validation is written in, for both of its callers.
//
// PyTorch's structured kernels share one meta() (the checks) between the meta kernel and the CPU
// kernel. Here the shape rule (symshape/ops/) and the kernel (symshape/interp/) share one
// validation per op family (symshape/ops/validate/<family>.h): a template over the context, so
// the rule and the kernel refuse the same arguments with the same message. What differs is the
// size type and what a size relation means:
//   - the rule (OpContext): sizes are Expr; a relation is decided by the ShapeEnv (statically,
//     else a runtime assert when data-dependent, else on the hints with a guard) and fails as a
//     ShapeError;
//   - the kernel (KernelContext): sizes are int64_t; a relation is evaluated and fails as a
//     RunError.
// Argument errors (a rank, a dtype, a mode, a dim out of range) are bad input on both sides
// (InputError / RunInputError). The shape math and the kernel math stay apart: a validation checks,
// it computes no output shape.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symshape/interp.h"
#include "symshape/ops.h"
#include "symshape/ops/families.h"

namespace symshape::validate {

using interp::KernelContext;

// ---- what a side's values look like ----

inline const std::vector<Expr>& sizes_of(const TensorMeta& t) { return t.sizes; }
inline const std::vector<int64_t>& sizes_of(const interp::Tensor& t) { return t.sizes(); }
inline DType dtype_of(const TensorMeta& t) { return t.dtype; }
inline DType dtype_of(const interp::Tensor& t) { return t.dtype(); }

// A size widened so that sums and products of a few int64 sizes do not overflow (the kernel's
// arguments are any int64); an Expr is exact already.
inline const Expr& wide(const Expr& e) { return e; }
inline __int128 wide(int64_t v) { return v; }

// The value of an int argument when it is a plain number (always, in a kernel).
inline std::optional<int64_t> constant_of(const Expr& e) { return e.as_int64(); }
inline std::optional<int64_t> constant_of(int64_t v) { return v; }

// The size as the rule states it (simplified) or as the kernel computed it.
inline Expr simplified(const OpContext& ctx, const Expr& e) { return ctx.simplify(e); }
template <class Int>
Int simplified(const KernelContext&, Int v) {
  return v;
}

// a % b (b > 0): the ShapeEnv's Mod, or the remainder of the numbers.
inline Expr remainder(const Expr& a, const Expr& b) { return mod(a, b); }
inline __int128 remainder(__int128 a, __int128 b) { return ((a % b) + b) % b; }

// A number argument's value (an int or a float), nullopt for anything else (a symbolic int too).
inline std::optional<double> number_of(const Value& v) {
  if (v.kind == Value::Kind::Float) return v.real;
  if (v.kind == Value::Kind::Int && v.integer.as_int64()) {
    return static_cast<double>(*v.integer.as_int64());
  }
  return std::nullopt;
}
inline std::optional<double> number_of(const interp::RValue& v) {
  if (v.kind == interp::RValue::Kind::Float) return v.real;
  if (v.kind == interp::RValue::Kind::Int) return static_cast<double>(v.integer);
  return std::nullopt;
}
inline bool is_list(const Value& v) { return v.kind == Value::Kind::List; }
inline bool is_list(const interp::RValue& v) { return v.kind == interp::RValue::Kind::List; }

// ---- text for messages ----

inline std::string text(const Expr& e) { return e.str(); }
inline std::string text(int64_t v) { return std::to_string(v); }
std::string text(__int128 v);  // within int64 as a number, else "a number beyond int64"
inline std::string text(const std::vector<Expr>& sizes) { return ops::shape_str(sizes); }
std::string text(const std::vector<int64_t>& sizes);  // "[2, 3]"
std::string text(const std::vector<__int128>& sizes);
inline std::string text(DType d) { return std::string(to_string(d)); }

// ---- checks ----

// A size relation that must hold: the rule requires it (ops::require: static, runtime assert, or
// a guard on the hints, naming `rule`); the kernel evaluates it. Fails with message.
inline void require(const OpContext& ctx, const Cond& holds, std::string_view rule,
                    const std::string& message) {
  ops::require(ctx, holds, rule, message);
}
inline void require(const KernelContext& ctx, bool holds, std::string_view,
                    const std::string& message) {
  if (!holds) ctx.fail(message);
}
// The same with the message built only on failure.
inline void require(const OpContext& ctx, const Cond& holds, std::string_view rule,
                    const std::function<std::string()>& message) {
  ops::require(ctx, holds, rule, message);
}
inline void require(const KernelContext& ctx, bool holds, std::string_view,
                    const std::function<std::string()>& message) {
  if (!holds) ctx.fail(message());
}

// a == b, as `require` but through the rule's require_equal (which, when the hints are guesses,
// moves a hint to the size the graph forces).
inline void require_equal(const OpContext& ctx, const Expr& a, const Expr& b, std::string_view rule,
                          const std::function<std::string()>& message) {
  ctx.require_equal(a, b, rule, message);
}
template <class Int>
void require_equal(const KernelContext& ctx, const Int& a, const Int& b, std::string_view,
                   const std::function<std::string()>& message) {
  if (a != b) ctx.fail(message());
}

// A relation whose failure for every size is bad input (an argument no input can satisfy): the
// rule refuses it when it is statically false (and leaves the rest to a `require`), the kernel
// when it is false.
inline void refuse_unless(const OpContext& ctx, const Cond& holds, const std::string& message) {
  if (ctx.known(holds) == Truth::False) ctx.bad_input(message);
}
inline void refuse_unless(const KernelContext& ctx, bool holds, const std::string& message) {
  if (!holds) ctx.bad_input(message);
}

// Whether a relation holds for every size (the rule: statically, with no guard; the kernel:
// evaluated).
inline bool known_true(const OpContext& ctx, const Cond& holds) {
  return ctx.known(holds) == Truth::True;
}
inline bool known_true(const KernelContext&, bool holds) { return holds; }

// Requires sizes == want (same rank, then every dim); a rank that differs is bad input.
template <class Ctx, class Size>
void require_shape(const Ctx& ctx, const std::vector<Size>& sizes, const std::vector<Size>& want,
                   std::string_view rule, const std::string& message) {
  if (sizes.size() != want.size()) ctx.bad_input(message);
  for (size_t d = 0; d < want.size(); ++d) require(ctx, sizes[d] == want[d], rule, message);
}
// The same through require_equal, dim by dim.
template <class Ctx, class Size>
void require_equal_shape(const Ctx& ctx, const std::vector<Size>& sizes,
                         const std::vector<Size>& want, std::string_view rule,
                         const std::string& message) {
  if (sizes.size() != want.size()) ctx.bad_input(message);
  for (size_t d = 0; d < want.size(); ++d) {
    require_equal(ctx, sizes[d], want[d], rule, [&] { return message; });
  }
}

}  // namespace symshape::validate
