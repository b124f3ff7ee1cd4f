// Internal: the argument validation of the complex ops (the real FFTs), shared by their shape
// rules (symshape/ops/complex.cc) and their kernels (symshape/interp/complex.cc). See checks.h.
#pragma once

#include <algorithm>

#include "symshape/ops/validate/checks.h"

namespace symshape::validate {

// The FFT dims of _fft_r2c / _fft_c2r over a tensor of `rank` dims (at least one): constants,
// normalized, distinct and at least one; the normalization mode is 0 (none), 1 (by 1/sqrt(n))
// or 2 (by 1/n).
template <class Ctx>
std::vector<size_t> fft_dims(const Ctx& ctx, size_t rank, const std::string& op) {
  if (rank == 0) ctx.bad_input(op + ": expects a tensor of at least one dim");
  std::vector<size_t> dims;
  for (const auto& e : ctx.int_list("dim")) {
    const std::optional<int64_t> v = constant_of(e);
    if (!v) ctx.bad_input(op + ": dim must be constants, got " + text(e));
    const size_t d = ctx.normalize_dim(*v, rank);
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) {
      ctx.bad_input(op + ": dim " + std::to_string(d) + " appears twice");
    }
    dims.push_back(d);
  }
  if (dims.empty()) ctx.bad_input(op + ": needs at least one dim");
  const std::optional<int64_t> norm = constant_of(simplified(ctx, ctx.integer("normalization")));
  if (!norm) ctx.bad_input(op + ": normalization must be a constant");
  if (*norm < 0 || *norm > 2) ctx.bad_input(op + ": normalization must be 0, 1 or 2");
  return dims;
}

}  // namespace symshape::validate
