// ONNX's reductions, data-dependent operators (NonZero, TopK, Unique) and control flow (If,
// Loop, Scan).
#include "symshape/onnx/rules.h"
#include "symshape/ops/families.h"

namespace symshape::onnx {

void add_misc_rules(OpRegistry&) {}

}  // namespace symshape::onnx
