// `symshape infer MODEL.onnx -o OUT.onnx [--dim NAME=MIN..MAX]...`: propagate an ONNX model's
// shapes and write them into a copy of the model (value_info and graph outputs).
#include <fstream>
#include <iostream>
#include <sstream>

#include "symshape/onnx.h"
#include "tools/cli.h"

namespace symshape::cli {

namespace {

constexpr FlagSpec kInferFlags[] = {
    {"--output", "OUT.onnx", "where to write the model (`-` for stdout); also -o"},
    {"--dim", "NAME=MIN..MAX", "the range of a dim_param (the guards then hold over it)"},
    {"--quiet", "", "print nothing on success"},
};

void print_infer_usage(std::ostream& os) {
  os << "usage: symshape infer MODEL.onnx -o OUT.onnx [--dim NAME=MIN..MAX]... [--quiet]\n\n"
        "Propagates the model's shapes and writes a copy of it with every computed value's\n"
        "dtype and shape in its value_info, and the graph outputs' types replaced by the ones\n"
        "symshape computed. A constant dim is a dim_value; a symbolic one a dim_param holding\n"
        "its expression over the inputs' dim_params (`batch`, `2*seq`, `(H - 1)//2 + 1`).\n"
        "A graph input's dim with neither value nor name is named as symshape names it\n"
        "(`x_dim2`), so the expressions read the input's own names. Prints each graph\n"
        "output's shape.\n"
        "Exit status: 0 ok, 1 when the model has a shape error (nothing is written), 2 on bad\n"
        "input (not an ONNX model, an unsupported op, a bad flag).\n\n"
     << format_flags(kInferFlags);
}

std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw Error(path + ": cannot read");
  return bytes.str();
}

}  // namespace

int run_infer(const Args& raw) {
  Args args;
  for (const std::string& a : raw) args.push_back(a == "-o" ? "--output" : a);
  ParsedArgs parsed = parse_flags(args, kInferFlags);
  if (parsed.help) {
    print_infer_usage(std::cout);
    return kExitOk;
  }
  expect_positionals(parsed, 1, "MODEL.onnx");
  const std::string& path = parsed.positional[0];
  if (!is_onnx_path(path))
    throw UsageError("infer reads ONNX models (a .onnx file), not " + quote(path));
  if (!parsed.has("--output")) throw UsageError("infer needs -o OUT.onnx (`-o -` for stdout)");
  if (parsed.all("--output").size() > 1) throw UsageError("-o is given twice");
  const std::string& output = parsed.all("--output")[0];
  if (!onnx::import_available()) throw Error(onnx::read_model_file(path).error());

  const std::string bytes = read_file_bytes(path);
  Expected<Graph> graph = onnx::read_model(bytes, path);
  if (!graph) throw Error(graph.error());
  PropagateOptions options = dim_overrides(*graph, parsed.all("--dim"));
  options.registry = &onnx::registry();
  ShapeEnv env;
  const Propagation result = propagate(*graph, env, options);
  if (!result.ok()) {
    print_error(result.error);
    return exit_code(result.status);
  }
  Expected<std::string> written = onnx::write_inferred(bytes, *graph, result, env);
  if (!written) throw Error(path + ": " + written.error());

  if (output == "-") {
    std::cout << *written;
    std::cout.flush();
    if (!std::cout.good()) throw Error("cannot write the model to standard output");
    return kExitOk;
  }
  {
    std::ofstream out(output, std::ios::binary);
    if (out) out << *written;
    if (!out.good()) throw Error("cannot write " + quote(output));
  }
  if (parsed.has("--quiet")) return kExitOk;
  // The graph outputs, as written.
  for (const Node& n : graph->nodes) {
    if (n.op != NodeOp::Output || n.args.empty()) continue;
    for (const Arg& a : n.args[0].items) {
      if (a.kind != Arg::Kind::Node) continue;
      const size_t k = graph->index_of(a.text);
      if (k >= result.values.size()) continue;
      Value v = result.values[k];
      if (v.is_tensor()) {
        for (Expr& e : v.tensor.sizes) e = env.simplify(e);
        v.tensor.strides.clear();
      }
      std::cout << a.text << ": " << v.str() << "\n";
    }
  }
  std::cout << "wrote " << output << "\n";
  return kExitOk;
}

}  // namespace symshape::cli
