// ONNX's neural-network operators: convolutions, pooling, normalization, Gemm and MatMul,
// Resize and Pad.
#include "symshape/onnx/rules.h"
#include "symshape/ops/families.h"

namespace symshape::onnx {

void add_nn_rules(OpRegistry&) {}

}  // namespace symshape::onnx
