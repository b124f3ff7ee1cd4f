// Helpers shared by the tests of symshape/ir.h in tests/ir/.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace symshape::ir_test {

// The contents of the file at `path` ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace symshape::ir_test
