// Helpers shared by the tests of symshape/prove.h in tests/prove/.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "symshape/expr.h"

namespace symshape::prove_test {

// The condition `text`, which must parse (a failed expectation and `true` when it does not).
inline Cond C(const std::string& text) {
  Expected<Cond> c = parse_cond(text);
  EXPECT_TRUE(c.ok()) << text << ": " << c.error();
  return c.ok() ? c.value() : Cond::truth(true);
}

}  // namespace symshape::prove_test
