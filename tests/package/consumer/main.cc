// Uses the installed library as an embedding compiler would: read a graph, propagate its
// symbolic shapes, print the guards as Python, and prove a fact about the sizes.
#include <iostream>

#include "symshape/guards.h"
#include "symshape/ir.h"
#include "symshape/propagate.h"
#include "symshape/shape_env.h"

int main() {
  const char* json = R"({"format": "symshape-graph", "version": 1,
    "dims": {"batch": {"min": 2, "max": 64, "hint": 8}},
    "nodes": [
      {"name": "x", "op": "placeholder", "dtype": "float32", "shape": ["batch", 6]},
      {"name": "r", "op": "call_function", "target": "aten.reshape.default",
       "args": [{"node": "x"}, [-1, 2, 3]]},
      {"name": "output", "op": "output", "args": [{"node": "r"}]}]})";
  symshape::Expected<symshape::Graph> graph = symshape::read_graph(json);
  if (!graph) {
    std::cerr << graph.error() << "\n";
    return 1;
  }
  symshape::ShapeEnv env;
  symshape::Propagation p = symshape::propagate(*graph, env);
  if (!p.ok()) {
    std::cerr << p.error << "\n";
    return 1;
  }
  std::cout << "output: " << p.values.back().tensor.str() << "\n";
  // prints: output: float32[batch, 2, 3]
  symshape::GuardSet guards = symshape::produce_guards(env, symshape::graph_inputs(*graph));
  std::cout << "guards:\n" << symshape::print_python(guards);
  return 0;
}
