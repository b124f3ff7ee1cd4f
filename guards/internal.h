// Internal to guards/: name mangling, guard normalization, and the lowered form of an
// expression that the compiled checker and the C++ printer share.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symshape/expr.h"
#include "symshape/ranges.h"

namespace symshape::guards {

// A name made into part of a C identifier: every character that is not a letter or digit
// becomes `_` (an input `x.1` gives the source identifier `L_x_1_size_0_`).
std::string mangle(std::string_view text);

// `k*X op 0` with a constant k becomes `X op' 0` (the form the env records divisibility in,
// `4*(a % 4) == 0`, prints as `a % 4 == 0`).
// Also reduces a multiple-of test (see reduce_multiple).
Cond normalize(const Cond& c);
// `(a*x + b) % k == 0` with the coefficients reduced modulo k and their common factor with k
// divided out; other conditions unchanged.
Cond reduce_multiple(const Cond& c);

// The values of the symbol `name` that c allows when c bounds it alone (`name <= 512`,
// `3 < name`, `name == 4`); nullopt for anything else.
std::optional<ValueRange> lone_bound(const Cond& c, const std::string& name);

// An integer expression as a tree of plain operations: what GiNaC keeps as sums, products,
// natural powers, exact quotients and function nodes, spelled out.
struct Lowered {
  enum class Op { Const, Var, Add, Mul, Neg, FloorDiv, Mod, Max, Min, Pow };
  Op op = Op::Const;
  Int value;         // Const; Pow: the exponent, a natural number above kMaxUnrolledPower
  std::string name;  // Var: the symbol
  std::vector<Lowered> args;
};

// Powers up to this exponent are spelled out as products; larger ones stay a Pow of args[0].
inline constexpr int64_t kMaxUnrolledPower = 64;

// Throws Error for what has no integer meaning (a non-natural power).
Lowered lower(const Expr& e);

}  // namespace symshape::guards
