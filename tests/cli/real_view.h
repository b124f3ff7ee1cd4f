// The real view of a complex tensor, computed in the test from its elements (not by the library
// whose lowering the tests check): shared by the complex-rewrite and MPI CLI tests.
#pragma once

#include <cstdint>
#include <vector>

#include "symshape/interp.h"

namespace symshape::cli_test {

// [..., 2] holding the real and imaginary parts.
inline interp::Tensor real_view(const interp::Tensor& t) {
  std::vector<int64_t> sizes = t.sizes();
  sizes.push_back(2);
  interp::Tensor out = interp::Tensor::zeros(
      t.dtype() == DType::Complex128 ? DType::Float64 : DType::Float32, sizes);
  for (int64_t i = 0; i < t.numel(); ++i) {
    out.set_flat(2 * i, interp::Scalar::of_float(t.flat(i).as_complex().real()));
    out.set_flat(2 * i + 1, interp::Scalar::of_float(t.flat(i).as_complex().imag()));
  }
  return out;
}

}  // namespace symshape::cli_test
