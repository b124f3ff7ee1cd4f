// Helpers shared by the tests of symshape/propagate.h in tests/propagate/.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace symshape::propagate_test {

// The contents of the file at `path` ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace symshape::propagate_test
