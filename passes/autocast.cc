// Registration of the autocast pass(es); the passes themselves follow in the next commits.
#include "passes/families.h"

namespace symshape::passes {

void register_autocast_passes(PassRegistry& r) { (void)r; }

}  // namespace symshape::passes
