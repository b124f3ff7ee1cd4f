// Reading and propagating a graph, as every graph subcommand does it.
#include <iostream>
#include <sstream>

#include "symshape/onnx.h"
#include "tools/cli.h"

namespace symshape::cli {

PropagateOptions dim_overrides(const Graph& graph, const std::vector<std::string>& dim_specs) {
  PropagateOptions options;
  for (const std::string& spec : dim_specs) {
    auto [name, range] = parse_range_spec(spec);
    expect_dim_of(graph, "--dim", name);
    if (!options.dims.emplace(name, DimDecl{range.lo(), range.hi(), std::nullopt}).second)
      throw UsageError("--dim " + quote(name) + " is given twice");
  }
  // A --dim keeps the graph's hint for that dim.
  for (auto& [name, decl] : options.dims) {
    if (const DimDecl* d = graph.dim(name)) decl.hint = d->hint;
    if (decl.hint && !ValueRange(decl.min, decl.max).contains(*decl.hint)) decl.hint.reset();
  }
  return options;
}

std::string read_stdin() {
  std::ostringstream text;
  text << std::cin.rdbuf();
  std::string s = text.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

bool is_onnx_path(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

Graph read_graph_arg(const std::string& path) {
  if (is_onnx_path(path)) {
    Expected<Graph> graph = onnx::read_model_file(path);
    if (!graph) throw Error(graph.error());
    return std::move(*graph);
  }
  if (path != "-") {
    Expected<Graph> graph = read_graph_file(path);
    if (!graph) throw Error(graph.error());
    return std::move(*graph);
  }
  Expected<Graph> graph = read_graph(read_stdin());
  if (!graph) throw Error("<stdin>: " + graph.error());
  return std::move(*graph);
}

LoadedGraph load_and_propagate(const std::string& path, const std::vector<std::string>& dim_specs,
                               ShapeEnvOptions env_options) {
  Graph graph = read_graph_arg(path);
  PropagateOptions options = dim_overrides(graph, dim_specs);
  if (onnx::is_onnx_graph(graph)) {
    options.registry = &onnx::registry();
    // An ONNX model's dims come without example sizes: the default hints are guesses.
    env_options.hints_are_guesses = true;
  }
  LoadedGraph loaded{std::move(graph), std::make_unique<ShapeEnv>(env_options), {}};
  loaded.result = propagate(loaded.graph, *loaded.env, options);
  return loaded;
}

int exit_code(Propagation::Status status) {
  switch (status) {
    case Propagation::Status::Ok: return kExitOk;
    case Propagation::Status::ShapeError: return kExitShapeError;
    case Propagation::Status::InputError: return kExitBadInput;
  }
  return kExitBadInput;
}

}  // namespace symshape::cli
