// Internal: one registration function per op family (each in its own file), and the helpers the
// families share. Static registrars would be dropped by the linker from a static library, so the
// registry calls these explicitly.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "symshape/ops.h"

namespace symshape::ops {

void register_elementwise(OpRegistry& r);  // elementwise.cc: arithmetic, comparisons, activations
void register_reductions(OpRegistry& r);   // reductions.cc: sum, mean, amax, softmax, ...
void register_linalg(OpRegistry& r);       // linalg.cc: mm, bmm, matmul, addmm, linear, einsum
void register_conv_pool(OpRegistry& r);    // conv_pool.cc: convolution, pooling
void register_norm(OpRegistry& r);         // norm.cc: batch, layer and group norm; attention
void register_views(OpRegistry& r);        // views.cc: view, reshape, permute, slice, cat, ...
void register_indexing(OpRegistry& r);     // indexing.cc: index, gather, scatter, embedding
void register_creation(OpRegistry& r);     // creation.cc: empty, zeros, arange, casts
void register_complex(OpRegistry& r);      // complex.cc: view_as_real, polar, ...
void register_data_dependent(OpRegistry& r);  // data_dependent.cc: nonzero, item, unique
void register_symbolic(OpRegistry& r);        // symbolic.cc: sym_size, operator.*, asserts
void register_collectives(OpRegistry& r);     // collectives.cc: all_reduce, all_gather, ...
void register_structured(OpRegistry& r);  // structured.cc: tril, diagonal, unfold, one_hot, cdist

// ---- shared helpers (common.cc) ----

// Strides of a fresh tensor shaped like t under the call's memory_format argument: contiguous,
// channels_last (rank 4) / channels_last_3d (rank 5), or preserve (the default): t's strides
// when stored and none is a broadcast 0, else contiguous. (creation.cc)
std::vector<Expr> memory_format_strides(const OpContext& ctx, const TensorMeta& t);

// The broadcast of two shapes (PyTorch rules), deciding each `size == 1` and `a == b` through
// the context; a mismatch fails naming both shapes and the dim.
std::vector<Expr> broadcast_shapes(const OpContext& ctx, const std::vector<Expr>& a,
                                   const std::vector<Expr>& b);
// A tensor's metadata with contiguous strides.
TensorMeta contiguous(DType dtype, std::vector<Expr> sizes);
// "[s0, 4]"
std::string shape_str(const std::vector<Expr>& sizes);
// The strides PyTorch's TensorIterator gives the output of an elementwise op: `inputs` are its
// tensor operands in call order (the first decides ties), `shape` their broadcast shape, and
// `scalar_operand` says a wrapped number or 0-dim tensor is among the operands (which rules out
// the same-shape fast path). All inputs contiguous (or channels_last, rank 4) and of the output's
// shape: that layout. Otherwise the dims are ordered by the operands' strides (broadcast dims
// not deciding, equal strides going to the smaller size) and the output is dense in that order.
// Comparisons of symbolic strides are decided statically only: the layout never adds a guard,
// and a comparison that cannot be decided tells nothing (the operand is passed over).
std::vector<Expr> elementwise_strides(const OpContext& ctx,
                                      const std::vector<const TensorMeta*>& inputs,
                                      bool scalar_operand, const std::vector<Expr>& shape);
// The strides of t viewed with `shape` (PyTorch's computeStride): dims are merged or split only
// within chunks that are contiguous with each other (a size-1 dim of the view takes the stride
// of the chunk it falls in). nullopt when the view is impossible. (views.cc)
std::optional<std::vector<Expr>> view_strides(const OpContext& ctx, const TensorMeta& t,
                                              const std::vector<Expr>& shape);
// PyTorch's are_strides_like_channels_last (the Python one fake tensors use): a rank-4 (or 5)
// tensor whose channels dim is the fastest, then the spatial dims from the last, then the
// batch. Undecidable comparisons of symbolic strides count as not.
bool strides_like_channels_last(const OpContext& ctx, const TensorMeta& t);
// The channels_last (rank 4) / channels_last_3d (rank 5) strides of sizes.
std::vector<Expr> channels_last_strides(const OpContext& ctx, const std::vector<Expr>& sizes);
// The strides of torch.empty(sizes, memory_format=suggest_memory_format(t)): channels_last
// when t's strides are like it, else contiguous.
std::vector<Expr> suggested_format_strides(const OpContext& ctx, const TensorMeta& t,
                                           const std::vector<Expr>& sizes);
// PyTorch's is_non_overlapping_and_dense: some order of t's dims (size-1 dims aside) is
// contiguous. Decided statically (an undecidable comparison counts as not).
bool non_overlapping_and_dense(const OpContext& ctx, const TensorMeta& t);
// The strides of empty_like(t) (preserve_format), as clone and the like allocate: t's own when
// non-overlapping and dense, else dense in the order of t's strides (infer_dense_strides).
std::vector<Expr> empty_like_strides(const OpContext& ctx, const TensorMeta& t);
// The dims a reduction reduces: `dim` may be absent/empty (all dims), an int or a list;
// normalized, sorted, unique.
std::vector<size_t> reduction_dims(const OpContext& ctx, size_t rank);
// Sizes after reducing dims (kept as 1 when keepdim).
std::vector<Expr> reduce_shape(const std::vector<Expr>& sizes, const std::vector<size_t>& dims,
                               bool keepdim);
// The in-place form (`aten.add_`) of a functional rule: the result is written into self, so it
// must have self's shape (self is never broadcast) and a dtype castable to self's; it is self.
ShapeRule in_place(ShapeRule functional);
// The default float dtype an integer input computes in (float32), others unchanged.
DType to_floating(DType d);
// Why a requirement that is not statically false failed: ` at the example sizes batch = 2,
// seq = 5 (the op needs (batch*seq) % 3 == 0)`, the values it was decided at and the condition
// under which the op works. Appended to the message of a failure decided on the hints.
std::string at_the_hints(const OpContext& ctx, const Cond& cond);
// Requires cond: statically true passes, statically false fails with message (a ShapeError);
// otherwise a runtime assert when it involves data-dependent sizes, else a guard on the hints
// (failing with message and at_the_hints).
void require(const OpContext& ctx, const Cond& cond, std::string_view rule,
             const std::string& message);
// The same with the message built only on failure.
void require(const OpContext& ctx, const Cond& cond, std::string_view rule,
             const std::function<std::string()>& message);
// A backward op's bool[] output_mask (which grads to compute): all true when absent.
std::vector<bool> output_mask(const OpContext& ctx, size_t count);
// How many tensors an op returning a list (split, chunk, unbind) makes: n, refused as bad input
// beyond kMaxOutputs so that a huge size cannot make a rule build millions of values.
inline constexpr size_t kMaxOutputs = size_t{1} << 16;
size_t output_count(const OpContext& ctx, const Int& n, std::string_view op);

}  // namespace symshape::ops
