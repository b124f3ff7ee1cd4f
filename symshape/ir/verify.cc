// The structural verifier: what every graph must satisfy before shape rules or passes see it.
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "symshape/ir.h"

namespace symshape {

namespace {

std::string in_quotes(std::string_view s) { return "'" + std::string(s) + "'"; }

class Verifier {
 public:
  explicit Verifier(const Graph& g) : g_(g) {}

  std::optional<std::string> run() {
    // Every name's first definition, so that a reference to a later node can be told apart from
    // a reference to no node at all.
    first_.reserve(g_.nodes.size());
    for (size_t i = 0; i < g_.nodes.size(); ++i) first_.emplace(g_.nodes[i].name, i);

    std::optional<size_t> output;
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      // Spelled out only for a message (most graphs have none).
      auto where = [&] {
        return n.name.empty() ? "node " + std::to_string(i) : "node " + in_quotes(n.name);
      };
      if (n.name.empty()) return where() + ": empty name";
      size_t first = first_.at(n.name);
      if (first != i) {
        return where() + ": duplicate name (node " + std::to_string(first) + " has it too)";
      }
      if (auto problem = check_node(n, i)) return where() + ": " + *problem;
      if (n.op == NodeOp::Output) {
        if (output)
          return where() + ": a second output node (the first is " +
                 in_quotes(g_.nodes[*output].name) + ")";
        output = i;
      }
    }
    if (!output) return std::string("the graph has no output node");
    if (*output + 1 != g_.nodes.size()) {
      return "node " + in_quotes(g_.nodes[*output].name) +
             ": the output node must be the last node (it is followed by " +
             in_quotes(g_.nodes[*output + 1].name) + ")";
    }
    return std::nullopt;
  }

 private:
  std::optional<std::string> check_node(const Node& n, size_t index) const {
    const std::string_view kind = to_string(n.op);
    switch (n.op) {
      case NodeOp::Placeholder:
      case NodeOp::GetAttr:
        if (n.op == NodeOp::GetAttr && n.target.empty()) {
          return "a get_attr needs a target (the attribute's path)";
        }
        if (!n.dtype) return "a " + std::string(kind) + " needs a dtype";
        if (!n.shape) return "a " + std::string(kind) + " needs a shape";
        break;
      case NodeOp::CallFunction:
        if (n.target.empty()) return std::string("a call_function needs a target");
        break;
      case NodeOp::Output:
        if (n.args.size() != 1) {
          return "an output node takes exactly one argument, got " + std::to_string(n.args.size());
        }
        break;
    }
    if (n.shape) {
      for (size_t d = 0; d < n.shape->size(); ++d) {
        std::optional<Int> c = (*n.shape)[d].constant();
        if (c && *c < 0)
          return "shape[" + std::to_string(d) + "] is negative (" + to_string(*c) + ")";
      }
    }
    if (n.stride) {
      // PyTorch has no negative strides (a flip copies), nor does the interpreter.
      for (size_t d = 0; d < n.stride->size(); ++d) {
        std::optional<Int> c = (*n.stride)[d].constant();
        if (c && *c < 0)
          return "stride[" + std::to_string(d) + "] is negative (" + to_string(*c) + ")";
      }
    }
    for (size_t i = 0; i < n.args.size(); ++i) {
      if (auto p = check_refs(n.args[i], index)) return "arg " + std::to_string(i) + *p;
    }
    for (const auto& [k, a] : n.kwargs) {
      if (auto p = check_refs(a, index)) return "kwarg " + in_quotes(k) + *p;
    }
    return std::nullopt;
  }

  // The first bad node reference inside a, as the rest of a message: `[2] refers to ...`.
  std::optional<std::string> check_refs(const Arg& a, size_t index) const {
    if (a.kind == Arg::Kind::Node) {
      auto it = first_.find(a.text);
      if (it == first_.end()) return " refers to " + in_quotes(a.text) + ", which is not defined";
      if (it->second >= index) {
        return " refers to " + in_quotes(a.text) + " before it is defined (a cycle or wrong order)";
      }
      return std::nullopt;
    }
    if (a.kind == Arg::Kind::List) {
      for (size_t i = 0; i < a.items.size(); ++i) {
        if (auto p = check_refs(a.items[i], index)) return "[" + std::to_string(i) + "]" + *p;
      }
    }
    return std::nullopt;
  }

  const Graph& g_;
  std::unordered_map<std::string_view, size_t> first_;
};

}  // namespace

std::optional<std::string> verify(const Graph& g) { return Verifier(g).run(); }

}  // namespace symshape
