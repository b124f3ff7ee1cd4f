// Reading and propagating a graph, as every graph subcommand does it.
#include <iostream>
#include <time.h>

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

std::string read_all(std::streambuf& in) {
  constexpr std::streamsize kBlock = 1 << 16;
  std::string text;
  size_t size = 0;
  while (true) {
    text.resize(size + kBlock);  // the string's capacity grows geometrically
    const std::streamsize got = in.sgetn(text.data() + size, kBlock);
    if (got <= 0) break;
    size += static_cast<size_t>(got);
  }
  text.resize(size);
  return text;
}

std::string read_stdin() {
  std::string s = read_all(*std::cin.rdbuf());
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
  const bool from_stdin = path == "-";
  Expected<Graph> graph = from_stdin ? read_graph(read_stdin()) : read_graph_file(path);
  if (!graph) throw Error(from_stdin ? "<stdin>: " + graph.error() : graph.error());
  // A reference to an undefined node is the file's error too: it gets the file's prefix, as
  // every other read error does (an ONNX model's reader checks this itself).
  if (std::optional<std::string> problem = verify(*graph))
    throw Error((from_stdin ? std::string("<stdin>") : path) + ": " + *problem);
  return std::move(*graph);
}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

LoadedGraph load_and_propagate(const std::string& path, const std::vector<std::string>& dim_specs,
                               ShapeEnvOptions env_options) {
  const double start = cpu_seconds();
  Graph graph = read_graph_arg(path);
  const double read = cpu_seconds();
  PropagateOptions options = dim_overrides(graph, dim_specs);
  if (onnx::is_onnx_graph(graph)) {
    options.registry = &onnx::registry();
    // An ONNX model's dims come without example sizes: the default hints are guesses.
    env_options.hints_are_guesses = true;
  }
  LoadedGraph loaded{std::move(graph), std::make_unique<ShapeEnv>(env_options), {}};
  loaded.read_seconds = read - start;
  const double before_propagate = cpu_seconds();
  loaded.result = propagate(loaded.graph, *loaded.env, options);
  loaded.propagate_seconds = cpu_seconds() - before_propagate;
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
