// --verify-numerics: the reference interpreter as the judge of a pass.
#pragma once

#include <cstdint>

#include "symshape/interp.h"
#include "symshape/passes.h"

namespace symshape::passes {

// Runs `before` and `after` in the reference interpreter at the hints and at up to two more
// values of each named dim inside its range (values every guard of env accepts), with the same
// inputs (`given` where it names one, copied for a graph that writes in place, else generated
// from seed; a size at which a given tensor does not fit is skipped, as is any size at which
// `before` does not run), and compares their outputs: exact for integers and bools, within the
// pass's relative tolerance for floats (for the pass's options). Throws PassError naming the first
// output that differs, with the dims of the run, or saying that `before` runs at no size on the
// given inputs. Returns the number of runs compared.
size_t compare_numerics(const Graph& before, const Graph& after, const ShapeEnv& env,
                        const Pass& pass, const std::map<std::string, std::string>& options,
                        uint64_t seed, int64_t memory_budget,
                        const std::map<std::string, interp::Tensor>& given = {});

}  // namespace symshape::passes
