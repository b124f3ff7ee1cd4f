// Shared by the graph's renderings and the JSON writer: how a double is written.
#pragma once

#include <string>

namespace symshape::detail {

// The shortest text that reads back as the same double, always with a fraction or an exponent so
// that it reads back as a float (`1.0`, `0.1`, `1e-05`); `inf`, `-inf` and `nan` otherwise.
std::string float_text(double v);

}  // namespace symshape::detail
