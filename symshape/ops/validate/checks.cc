// Message text of the shared argument validation (checks.h).
#include <limits>

#include "symshape/ops/validate/checks.h"

namespace symshape::validate {

std::string text(__int128 v) {
  if (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max()) {
    return v < 0 ? "a number below int64" : "a number beyond int64";
  }
  return std::to_string(static_cast<int64_t>(v));
}

std::string text(const std::vector<int64_t>& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

std::string text(const std::vector<__int128>& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + text(sizes[i]);
  return s + "]";
}

}  // namespace symshape::validate
