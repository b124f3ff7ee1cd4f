// Runs the shape rules over a graph, in order, under one ShapeEnv.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symshape/ir.h"
#include "symshape/ops.h"
#include "symshape/shape_env.h"

namespace symshape {

struct PropagateOptions {
  // Overrides of the graph's dim declarations (the CLI's --dim NAME=MIN..MAX).
  std::map<std::string, DimDecl> dims;
  // Skip nodes whose op has no rule (their outputs must carry declared metadata).
  bool skip_unknown_ops = false;
  // The shape rules to use; nullptr: OpRegistry::instance().
  const OpRegistry* registry = nullptr;
  // Values for placeholders, by name, used instead of their declared metadata (a subgraph's
  // values from its enclosing graph). Their declared shapes create no symbols.
  std::map<std::string, Value, std::less<>> inputs;
};

struct Propagation {
  enum class Status { Ok, ShapeError, InputError };
  Status status = Status::Ok;
  std::string error;          // the message when status != Ok
  std::vector<Value> values;  // one per node, in graph order (None after an error)
  size_t failed_node = 0;     // index of the node that failed
  bool ok() const { return status == Status::Ok; }
};

// Creates the graph's symbols (named dims from placeholders' and get_attrs' shapes, with ranges
// and hints from the dim declarations), then runs every node's shape rule and checks any declared
// metadata against the result. Never throws.
Propagation propagate(const Graph& graph, ShapeEnv& env, const PropagateOptions& options = {});

// The elements of a get_attr's constant (its `value`, nested lists of numbers or booleans) when
// the node has one with at most max_elements numbers; nullptr otherwise, or when the lists do
// not match the declared shape.
std::shared_ptr<const KnownData> constant_data(const Node& node, size_t max_elements = 4096);

// A declared dim's example value when it gives none: 8 moved into [max(min, 2), max], so that a
// default never lands on the specialized sizes 0 and 1.
Int default_hint(const DimDecl& d);

// The source PyTorch prints for a placeholder's size: L['x'].size()[0]. The name is written as
// a Python string literal (python_string_literal), whatever bytes it holds.
std::string size_source(const std::string& input, size_t dim);
std::string stride_source(const std::string& input, size_t dim);

// `text` as a Python string literal that evaluates to it, in single quotes and ASCII only: a
// quote, a backslash, a line break or any other control character is escaped, other non-ASCII
// characters become \xNN, \uNNNN or \UNNNNNNNN, and a byte that is not UTF-8 becomes its
// surrogateescape code point \udcNN (so `s.encode('utf-8', 'surrogateescape')` gives the bytes
// back).
std::string python_string_literal(std::string_view text);

}  // namespace symshape
