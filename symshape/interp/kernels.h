// Internal: one registration function per kernel family (mirroring symshape/ops/), and the
// helpers the families share (common.cc). The registry calls the registration functions
// explicitly (static registrars would be dropped by the linker from a static library).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "symshape/interp.h"

namespace symshape::interp::kernels {

void register_elementwise(KernelRegistry& r);     // elementwise.cc
void register_reductions(KernelRegistry& r);      // reductions.cc
void register_linalg(KernelRegistry& r);          // linalg.cc
void register_conv_pool(KernelRegistry& r);       // conv_pool.cc
void register_norm(KernelRegistry& r);            // norm.cc
void register_views(KernelRegistry& r);           // views.cc
void register_indexing(KernelRegistry& r);        // indexing.cc
void register_creation(KernelRegistry& r);        // creation.cc
void register_complex(KernelRegistry& r);         // complex.cc
void register_data_dependent(KernelRegistry& r);  // data_dependent.cc
void register_symbolic(KernelRegistry& r);        // symbolic.cc
void register_collectives(KernelRegistry& r);     // collectives.cc
void register_structured(KernelRegistry& r);      // structured.cc

// ---- shared helpers (common.cc) ----

// Python's floor division and modulo on int64 (the sign of the divisor); b == 0 throws Error.
int64_t floordiv(int64_t a, int64_t b);
int64_t mod(int64_t a, int64_t b);
// Python's float modulo (fmod adjusted to the divisor's sign).
double fmod_python(double a, double b);

// The dtype of a number argument for type promotion: bool, int64, float32 (the default float
// dtype), complex64.
DType scalar_dtype(const Scalar& s);
// PyTorch's result type of an op over tensors and numbers: tensors of higher category win over
// numbers; a number of a higher category (float over int tensor) gives that category's default
// (float32 / complex64); 0-dim tensors count as numbers unless every operand is 0-dim.
DType result_type(const std::vector<Tensor>& tensors, const std::vector<Scalar>& scalars);

// Elementwise map over tensors broadcast together: out[i] = f(inputs at i), each input cast to
// `compute` first; the result (contiguous, of the broadcast shape) is cast to `out`.
Tensor map(const std::vector<Tensor>& inputs, DType compute, DType out,
           const std::function<Scalar(const std::vector<Scalar>&)>& f);
Tensor map1(const Tensor& a, DType compute, DType out,
            const std::function<Scalar(const Scalar&)>& f);
Tensor map2(const Tensor& a, const Tensor& b, DType compute, DType out,
            const std::function<Scalar(const Scalar&, const Scalar&)>& f);

// The dims a reduction reduces (absent or empty: all), normalized, sorted, unique.
std::vector<size_t> reduction_dims(const KernelContext& ctx, size_t rank);
// Folds every group of elements that share their non-reduced indices: for each output position
// (sizes after reduction; a reduced dim is kept as 1 when keepdim), f receives the group's
// elements in row-major order and returns the output element. The result has dtype `out`.
Tensor reduce(const Tensor& t, const std::vector<size_t>& dims, bool keepdim, DType out,
              const std::function<Scalar(const std::vector<Scalar>&)>& f);

// Writes `result` into `self` (in-place ops): same shape required, values cast to self's dtype.
// Returns self.
Tensor write_into(const KernelContext& ctx, Tensor self, const Tensor& result);

}  // namespace symshape::interp::kernels
