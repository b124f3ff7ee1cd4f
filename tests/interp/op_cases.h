// Op cases for the shape property test (shape_property_test.cc): each family's kernel test file
// defines its family's function, next to its hand-computed kernel tests.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tests/ops/op_test_util.h"

namespace symshape::testing {

struct OpCase {
  std::string name;           // unique, e.g. "add.broadcast"
  std::vector<Input> inputs;  // symbolic shapes over named dims: {"x", F32, {"a","b"}}
  std::vector<Call> calls;    // the last call is the graph's output
  std::vector<std::pair<std::string, DimDecl>> dims = {};  // optional ranges/hints
};

// The case `name`: target(x, args...) on one input x of the given shape and dtype.
inline OpCase case_on(const std::string& name, std::vector<std::string> shape,
                      const std::string& target, std::vector<Arg> args, Kwargs kwargs = {},
                      DType dtype = DType::Float32) {
  std::vector<Arg> all = {T("x")};
  all.insert(all.end(), args.begin(), args.end());
  return {name,
          {Input{"x", dtype, std::move(shape)}},
          {{"op", target, std::move(all), std::move(kwargs)}}};
}

std::vector<OpCase> elementwise_cases();     // elementwise_kernels_test.cc
std::vector<OpCase> reductions_cases();      // reductions_kernels_test.cc
std::vector<OpCase> complex_cases();         // complex_kernels_test.cc
std::vector<OpCase> views_cases();           // views_kernels_test.cc
std::vector<OpCase> indexing_cases();        // indexing_kernels_test.cc
std::vector<OpCase> linalg_cases();          // linalg_kernels_test.cc
std::vector<OpCase> conv_pool_cases();       // conv_pool_kernels_test.cc
std::vector<OpCase> norm_cases();            // norm_kernels_test.cc
std::vector<OpCase> creation_cases();        // creation_kernels_test.cc
std::vector<OpCase> symbolic_cases();        // symbolic_kernels_test.cc
std::vector<OpCase> data_dependent_cases();  // data_dependent_kernels_test.cc
std::vector<OpCase> collectives_cases();     // collectives_kernels_test.cc
std::vector<OpCase> structured_cases();      // structured_kernels_test.cc
std::vector<OpCase> coverage_cases();        // coverage_kernels_test.cc

}  // namespace symshape::testing
