// Registration of the decompose and the fusions pass(es); the passes themselves follow in the next commits.
#include "passes/families.h"

namespace symshape::passes {

void register_decompose_passes(PassRegistry& r) { (void)r; }

}  // namespace symshape::passes
