// Helpers shared by the tests of ShapeEnv in tests/env/.
#pragma once

#include <string>
#include <vector>

#include "symshape/shape_env.h"

namespace symshape::env_test {

// The source of the i-th size of the input x: `L['x'].size()[i]`.
inline std::string source(int i) { return "L['x'].size()[" + std::to_string(i) + "]"; }

// The guards `env` recorded, as text, in order.
inline std::vector<std::string> guard_strings(const ShapeEnv& env) {
  std::vector<std::string> out;
  for (const Guard& g : env.guards()) out.push_back(g.cond.str());
  return out;
}

}  // namespace symshape::env_test
