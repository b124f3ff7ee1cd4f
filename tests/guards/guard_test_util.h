// Test helpers for guards: a graph from JSON text, propagated and turned into a guard set.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "symshape/guards.h"
#include "symshape/propagate.h"

namespace symshape::testing {

struct Produced {
  Graph graph;
  std::unique_ptr<ShapeEnv> env;
  Propagation result;
  GuardSet set;

  std::vector<std::string> python_lines() const {
    std::vector<std::string> lines;
    std::istringstream in(print_python(set));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
  bool has_line(const std::string& line) const {
    for (const std::string& l : python_lines()) {
      if (l == line) return true;
    }
    return false;
  }
};

// `nodes` is the JSON list of nodes, `dims` the JSON object of dims.
inline Produced produce(const std::string& dims, const std::string& nodes,
                        const PropagateOptions& options = {}) {
  std::string text = R"({"format": "symshape-graph", "version": 1, "dims": )" + dims +
                     R"(, "nodes": )" + nodes + "}";
  Expected<Graph> g = read_graph(text);
  if (!g) throw std::runtime_error("bad test graph: " + g.error());
  Produced p{std::move(*g), std::make_unique<ShapeEnv>(), {}, {}};
  p.result = propagate(p.graph, *p.env, options);
  if (p.result.ok()) p.set = produce_guards(*p.env, graph_inputs(p.graph));
  return p;
}

// A placeholder node's JSON.
inline std::string input(const std::string& name, const std::string& shape,
                         const std::string& dtype = "float32") {
  return R"({"name": ")" + name + R"(", "op": "placeholder", "dtype": ")" + dtype +
         R"(", "shape": )" + shape + "}";
}

inline std::string call(const std::string& name, const std::string& target,
                        const std::string& args) {
  return R"({"name": ")" + name + R"(", "op": "call_function", "target": ")" + target +
         R"(", "args": )" + args + "}";
}

inline std::string output(const std::string& node) {
  return R"({"name": "output", "op": "output", "args": [[{"node": ")" + node + R"("}]]})";
}

inline std::string nodes(const std::vector<std::string>& items) {
  std::string s = "[";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
  return s + "]";
}

}  // namespace symshape::testing
