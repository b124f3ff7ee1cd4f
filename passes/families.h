// Internal: one registration function per file of passes; register_cleanup_passes (register.cc)
// calls them and names the pipelines.
#pragma once

#include "symshape/passes.h"

namespace symshape::passes {

void register_dce_cse(PassRegistry& r);          // dce_cse.cc: dce, cse
void register_identity_passes(PassRegistry& r);  // identity.cc: remove-dropout, remove-noop, ...
void register_shape_passes(
    PassRegistry& r);  // shape_arith.cc: fold-shape-arith, remove-assert, ...
void register_structure_passes(PassRegistry& r);    // structure.cc: fold-transpose-pairs, ...
void register_rewrite_pass(PassRegistry& r);        // subgraph_rewriter.cc: rewrite
void register_complex_passes(PassRegistry& r);      // complex.cc: complex-rewrite
void register_decompose_passes(PassRegistry& r);    // decompose.cc: decompose and the fusions
void register_autocast_passes(PassRegistry& r);     // autocast.cc: autocast
void register_functionalize_pass(PassRegistry& r);  // functionalize.cc: functionalize

}  // namespace symshape::passes
