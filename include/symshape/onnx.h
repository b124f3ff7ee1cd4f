// ONNX models: reading a ModelProto into the graph IR, the shape rules of ONNX's operators, and
// writing the inferred shapes back into a model.
//
// An imported graph is an ordinary Graph: graph inputs are placeholders (a `dim_param` is a
// named dim, a dim with neither value nor param a fresh one), initializers and Constant nodes are
// get_attrs whose small values are kept, and each ONNX node is a call_function whose target is
// `onnx.<OpType>` (`<domain>.<OpType>` outside the default domain), whose args are its inputs
// and whose kwargs are its attributes. Every value keeps its ONNX name: a node with one output is
// named by it; one with several outputs yields a list, taken apart by `operator.getitem` nodes
// named by the outputs. Propagate it under onnx::registry().
#pragma once

#include <string>
#include <string_view>

#include "symshape/expr.h"
#include "symshape/ir.h"
#include "symshape/ops.h"
#include "symshape/propagate.h"
#include "symshape/shape_env.h"

namespace symshape::onnx {

// The standard (ATen) rules plus one rule per supported ONNX operator.
const OpRegistry& registry();

// Whether the graph was read from an ONNX model (its rules are registry()'s).
bool is_onnx_graph(const Graph& graph);

// Whether this build can read ONNX models (it was built with libonnx and protobuf).
bool import_available();

struct ImportOptions {
  // Keep the values of integer initializers and constants of at most this many elements (shape
  // computations read them) and of floating ones of at most 64 (Resize's scales).
  size_t max_int_constant = 4096;
};

// Reads a serialized ModelProto. `origin` names it in messages (a path).
Expected<Graph> read_model(std::string_view bytes, const std::string& origin,
                           const ImportOptions& options = {});
Expected<Graph> read_model_file(const std::string& path, const ImportOptions& options = {});

// The model `bytes` with the shapes `propagation` computed for `graph` (read from those bytes)
// written into its graph outputs and value_info: constant dims as dim_value, symbolic ones as a
// dim_param holding the expression under the env's replacements (`batch`, `2*seq`).
Expected<std::string> write_inferred(std::string_view bytes, const Graph& graph,
                                     const Propagation& propagation, ShapeEnv& env);

}  // namespace symshape::onnx
