// Elementwise kernels: broadcasting arithmetic, comparisons, unary math and activations. The
// argument positions and names, and the result dtypes, are those of the shape rules in
// symshape/ops/elementwise.cc; in-place forms (`aten.add_`) come from the registry's fallback.
//
// Integers compute in int64 with wrapping (unsigned) arithmetic and are cast to the result's
// width; floating types compute in double and are rounded to the result dtype; complex in
// complex<double>.
#include <cmath>
#include <limits>
#include <numbers>

#include "symshape/interp/kernels.h"

namespace symshape::interp::kernels {

namespace {

using Kind = Scalar::Kind;
using Args = std::vector<Scalar>;
using Fn = std::function<Scalar(const Args&)>;

// Keyword-only arguments (after `*` in the schema) are never positional in a graph.
constexpr size_t kKeywordOnly = std::numeric_limits<size_t>::max();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string dtype_name(DType d) { return std::string(to_string(d)); }

// ---- wrapping int64 arithmetic (PyTorch's fixed-width integers, without signed overflow) ----

int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrap_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
int64_t wrap_neg(int64_t a) { return static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(a)); }

// a ** b for integers as PyTorch's powi: negative exponents give 1 / a rounded toward zero.
int64_t int_pow(int64_t a, int64_t b) {
  if (b < 0) {
    if (a == 1) return 1;
    if (a == -1) return (b % 2 != 0) ? -1 : 1;
    return 0;
  }
  uint64_t result = 1, base = static_cast<uint64_t>(a);
  for (uint64_t e = static_cast<uint64_t>(b); e != 0; e >>= 1) {
    if (e & 1) result *= base;
    base *= base;
  }
  return static_cast<int64_t>(result);
}

// C's truncated integer division and remainder, with the one overflowing case wrapped.
int64_t trunc_div(int64_t a, int64_t b) { return b == -1 ? wrap_neg(a) : a / b; }
int64_t trunc_mod(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }

// PyTorch's floor division of floating values (div_floor_floating).
double floor_divide_real(double a, double b) {
  if (b == 0) return a / b;
  double m = std::fmod(a, b);
  double div = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) div -= 1;
  double floordiv = 0;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, a / b);
  }
  return floordiv;
}

bool is_nan(const Scalar& s) {
  if (s.kind == Kind::Float) return std::isnan(s.f);
  if (s.kind == Kind::Complex) return std::isnan(s.c.real()) || std::isnan(s.c.imag());
  return false;
}

// ---- operands and dtypes ----

// A number held as a 0-dim tensor at full precision (its promotion dtype is scalar_dtype).
Tensor number_tensor(const Scalar& s) {
  switch (s.kind) {
    case Kind::Bool: return Tensor::scalar(DType::Bool, s);
    case Kind::Int: return Tensor::scalar(DType::Int64, s);
    case Kind::Float: return Tensor::scalar(DType::Float64, s);
    case Kind::Complex: return Tensor::scalar(DType::Complex128, s);
  }
  return Tensor::scalar(DType::Int64, s);
}

// An operand of a pointwise op: a tensor, or a number (a 0-dim tensor for the computation).
struct Operand {
  bool present = false;
  bool is_tensor = false;
  Tensor t;
  Scalar number;
  DType dtype() const { return is_tensor ? t.dtype() : scalar_dtype(number); }
};

Operand operand(const KernelContext& ctx, std::string_view name) {
  Operand o;
  if (!ctx.has(name)) return o;
  o.present = true;
  if (ctx.is_tensor_arg(name)) {
    o.is_tensor = true;
    o.t = ctx.tensor(name);
  } else {
    o.number = ctx.scalar(name);
    o.t = number_tensor(o.number);
  }
  return o;
}

// PyTorch's result type over the present operands.
DType promoted(const std::vector<Operand>& ops) {
  std::vector<Tensor> tensors;
  std::vector<Scalar> numbers;
  for (const Operand& o : ops) {
    if (!o.present) continue;
    if (o.is_tensor) {
      tensors.push_back(o.t);
    } else {
      numbers.push_back(o.number);
    }
  }
  return result_type(tensors, numbers);
}

DType to_floating(DType d) { return is_floating(d) || is_complex(d) ? d : DType::Float32; }

// How the result dtype follows from the promoted type: as is, bool (comparisons), floating
// (true division; ints compute in float32), or the first operand's dtype.
enum class Out { Promoted, Bool, Floating, Same };

// The dtype the op computes in and the dtype of its result.
struct Types {
  DType compute, out;
};

Types types_of(const std::vector<Operand>& ops, Out out) {
  DType p = promoted(ops);
  switch (out) {
    case Out::Promoted: return {p, p};
    case Out::Bool: return {p, DType::Bool};
    case Out::Floating: return {to_floating(p), to_floating(p)};
    case Out::Same: return {p, ops[0].dtype()};
  }
  return {p, p};
}

[[noreturn]] void unsupported(const KernelContext& ctx, const std::string& op, DType d) {
  ctx.fail(op + " is not supported for " + dtype_name(d));
}

// A pointwise op over the named operands. `make` builds the elementwise function for
// the computation dtype (it may refuse the dtype, and may read other arguments).
using Make = std::function<Fn(KernelContext&, DType compute)>;

Kernel pointwise(std::vector<std::string> operands, Out out, Make make) {
  return [operands, out, make](KernelContext& ctx) {
    std::vector<Operand> ops;
    for (const std::string& name : operands) {
      ops.push_back(operand(ctx, name));
      // Every operand is required: the elementwise function reads one value from each.
      if (!ops.back().present) ctx.bad_input("missing argument '" + name + "'");
    }
    Types ty = types_of(ops, out);
    Fn f = make(ctx, ty.compute);
    std::vector<Tensor> inputs;
    for (const Operand& o : ops) inputs.push_back(o.t);
    return RValue::of(map(inputs, ty.compute, ty.out, f));
  };
}

const std::vector<std::string> kSelfOther = {"self", "other"};
const std::vector<std::string> kSelf = {"self"};

// ---- binary ops by category ----

// An op's elementwise function per category of the computation dtype: integers (bool included),
// floating, complex. A missing one means the op refuses that category.
struct ByKind {
  std::function<Scalar(int64_t, int64_t)> i;
  std::function<Scalar(double, double)> f;
  std::function<Scalar(Complex, Complex)> c;
};

Fn by_kind(const KernelContext& ctx, const std::string& op, DType compute, const ByKind& k) {
  switch (scalar_kind(compute)) {
    case Kind::Bool:
    case Kind::Int:
      if (!k.i) unsupported(ctx, op, compute);
      return [i = k.i](const Args& v) { return i(v[0].as_int(), v[1].as_int()); };
    case Kind::Float:
      if (!k.f) unsupported(ctx, op, compute);
      return [f = k.f](const Args& v) { return f(v[0].as_double(), v[1].as_double()); };
    case Kind::Complex:
      if (!k.c) unsupported(ctx, op, compute);
      return [c = k.c](const Args& v) { return c(v[0].as_complex(), v[1].as_complex()); };
  }
  unsupported(ctx, op, compute);
}

Scalar I(int64_t v) { return Scalar::of_int(v); }
Scalar R(double v) { return Scalar::of_float(v); }
Scalar C(Complex v) { return Scalar::of_complex(v); }
Scalar B(bool v) { return Scalar::of_bool(v); }

void require_nonzero(const KernelContext& ctx, int64_t b) {
  if (b == 0) ctx.fail("ZeroDivisionError: integer division or modulo by zero");
}

// add / sub / rsub with alpha: self + alpha * other, self - alpha * other, other - alpha * self.
Kernel add_like(int sign, bool reversed, const std::string& op) {
  return pointwise(kSelfOther, Out::Promoted, [sign, reversed, op](KernelContext& ctx, DType d) {
    Scalar alpha = ctx.optional_scalar("alpha").value_or(Scalar::of_int(1));
    if ((is_integral(d) || d == DType::Bool) &&
        (alpha.kind == Kind::Float || alpha.kind == Kind::Complex)) {
      ctx.fail("for integral input tensors, argument alpha must not be a floating point number");
    }
    if (d == DType::Bool && sign < 0) {
      ctx.fail(op + " with two bool tensors is not supported; use logical_xor or bitwise_xor");
    }
    Scalar a = cast(alpha, d);
    return by_kind(ctx, op, d,
                   {[=](int64_t x, int64_t y) {
                      if (reversed) std::swap(x, y);
                      int64_t t = wrap_mul(a.as_int(), y);
                      return I(sign > 0 ? wrap_add(x, t) : wrap_sub(x, t));
                    },
                    [=](double x, double y) {
                      if (reversed) std::swap(x, y);
                      return R(x + sign * a.as_double() * y);
                    },
                    [=](Complex x, Complex y) {
                      if (reversed) std::swap(x, y);
                      return C(x + static_cast<double>(sign) * a.as_complex() * y);
                    }});
  });
}

Kernel binary(const std::string& op, Out out, ByKind k) {
  return pointwise(kSelfOther, out,
                   [op, k](KernelContext& ctx, DType d) { return by_kind(ctx, op, d, k); });
}

// div / true_divide / floor_divide: rounding mode "" (true), "trunc" or "floor".
Fn division(KernelContext& ctx, DType d, const std::string& mode) {
  if (mode.empty()) {
    return by_kind(ctx, "div", d,
                   {nullptr, [](double a, double b) { return R(a / b); },
                    [](Complex a, Complex b) { return C(a / b); }});
  }
  if (mode != "trunc" && mode != "floor") {
    ctx.fail("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '" +
             mode + "'");
  }
  const bool floor = mode == "floor";
  return by_kind(ctx, "div", d,
                 {[&ctx, floor](int64_t a, int64_t b) {
                    require_nonzero(ctx, b);
                    return I(floor ? kernels::floordiv(a, b) : trunc_div(a, b));
                  },
                  [floor](double a, double b) {
                    return R(floor ? floor_divide_real(a, b) : std::trunc(a / b));
                  },
                  nullptr});
}

// ---- unary ops ----

struct Unary {
  std::function<Scalar(int64_t)> i;  // bool and integers
  std::function<Scalar(double)> f;
  std::function<Scalar(Complex)> c;
};

Fn unary_fn(const KernelContext& ctx, const std::string& op, DType compute, const Unary& u) {
  switch (scalar_kind(compute)) {
    case Kind::Bool:
    case Kind::Int:
      if (!u.i) unsupported(ctx, op, compute);
      return [i = u.i](const Args& v) { return i(v[0].as_int()); };
    case Kind::Float:
      if (!u.f) unsupported(ctx, op, compute);
      return [f = u.f](const Args& v) { return f(v[0].as_double()); };
    case Kind::Complex:
      if (!u.c) unsupported(ctx, op, compute);
      return [c = u.c](const Args& v) { return c(v[0].as_complex()); };
  }
  unsupported(ctx, op, compute);
}

// A unary op keeping self's dtype; `make` may read extra arguments.
Kernel same_dtype(const std::string& op, std::function<Unary(KernelContext&)> make) {
  return pointwise(kSelf, Out::Same, [op, make](KernelContext& ctx, DType d) {
    return unary_fn(ctx, op, d, make(ctx));
  });
}

// A unary op computing in floating point (integers and bool in float32).
Kernel floating(const std::string& op, std::function<double(double)> f,
                std::function<Complex(Complex)> c = nullptr) {
  Unary u{nullptr, [f](double x) { return R(f(x)); }, nullptr};
  if (c) u.c = [c](Complex x) { return C(c(x)); };
  return pointwise(kSelf, Out::Floating,
                   [op, u](KernelContext& ctx, DType d) { return unary_fn(ctx, op, d, u); });
}

// The identity for integers (floor, ceil, round, trunc of an integer tensor).
Scalar identity_int(int64_t x) { return I(x); }

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double softplus(double x) { return std::log1p(std::exp(x)); }

// The inverse error function: Giles' single-precision approximation refined by Newton steps on
// erf, accurate to double precision away from +-1.
double erfinv(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return kNaN;
  if (y == 1) return kInf;
  if (y == -1) return -kInf;
  double w = -std::log((1 - y) * (1 + y)), x;
  if (w < 5) {
    w -= 2.5;
    double p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941}) {
      p = p * w + c;
    }
    x = p * y;
  } else {
    w = std::sqrt(w) - 3;
    double p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                     0.00943887047, 1.00167406, 2.83297682}) {
      p = p * w + c;
    }
    x = p * y;
  }
  const double two_over_sqrt_pi = 2 / std::sqrt(std::numbers::pi);
  for (int k = 0; k < 3; ++k) {
    double err = std::erf(x) - y;
    double slope = two_over_sqrt_pi * std::exp(-x * x);
    if (slope == 0) break;
    x -= err / slope;
  }
  return x;
}

// The digamma function as PyTorch's calc_digamma computes it: reflection for negatives, the
// recurrence up to 10 and the asymptotic series.
double digamma(double x) {
  if (x == 0) return std::copysign(kInf, -x);
  if (x < 0) {
    if (x == std::trunc(x)) return kNaN;
    // digamma(1 - x) - pi / tan(pi x); pi * x reduced modulo 1 for accuracy.
    double r = std::fmod(x, 1.0);
    return digamma(1 - x) - std::numbers::pi / std::tan(std::numbers::pi * r);
  }
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (x == 10) return result + 2.25175258906672110764;
  double y = 0;
  if (x < 1.0e17) {
    static const double A[] = {8.33333333333333333333E-2, -2.10927960927960927961E-2,
                               7.57575757575757575758E-3, -4.16666666666666666667E-3,
                               3.96825396825396825397E-3, -8.33333333333333333333E-3,
                               8.33333333333333333333E-2};
    double z = 1 / (x * x), p = 0;
    for (double a : A) p = p * z + a;
    y = z * p;
  }
  return result + std::log(x) - 0.5 / x - y;
}

// The largest finite value of a floating dtype (nan_to_num's default for +inf).
double largest(DType d) {
  switch (d) {
    case DType::Float16: return 65504.0;
    case DType::BFloat16: return 3.3895313892515355e38;
    case DType::Float32:
    case DType::Complex64: return std::numeric_limits<float>::max();
    default: return std::numeric_limits<double>::max();
  }
}

Complex complex_sigmoid(Complex z) { return 1.0 / (1.0 + std::exp(-z)); }

// ---- dropout ----

// A Bernoulli(keep) draw from the run's generator.
bool keep_draw(std::mt19937_64& rng, double keep) {
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < keep;
}

void require_probability(const KernelContext& ctx, double p) {
  if (!(p >= 0 && p <= 1)) {
    ctx.fail("dropout probability has to be between 0 and 1, but got " + std::to_string(p));
  }
}

}  // namespace

void register_elementwise(KernelRegistry& r) {
  // ---- binary arithmetic ----
  r.add("aten.add", add_like(+1, false, "add"));
  r.add("aten.sub", add_like(-1, false, "sub"));
  r.add("aten.rsub", add_like(-1, true, "rsub"));
  r.add("aten.mul", binary("mul", Out::Promoted,
                           {[](int64_t a, int64_t b) { return I(wrap_mul(a, b)); },
                            [](double a, double b) { return R(a * b); },
                            [](Complex a, Complex b) { return C(a * b); }}));
  // maximum / minimum propagate NaN; fmax / fmin ignore it.
  r.add("aten.maximum", binary("maximum", Out::Promoted,
                               {[](int64_t a, int64_t b) { return I(std::max(a, b)); },
                                [](double a, double b) {
                                  return R(std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b));
                                },
                                nullptr}));
  r.add("aten.minimum", binary("minimum", Out::Promoted,
                               {[](int64_t a, int64_t b) { return I(std::min(a, b)); },
                                [](double a, double b) {
                                  return R(std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b));
                                },
                                nullptr}));
  r.add("aten.fmax", binary("fmax", Out::Promoted,
                            {[](int64_t a, int64_t b) { return I(std::max(a, b)); },
                             [](double a, double b) { return R(std::fmax(a, b)); }, nullptr}));
  r.add("aten.fmin", binary("fmin", Out::Promoted,
                            {[](int64_t a, int64_t b) { return I(std::min(a, b)); },
                             [](double a, double b) { return R(std::fmin(a, b)); }, nullptr}));
  // remainder: Python's modulo (the divisor's sign); fmod: C's (the dividend's sign).
  r.add("aten.remainder", pointwise(kSelfOther, Out::Promoted, [](KernelContext& ctx, DType d) {
          return by_kind(ctx, "remainder", d,
                         {[&ctx](int64_t a, int64_t b) {
                            require_nonzero(ctx, b);
                            return I(kernels::mod(a, b));
                          },
                          [](double a, double b) { return R(fmod_python(a, b)); }, nullptr});
        }));
  r.add("aten.fmod", pointwise(kSelfOther, Out::Promoted, [](KernelContext& ctx, DType d) {
          return by_kind(ctx, "fmod", d,
                         {[&ctx](int64_t a, int64_t b) {
                            require_nonzero(ctx, b);
                            return I(trunc_mod(a, b));
                          },
                          [](double a, double b) { return R(std::fmod(a, b)); }, nullptr});
        }));
  r.add("aten.floor_divide", pointwise(kSelfOther, Out::Promoted, [](KernelContext& ctx, DType d) {
          return division(ctx, d, "floor");
        }));
  r.add("aten.bitwise_and",
        binary("bitwise_and", Out::Promoted,
               {[](int64_t a, int64_t b) { return I(a & b); }, nullptr, nullptr}));
  r.add("aten.bitwise_or",
        binary("bitwise_or", Out::Promoted,
               {[](int64_t a, int64_t b) { return I(a | b); }, nullptr, nullptr}));
  r.add("aten.bitwise_xor",
        binary("bitwise_xor", Out::Promoted,
               {[](int64_t a, int64_t b) { return I(a ^ b); }, nullptr, nullptr}));
  // copysign, atan2 and xlogy are PyTorch's "float ops": integers compute in float32.
  r.add("aten.copysign",
        binary("copysign", Out::Floating,
               {nullptr, [](double a, double b) { return R(std::copysign(a, b)); }, nullptr}));
  // hypot keeps the promoted dtype and is defined for floating types only.
  r.add("aten.hypot",
        binary("hypot", Out::Promoted,
               {nullptr, [](double a, double b) { return R(std::hypot(a, b)); }, nullptr}));
  r.add("aten.atan2",
        binary("atan2", Out::Floating,
               {nullptr, [](double a, double b) { return R(std::atan2(a, b)); }, nullptr}));
  r.add("aten.xlogy", binary("xlogy", Out::Floating,
                             {nullptr,
                              [](double x, double y) {
                                if (std::isnan(y)) return R(kNaN);
                                if (x == 0) return R(0);
                                return R(x * std::log(y));
                              },
                              nullptr}));

  // ---- division and powers ----
  r.add("aten.div", [](KernelContext& ctx) {
    std::string mode = ctx.string("rounding_mode", "");
    return pointwise(kSelfOther, mode.empty() ? Out::Floating : Out::Promoted,
                     [mode](KernelContext& c, DType d) { return division(c, d, mode); })(ctx);
  });
  r.add("aten.true_divide", pointwise(kSelfOther, Out::Floating, [](KernelContext& ctx, DType d) {
          return division(ctx, d, "");
        }));
  r.add("aten.pow", [](KernelContext& ctx) {
    // Integers to a negative number exponent are refused; a tensor exponent follows powi.
    if (!ctx.is_tensor_arg("exponent") && ctx.has("exponent") && ctx.is_tensor_arg("self")) {
      Scalar e = ctx.scalar("exponent");
      DType self = ctx.tensor("self").dtype();
      if ((is_integral(self) || self == DType::Bool) && e.kind != Kind::Float &&
          e.kind != Kind::Complex && e.as_int() < 0) {
        ctx.fail("Integers to negative integer powers are not allowed.");
      }
    }
    return pointwise({"self", "exponent"}, Out::Promoted, [](KernelContext& c, DType d) {
      return by_kind(c, "pow", d,
                     {[](int64_t a, int64_t b) { return I(int_pow(a, b)); },
                      [](double a, double b) { return R(std::pow(a, b)); },
                      [](Complex a, Complex b) {
                        if (b == Complex(0, 0)) return C(Complex(1, 0));
                        if (a == Complex(0, 0) && b.imag() == 0 && b.real() > 0) {
                          return C(Complex(0, 0));
                        }
                        return C(std::pow(a, b));
                      }});
    })(ctx);
  });

  // ---- comparisons and logical ops: compute in the promoted type, give bool ----
  auto compare = [&r](const std::string& op, std::function<bool(int, bool)> holds,
                      bool complex_ok) {
    // holds(sign of a - b, unordered) for ordered comparisons.
    r.add(
        "aten." + op,
        binary(op, Out::Bool,
               {[holds](int64_t a, int64_t b) { return B(holds(a < b ? -1 : a > b, false)); },
                [holds](double a, double b) {
                  bool unordered = std::isnan(a) || std::isnan(b);
                  return B(holds(unordered ? 0 : a < b ? -1 : a > b, unordered));
                },
                complex_ok ? std::function<Scalar(Complex, Complex)>([holds](Complex a, Complex b) {
                  bool unordered = is_nan(Scalar::of_complex(a)) || is_nan(Scalar::of_complex(b));
                  return B(holds(a == b ? 0 : 1, unordered));
                })
                           : nullptr}));
  };
  compare(
      "eq", [](int s, bool u) { return !u && s == 0; }, true);
  compare(
      "ne", [](int s, bool u) { return u || s != 0; }, true);
  compare(
      "lt", [](int s, bool u) { return !u && s < 0; }, false);
  compare(
      "le", [](int s, bool u) { return !u && s <= 0; }, false);
  compare(
      "gt", [](int s, bool u) { return !u && s > 0; }, false);
  compare(
      "ge", [](int s, bool u) { return !u && s >= 0; }, false);
  auto logical = [&r](const std::string& op, std::function<bool(bool, bool)> f) {
    r.add("aten." + op, pointwise(kSelfOther, Out::Bool, [f](KernelContext&, DType) -> Fn {
            return [f](const Args& v) { return B(f(v[0].as_bool(), v[1].as_bool())); };
          }));
  };
  logical("logical_and", [](bool a, bool b) { return a && b; });
  logical("logical_or", [](bool a, bool b) { return a || b; });
  logical("logical_xor", [](bool a, bool b) { return a != b; });

  // where(condition, self, other): the result type of self and other; all three broadcast.
  r.add("aten.where", [](KernelContext& ctx) {
    Operand cond = operand(ctx, "condition"), a = operand(ctx, "self"), b = operand(ctx, "other");
    if (!cond.present) ctx.fail("where needs a condition");
    if (!a.present || !b.present) ctx.bad_input("where needs self and other");
    if (cond.is_tensor && cond.t.dtype() != DType::Bool && cond.t.dtype() != DType::UInt8) {
      ctx.bad_input(
          "where expected condition to be a boolean tensor, but got a tensor with dtype " +
          dtype_name(cond.t.dtype()));
    }
    DType d = promoted({a, b});
    // The condition as bool (a uint8 one tests != 0); map casts it to d, where true stays
    // nonzero for every d.
    Tensor c = cond.t.to(DType::Bool);
    return RValue::of(
        map({c, a.t, b.t}, d, d, [](const Args& v) { return v[0].as_bool() ? v[1] : v[2]; }));
  });

  // clamp(self, min=None, max=None) / clip: min(max(x, lo), hi), NaN propagating.
  for (const char* op : {"clamp", "clip"}) {
    r.add(std::string("aten.") + op, [](KernelContext& ctx) {
      Operand self = operand(ctx, "self"), lo = operand(ctx, "min"), hi = operand(ctx, "max");
      if (!lo.present && !hi.present)
        ctx.bad_input("at least one of 'min' or 'max' must not be None");
      DType d = promoted({self, lo, hi});
      if (is_complex(d)) ctx.bad_input("clamp is not supported for complex types");
      std::vector<Tensor> inputs = {self.t};
      if (lo.present) inputs.push_back(lo.t);
      if (hi.present) inputs.push_back(hi.t);
      const bool has_lo = lo.present, has_hi = hi.present;
      return RValue::of(map(inputs, d, d, [=](const Args& v) {
        size_t k = 1;
        if (scalar_kind(d) == Kind::Float) {
          double x = v[0].f;
          if (has_lo) {
            double l = v[k++].f;
            x = std::isnan(x) || std::isnan(l) ? kNaN : std::max(x, l);
          }
          if (has_hi) {
            double h = v[k++].f;
            x = std::isnan(x) || std::isnan(h) ? kNaN : std::min(x, h);
          }
          return R(x);
        }
        int64_t x = v[0].as_int();
        if (has_lo) x = std::max(x, v[k++].as_int());
        if (has_hi) x = std::min(x, v[k++].as_int());
        return I(x);
      }));
    });
  }

  // lerp(self, end, weight): PyTorch's two-sided formula.
  r.add("aten.lerp",
        pointwise({"self", "end", "weight"}, Out::Promoted, [](KernelContext& ctx, DType d) -> Fn {
          if (scalar_kind(d) == Kind::Complex) {
            return [](const Args& v) {
              Complex s = v[0].c, e = v[1].c, w = v[2].c;
              return C(std::abs(w) < 0.5 ? s + w * (e - s) : e - (e - s) * (1.0 - w));
            };
          }
          if (scalar_kind(d) != Kind::Float) unsupported(ctx, "lerp", d);
          return [](const Args& v) {
            double s = v[0].f, e = v[1].f, w = v[2].f;
            return R(std::abs(w) < 0.5 ? s + w * (e - s) : e - (e - s) * (1 - w));
          };
        }));
  // addcmul / addcdiv(self, tensor1, tensor2, *, value=1).
  for (bool divide : {false, true}) {
    const std::string op = divide ? "addcdiv" : "addcmul";
    r.add("aten." + op,
          pointwise({"self", "tensor1", "tensor2"}, Out::Promoted,
                    [op, divide](KernelContext& ctx, DType d) -> Fn {
                      Scalar value =
                          cast(ctx.optional_scalar("value").value_or(Scalar::of_int(1)), d);
                      switch (scalar_kind(d)) {
                        case Kind::Bool:
                        case Kind::Int:
                          if (divide) {
                            ctx.fail("Integer division with addcdiv is no longer supported");
                          }
                          return [value](const Args& v) {
                            return I(wrap_add(v[0].i, wrap_mul(value.i, wrap_mul(v[1].i, v[2].i))));
                          };
                        case Kind::Float:
                          return [value, divide](const Args& v) {
                            double t = divide ? v[1].f / v[2].f : v[1].f * v[2].f;
                            return R(v[0].f + value.f * t);
                          };
                        case Kind::Complex:
                          return [value, divide](const Args& v) {
                            Complex t = divide ? v[1].c / v[2].c : v[1].c * v[2].c;
                            return C(v[0].c + value.c * t);
                          };
                      }
                      unsupported(ctx, op, d);
                    }));
  }
  // masked_fill(self, mask, value): self's dtype, broadcast with mask.
  r.add("aten.masked_fill", [](KernelContext& ctx) {
    Tensor self = ctx.tensor("self"), mask = ctx.tensor("mask");
    if (mask.dtype() != DType::Bool) {
      ctx.fail("masked_fill only supports boolean masks, but got mask with dtype " +
               dtype_name(mask.dtype()));
    }
    Scalar value;
    if (ctx.is_tensor_arg("value")) {
      Tensor v = ctx.tensor("value");
      if (v.rank() != 0) {
        ctx.fail("masked_fill only supports a 0-dimensional value tensor, but got tensor with " +
                 std::to_string(v.rank()) + " dimension(s)");
      }
      value = v.flat(0);
    } else {
      value = ctx.scalar("value");
    }
    if (!is_complex(self.dtype()) && value.kind == Kind::Complex) {
      ctx.fail("masked_fill cannot fill a " + dtype_name(self.dtype()) +
               " tensor with a complex value");
    }
    const DType d = self.dtype();
    Scalar fill = cast(value, d);
    return RValue::of(
        map({self, mask}, d, d, [fill](const Args& v) { return v[1].as_bool() ? fill : v[0]; }));
  });

  // ---- unary ops keeping the dtype ----
  // abs: the magnitude (real) of a complex tensor; integers wrap (abs(INT64_MIN) == INT64_MIN).
  r.add("aten.abs", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    if (is_complex(t.dtype())) {
      return RValue::of(map1(t, t.dtype(), complex_to_real(t.dtype()),
                             [](const Scalar& x) { return R(std::abs(x.c)); }));
    }
    if (t.dtype() == DType::Bool) ctx.fail("abs is not supported for bool tensors");
    return RValue::of(map1(t, t.dtype(), t.dtype(), [](const Scalar& x) {
      return x.kind == Kind::Float ? R(std::fabs(x.f)) : I(x.i < 0 ? wrap_neg(x.i) : x.i);
    }));
  });
  r.add("aten.neg", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    if (t.dtype() == DType::Bool) {
      ctx.fail(
          "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
          "to invert a mask, use the `~` or `logical_not()` operator instead.");
    }
    return same_dtype("neg", [](KernelContext&) {
      return Unary{[](int64_t x) { return I(wrap_neg(x)); }, [](double x) { return R(-x); },
                   [](Complex x) { return C(-x); }};
    })(ctx);
  });
  r.add("aten.relu", same_dtype("relu", [](KernelContext&) {
          return Unary{[](int64_t x) { return I(std::max<int64_t>(x, 0)); },
                       [](double x) { return R(std::isnan(x) ? x
                                               : x > 0       ? x
                                                             : 0.0); }, nullptr};
        }));
  // sign of NaN is 0 (PyTorch's (0 < x) - (x < 0)); sign of a complex tensor is refused.
  r.add("aten.sign", same_dtype("sign", [](KernelContext&) {
          return Unary{[](int64_t x) { return I((0 < x) - (x < 0)); },
                       [](double x) { return R((0 < x) - (x < 0)); }, nullptr};
        }));
  r.add("aten.floor", same_dtype("floor", [](KernelContext&) {
          return Unary{identity_int, [](double x) { return R(std::floor(x)); }, nullptr};
        }));
  r.add("aten.ceil", same_dtype("ceil", [](KernelContext&) {
          return Unary{identity_int, [](double x) { return R(std::ceil(x)); }, nullptr};
        }));
  r.add("aten.trunc", same_dtype("trunc", [](KernelContext&) {
          return Unary{identity_int, [](double x) { return R(std::trunc(x)); }, nullptr};
        }));
  r.add("aten.frac", same_dtype("frac", [](KernelContext&) {
          return Unary{nullptr, [](double x) { return R(x - std::trunc(x)); }, nullptr};
        }));
  // round(self, *, decimals=0): half to even, as nearbyint in the default rounding mode.
  r.add("aten.round", same_dtype("round", [](KernelContext& ctx) {
          int64_t decimals = ctx.integer("decimals", 0);
          if (decimals == 0) {
            return Unary{identity_int, [](double x) { return R(std::nearbyint(x)); }, nullptr};
          }
          const bool negative = decimals < 0;
          const double ten_pow = std::pow(10.0, std::fabs(static_cast<double>(decimals)));
          Unary u{nullptr,
                  [negative, ten_pow](double x) {
                    return R(negative ? std::nearbyint(x / ten_pow) * ten_pow
                                      : std::nearbyint(x * ten_pow) / ten_pow);
                  },
                  nullptr};
          return u;
        }));
  r.add("aten.bitwise_not", same_dtype("bitwise_not", [](KernelContext& ctx) {
          bool is_bool = ctx.tensor("self").dtype() == DType::Bool;
          return Unary{[is_bool](int64_t x) { return I(is_bool ? !x : ~x); }, nullptr, nullptr};
        }));
  // hardtanh(self, min_val=-1, max_val=1), relu6 = hardtanh(0, 6).
  auto hardtanh = [](double lo, double hi) {
    return Unary{
        // Integers clamp through double (the result casts back, without an out-of-range
        // double -> int conversion).
        [lo, hi](int64_t x) { return R(std::min(std::max(static_cast<double>(x), lo), hi)); },
        [lo, hi](double x) { return R(std::isnan(x) ? x : std::min(std::max(x, lo), hi)); },
        nullptr};
  };
  r.add("aten.hardtanh", same_dtype("hardtanh", [hardtanh](KernelContext& ctx) {
          return hardtanh(ctx.real("min_val", -1), ctx.real("max_val", 1));
        }));
  r.add("aten.relu6", same_dtype("relu6", [hardtanh](KernelContext&) { return hardtanh(0, 6); }));
  r.add("aten.leaky_relu", same_dtype("leaky_relu", [](KernelContext& ctx) {
          double slope = ctx.real("negative_slope", 0.01);
          return Unary{nullptr, [slope](double x) { return R(x > 0 ? x : x * slope); }, nullptr};
        }));
  // clone / lift_fresh_copy copy; alias / detach / positive are views (the same elements);
  // contiguous copies only a non-contiguous tensor.
  for (const char* op : {"aten.clone", "aten.lift_fresh_copy"}) {
    r.add(op, [](KernelContext& ctx) { return RValue::of(ctx.tensor("self").clone()); });
  }
  for (const char* op : {"aten.alias", "aten.detach"}) {
    r.add(op, [](KernelContext& ctx) {
      Tensor t = ctx.tensor("self");
      return RValue::of(t.as_strided(t.sizes(), t.strides(), t.offset()));
    });
  }
  r.add("aten.positive", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    if (t.dtype() == DType::Bool) {
      ctx.fail("The `+` operator, on a bool tensor is not supported.");
    }
    return RValue::of(t.as_strided(t.sizes(), t.strides(), t.offset()));
  });
  r.add("aten.contiguous",
        [](KernelContext& ctx) { return RValue::of(ctx.tensor("self").contiguous()); });
  // fill(self, value): a new tensor like self, every element value (a number or a 0-dim
  // tensor); zero(self): zeros.
  r.add("aten.fill", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    Scalar value;
    if (ctx.is_tensor_arg("value")) {
      Tensor v = ctx.tensor("value");
      if (v.rank() != 0) {
        ctx.fail("fill only supports 0-dimension value tensor but got tensor with " +
                 std::to_string(v.rank()) + " dimensions");
      }
      value = v.flat(0);
    } else {
      value = ctx.scalar("value");
    }
    Scalar fill = cast(value, t.dtype());
    return RValue::of(map1(t, t.dtype(), t.dtype(), [fill](const Scalar&) { return fill; }));
  });
  r.add("aten.zero", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    return RValue::of(Tensor::zeros(t.dtype(), t.sizes()));
  });
  // square is pow(self, 2): bool squares to int64, others keep their dtype.
  r.add("aten.square", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    if (t.dtype() == DType::Bool) {
      return RValue::of(map1(t, DType::Int64, DType::Int64, [](const Scalar& x) { return x; }));
    }
    return same_dtype("square", [](KernelContext&) {
      return Unary{[](int64_t x) { return I(wrap_mul(x, x)); }, [](double x) { return R(x * x); },
                   [](Complex x) { return C(x * x); }};
    })(ctx);
  });
  // elu(self, alpha=1, scale=1, input_scale=1), celu(self, alpha=1), selu(self).
  r.add("aten.elu", same_dtype("elu", [](KernelContext& ctx) {
          double alpha = ctx.real("alpha", 1), scale = ctx.real("scale", 1),
                 input_scale = ctx.real("input_scale", 1);
          return Unary{nullptr,
                       [=](double x) {
                         return R(x > 0 ? scale * x : scale * alpha * std::expm1(x * input_scale));
                       },
                       nullptr};
        }));
  r.add("aten.celu", same_dtype("celu", [](KernelContext& ctx) {
          double alpha = ctx.real("alpha", 1);
          return Unary{nullptr,
                       [alpha](double x) {
                         return R(std::max(0.0, x) + std::min(0.0, alpha * std::expm1(x / alpha)));
                       },
                       nullptr};
        }));
  r.add("aten.selu", same_dtype("selu", [](KernelContext&) {
          constexpr double alpha = 1.6732632423543772848170429916717;
          constexpr double scale = 1.0507009873554804934193349852946;
          return Unary{
              nullptr,
              [](double x) { return R(x > 0 ? scale * x : scale * alpha * std::expm1(x)); },
              nullptr};
        }));
  r.add("aten.hardshrink", same_dtype("hardshrink", [](KernelContext& ctx) {
          double lambd = ctx.real("lambd", 0.5);
          return Unary{nullptr,
                       [lambd](double x) { return R(x >= -lambd && x <= lambd ? 0.0 : x); },
                       nullptr};
        }));
  // threshold(self, threshold, value): x <= threshold ? value : x.
  r.add("aten.threshold", same_dtype("threshold", [](KernelContext& ctx) {
          Scalar th = ctx.scalar("threshold"), value = ctx.scalar("value");
          return Unary{
              [th, value](int64_t x) {
                return static_cast<double>(x) <= th.as_double() ? I(value.as_int()) : I(x);
              },
              [th, value](double x) { return R(x <= th.as_double() ? value.as_double() : x); },
              nullptr};
        }));
  // nan_to_num(self, nan=0, posinf=largest, neginf=lowest of the dtype).
  r.add("aten.nan_to_num", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("self");
    const DType real = is_complex(t.dtype()) ? complex_to_real(t.dtype()) : t.dtype();
    const double nan = ctx.real("nan", 0);
    const double posinf = ctx.real("posinf", largest(real));
    const double neginf = ctx.real("neginf", -largest(real));
    auto fix = [=](double x) {
      return std::isnan(x) ? nan : x == kInf ? posinf : x == -kInf ? neginf : x;
    };
    return same_dtype("nan_to_num", [fix](KernelContext&) {
      return Unary{identity_int, [fix](double x) { return R(fix(x)); },
                   [fix](Complex x) { return C(Complex(fix(x.real()), fix(x.imag()))); }};
    })(ctx);
  });
  // clamp_min(self, min) / clamp_max(self, max): the promoted dtype, as clamp.
  for (bool is_min : {true, false}) {
    r.add(is_min ? "aten.clamp_min" : "aten.clamp_max", [is_min](KernelContext& ctx) {
      Operand self = operand(ctx, "self"), bound = operand(ctx, is_min ? "min" : "max");
      if (!bound.present)
        ctx.bad_input(std::string("missing argument '") + (is_min ? "min" : "max") + "'");
      DType d = promoted({self, bound});
      if (is_complex(d)) ctx.bad_input("clamp is not supported for complex types");
      return RValue::of(map({self.t, bound.t}, d, d, [d, is_min](const Args& v) {
        if (scalar_kind(d) == Kind::Float) {
          double x = v[0].f, b = v[1].f;
          if (std::isnan(x) || std::isnan(b)) return R(kNaN);
          return R(is_min ? std::max(x, b) : std::min(x, b));
        }
        return I(is_min ? std::max(v[0].as_int(), v[1].as_int())
                        : std::min(v[0].as_int(), v[1].as_int()));
      }));
    });
  }
  // dropout(input, p, train) / dropout_(self, p, train): the input itself unless training with
  // p > 0; a Bernoulli(1 - p) mask scaled by 1 / (1 - p) otherwise (zeros for p == 1).
  r.add("aten.dropout", [](KernelContext& ctx) {
    Tensor t = ctx.tensor(ctx.declares("input") ? "input" : "self");
    double p = ctx.real("p", 0.5);
    require_probability(ctx, p);
    bool train = ctx.boolean("train", true) && !ctx.eval_mode();
    if (!train || p == 0 || t.numel() == 0) return RValue::of(t);
    const double scale = p == 1 ? 0 : 1 / (1 - p);
    std::mt19937_64& rng = ctx.rng();
    const DType d = t.dtype();
    return RValue::of(map1(t, d, d, [&rng, p, scale](const Scalar& x) {
      bool keep = p < 1 && keep_draw(rng, 1 - p);
      if (x.kind == Kind::Complex) return C(keep ? x.c * scale : Complex(0, 0));
      return R(keep ? x.as_double() * scale : 0.0);
    }));
  });
  // native_dropout(input, p, train): (output, mask); not training: (a copy, all true).
  r.add("aten.native_dropout", [](KernelContext& ctx) {
    Tensor t = ctx.tensor("input");
    double p = ctx.real("p", 0.5);
    require_probability(ctx, p);
    bool train = ctx.boolean("train", true) && !ctx.eval_mode();
    Tensor mask = Tensor::zeros(DType::Bool, t.sizes());
    if (!train) {
      for (int64_t i = 0; i < mask.numel(); ++i) mask.set_flat(i, B(true));
      return RValue::list({RValue::of(t.clone()), RValue::of(mask)});
    }
    const double keep = 1 - p, scale = keep == 0 ? 0 : 1 / keep;
    for (int64_t i = 0; i < mask.numel(); ++i) mask.set_flat(i, B(keep_draw(ctx.rng(), keep)));
    const DType d = t.dtype();
    Tensor out = map2(t, mask, d, d, [scale](const Scalar& x, const Scalar& m) {
      if (x.kind == Kind::Complex) return C(m.as_bool() ? x.c * scale : Complex(0, 0));
      return R(m.as_bool() ? x.as_double() * scale : 0.0);
    });
    return RValue::list({RValue::of(out), RValue::of(mask)});
  });
  // native_dropout_backward(grad_output, mask, scale): grad * mask * scale.
  r.add("aten.native_dropout_backward", [](KernelContext& ctx) {
    Tensor g = ctx.tensor("grad_output"), mask = ctx.tensor("mask");
    double scale = ctx.real("scale", 1);
    const DType d = g.dtype();
    return RValue::of(map2(g, mask, d, d, [scale](const Scalar& x, const Scalar& m) {
      if (x.kind == Kind::Complex) return C(m.as_bool() ? x.c * scale : Complex(0, 0));
      return R(m.as_bool() ? x.as_double() * scale : 0.0);
    }));
  });

  // ---- unary ops computing in floating point ----
  using std::numbers::pi;
  r.add("aten.exp",
        floating(
            "exp", [](double x) { return std::exp(x); }, [](Complex z) { return std::exp(z); }));
  r.add("aten.exp2", floating(
                         "exp2", [](double x) { return std::exp2(x); },
                         [](Complex z) { return std::pow(Complex(2, 0), z); }));
  r.add("aten.expm1", floating(
                          "expm1", [](double x) { return std::expm1(x); },
                          [](Complex z) { return std::exp(z) - 1.0; }));
  r.add("aten.log",
        floating(
            "log", [](double x) { return std::log(x); }, [](Complex z) { return std::log(z); }));
  r.add("aten.log2", floating(
                         "log2", [](double x) { return std::log2(x); },
                         [](Complex z) { return std::log(z) / std::log(2.0); }));
  r.add("aten.log10", floating(
                          "log10", [](double x) { return std::log10(x); },
                          [](Complex z) { return std::log10(z); }));
  r.add("aten.log1p", floating(
                          "log1p", [](double x) { return std::log1p(x); },
                          [](Complex z) { return std::log(1.0 + z); }));
  r.add("aten.sqrt",
        floating(
            "sqrt", [](double x) { return std::sqrt(x); }, [](Complex z) { return std::sqrt(z); }));
  r.add("aten.rsqrt", floating(
                          "rsqrt", [](double x) { return 1 / std::sqrt(x); },
                          [](Complex z) { return 1.0 / std::sqrt(z); }));
  r.add("aten.sin",
        floating(
            "sin", [](double x) { return std::sin(x); }, [](Complex z) { return std::sin(z); }));
  r.add("aten.cos",
        floating(
            "cos", [](double x) { return std::cos(x); }, [](Complex z) { return std::cos(z); }));
  r.add("aten.tan",
        floating(
            "tan", [](double x) { return std::tan(x); }, [](Complex z) { return std::tan(z); }));
  r.add("aten.asin",
        floating(
            "asin", [](double x) { return std::asin(x); }, [](Complex z) { return std::asin(z); }));
  r.add("aten.acos",
        floating(
            "acos", [](double x) { return std::acos(x); }, [](Complex z) { return std::acos(z); }));
  r.add("aten.atan",
        floating(
            "atan", [](double x) { return std::atan(x); }, [](Complex z) { return std::atan(z); }));
  r.add("aten.sinh",
        floating(
            "sinh", [](double x) { return std::sinh(x); }, [](Complex z) { return std::sinh(z); }));
  r.add("aten.cosh",
        floating(
            "cosh", [](double x) { return std::cosh(x); }, [](Complex z) { return std::cosh(z); }));
  r.add("aten.tanh",
        floating(
            "tanh", [](double x) { return std::tanh(x); }, [](Complex z) { return std::tanh(z); }));
  r.add("aten.asinh", floating(
                          "asinh", [](double x) { return std::asinh(x); },
                          [](Complex z) { return std::asinh(z); }));
  r.add("aten.acosh", floating(
                          "acosh", [](double x) { return std::acosh(x); },
                          [](Complex z) { return std::acosh(z); }));
  r.add("aten.atanh", floating(
                          "atanh", [](double x) { return std::atanh(x); },
                          [](Complex z) { return std::atanh(z); }));
  r.add("aten.sigmoid", floating("sigmoid", sigmoid, complex_sigmoid));
  r.add("aten.erf", floating("erf", [](double x) { return std::erf(x); }));
  r.add("aten.erfc", floating("erfc", [](double x) { return std::erfc(x); }));
  r.add("aten.erfinv", floating("erfinv", erfinv));
  r.add("aten.reciprocal",
        floating(
            "reciprocal", [](double x) { return 1 / x; }, [](Complex z) { return 1.0 / z; }));
  // gelu(self, *, approximate='none' | 'tanh').
  r.add("aten.gelu", [](KernelContext& ctx) {
    std::string approximate = ctx.string("approximate", "none");
    if (approximate != "none" && approximate != "tanh") {
      ctx.fail("approximate argument must be either none or tanh, got '" + approximate + "'");
    }
    if (approximate == "tanh") {
      return floating("gelu", [](double x) {
        const double k = std::sqrt(2 / pi);
        return 0.5 * x * (1 + std::tanh(k * (x + 0.044715 * x * x * x)));
      })(ctx);
    }
    return floating(
        "gelu", [](double x) { return 0.5 * x * (1 + std::erf(x / std::numbers::sqrt2)); })(ctx);
  });
  r.add("aten.silu", floating(
                         "silu", [](double x) { return x * sigmoid(x); },
                         [](Complex z) { return z * complex_sigmoid(z); }));
  r.add("aten.mish", floating("mish", [](double x) { return x * std::tanh(softplus(x)); }));
  r.add("aten.hardswish", floating("hardswish", [](double x) {
          return x * std::min(std::max(x + 3, 0.0), 6.0) / 6;
        }));
  r.add("aten.hardsigmoid",
        floating("hardsigmoid", [](double x) { return std::min(std::max(x + 3, 0.0), 6.0) / 6; }));
  // softplus(self, beta=1, threshold=20): linear above threshold / beta.
  r.add("aten.softplus", [](KernelContext& ctx) {
    double beta = ctx.real("beta", 1), threshold = ctx.real("threshold", 20);
    return floating("softplus", [beta, threshold](double x) {
      return x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta;
    })(ctx);
  });
  // logit(self, eps=None): log(z / (1 - z)), z clamped to [eps, 1 - eps] when eps is given.
  r.add("aten.logit", [](KernelContext& ctx) {
    bool has_eps = ctx.has("eps");
    double eps = ctx.real("eps", 0);
    return floating("logit", [has_eps, eps](double x) {
      double z = has_eps ? (x < eps ? eps : x > 1 - eps ? 1 - eps : x) : x;
      return std::log(z / (1 - z));
    })(ctx);
  });
  r.add("aten.log_sigmoid", floating("log_sigmoid", [](double x) {
          return std::min(x, 0.0) - std::log1p(std::exp(-std::fabs(x)));
        }));
  r.add("aten.digamma", floating("digamma", digamma));
  r.add("aten.lgamma", floating("lgamma", [](double x) { return std::lgamma(x); }));
  r.add("aten.sinc", floating("sinc", [](double x) {
          if (x == 0) return 1.0;
          double y = pi * x;
          return std::sin(y) / y;
        }));

  // ---- predicates: bool results ----
  auto predicate = [&r](const std::string& op, std::function<bool(int64_t)> i,
                        std::function<bool(double)> f, std::function<bool(Complex)> c) {
    r.add("aten." + op, pointwise(kSelf, Out::Bool, [op, i, f, c](KernelContext& ctx, DType d) {
            Unary u{[i](int64_t x) { return B(i(x)); }, [f](double x) { return B(f(x)); }, nullptr};
            if (c) u.c = [c](Complex x) { return B(c(x)); };
            return unary_fn(ctx, op, d, u);
          }));
  };
  auto either = [](bool (*f)(double)) {
    return [f](Complex z) { return f(z.real()) || f(z.imag()); };
  };
  predicate(
      "isnan", [](int64_t) { return false; }, [](double x) { return std::isnan(x); },
      either([](double x) -> bool { return std::isnan(x); }));
  predicate(
      "isinf", [](int64_t) { return false; }, [](double x) { return std::isinf(x); },
      either([](double x) -> bool { return std::isinf(x); }));
  predicate(
      "isfinite", [](int64_t) { return true; }, [](double x) { return std::isfinite(x); },
      [](Complex z) { return std::isfinite(z.real()) && std::isfinite(z.imag()); });
  predicate(
      "isposinf", [](int64_t) { return false; }, [](double x) { return x == kInf; }, nullptr);
  predicate(
      "isneginf", [](int64_t) { return false; }, [](double x) { return x == -kInf; }, nullptr);
  predicate(
      "signbit", [](int64_t x) { return x < 0; }, [](double x) { return std::signbit(x); },
      nullptr);
  predicate(
      "logical_not", [](int64_t x) { return x == 0; }, [](double x) { return x == 0; },
      [](Complex z) { return z == Complex(0, 0); });
}

}  // namespace symshape::interp::kernels
