// `symshape run GRAPH.json [--size NAME=N,N,...]... [--dim NAME=N]... [--seed N]
// [--world-size W] [--random-dims] [--print-values]`: run a graph in the reference interpreter
// on small concrete tensors and print each output's dtype, shape and checksum.
#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "symshape/interp.h"
#include "symshape/ir.h"
#include "tools/cli.h"

namespace symshape::cli {

namespace {

constexpr FlagSpec kRunFlags[] = {
    {"--size", "NAME=N,N,...", "the sizes of input NAME (binds the named dims in its shape)"},
    {"--dim", "NAME=N", "the value of a named dim"},
    {"--seed", "N", "the seed for generated inputs and constants (default 0)"},
    {"--world-size", "W", "ranks to simulate (default: the collectives' group size, else 1)"},
    {"--random-dims", "", "choose dims not given at random in their ranges (else their hints)"},
    {"--print-values", "", "also print the values of outputs with at most 64 elements"},
    {"--inputs", "DIR", "read input NAME from DIR/NAME.npy where that file exists"},
    {"--save", "DIR", "write each output tensor to DIR/NAME.npy (NAME: the output's node)"},
};

void print_run_usage(std::ostream& os) {
  os << "usage: symshape run GRAPH.json [--size NAME=N,N,...]... [--dim NAME=N]... [--seed N]\n"
        "                  [--world-size W] [--random-dims] [--print-values]\n\n"
        "Runs the graph in the reference interpreter on small CPU tensors. Inputs not given\n"
        "sizes and dims not given values take the graph's hints (or 8, moved into the dim's\n"
        "range); inputs and constants without a value are generated from the seed. Prints the\n"
        "dims used, then one line per output: its dtype, shape and checksum.\n"
        "Exit status: 0 when the graph ran, 1 when an op failed at run time (the node is named),\n"
        "2 on bad input (the file, a flag, sizes that do not fit the graph).\n\n"
     << format_flags(kRunFlags);
}

int64_t small_int(const Int& v, std::string_view what, int64_t lo, int64_t hi) {
  auto x = to_int64(v);
  if (!x || *x < lo || *x > hi) {
    throw UsageError(std::string(what) + " " + to_string(v) + " is out of range (" +
                     std::to_string(lo) + ".." + std::to_string(hi) + ")");
  }
  return *x;
}

int64_t parse_number(const std::string& text, std::string_view flag, int64_t lo, int64_t hi) {
  std::optional<Int> v = parse_int(text);
  if (!v) throw UsageError("bad value " + quote(text) + " for " + std::string(flag));
  return small_int(*v, flag, lo, hi);
}

// Numbers as short as they read back in the tensor's precision.
std::string number_text(const interp::Scalar& v, DType d) {
  auto real = [&](double x) {
    char buf[64];
    std::to_chars_result r;
    if (d == DType::Float64 || d == DType::Complex128) {
      r = std::to_chars(buf, buf + sizeof buf, x);
    } else {
      r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(x));
    }
    std::string s(buf, r.ptr);
    if (s.find_first_of(".en") == std::string::npos) s += ".0";  // 1 -> 1.0, not inf / nan
    return s;
  };
  switch (v.kind) {
    case interp::Scalar::Kind::Bool: return v.i ? "True" : "False";
    case interp::Scalar::Kind::Int: return std::to_string(v.i);
    case interp::Scalar::Kind::Float: return real(v.f);
    case interp::Scalar::Kind::Complex: {
      std::string im = real(v.c.imag());
      if (im[0] != '-') im = "+" + im;
      return "(" + real(v.c.real()) + im + "j)";
    }
  }
  return "?";
}

// Nested lists, as torch.Tensor.tolist() would print them.
std::string values_text(const interp::Tensor& t) {
  std::vector<interp::Scalar> vals = t.values();
  size_t next = 0;
  std::function<std::string(size_t)> level = [&](size_t dim) -> std::string {
    if (dim == t.rank()) return number_text(vals[next++], t.dtype());
    std::string s = "[";
    for (int64_t k = 0; k < t.sizes()[dim]; ++k) s += (k ? ", " : "") + level(dim + 1);
    return s + "]";
  };
  return level(0);
}

std::string checksum_text(const interp::Tensor& t) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, interp::checksum(t));
  return buf;
}

void print_value(std::ostream& os, const std::string& name, const interp::RValue& v,
                 bool print_values) {
  if (v.is_tensor()) {
    os << name << ": " << v.tensor.str() << " checksum " << checksum_text(v.tensor) << "\n";
    if (print_values && v.tensor.numel() <= 64) os << "  " << values_text(v.tensor) << "\n";
    return;
  }
  if (v.kind == interp::RValue::Kind::List) {
    for (size_t k = 0; k < v.items.size(); ++k) {
      print_value(os, name + "[" + std::to_string(k) + "]", v.items[k], print_values);
    }
    return;
  }
  os << name << ": " << v.str() << "\n";
}

// A node name as a file name in DIR: refused when it could name another folder.
std::string npy_path(const std::string& dir, const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    throw UsageError("the name " + quote(name) + " cannot be a file name in " + quote(dir));
  }
  return dir + "/" + name + ".npy";
}

// Inputs from DIR/NAME.npy, for every placeholder that has such a file; a file that names no
// placeholder is an error (a typo would otherwise be silently generated over).
void load_inputs(const Graph& graph, const std::string& dir, interp::RunOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw UsageError("--inputs: " + quote(dir) + " is no folder");
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".npy") continue;
    const std::string name = entry.path().stem().string();
    const Node* n = graph.find(name);
    if (!n || n->op != NodeOp::Placeholder) {
      throw UsageError("--inputs: " + quote(entry.path().string()) +
                       " names no input of the graph");
    }
    interp::Tensor t = interp::read_npy(entry.path().string());
    if (n->dtype && t.dtype() != *n->dtype) t = t.to(*n->dtype);
    options.inputs[name] = t;
  }
  if (ec) throw UsageError("--inputs: cannot list " + quote(dir) + ": " + ec.message());
}

// An output's tensors as DIR/NAME.npy (a list's items as NAME_0, NAME_1, ...).
void save_outputs(const std::string& dir, const std::string& name, const interp::RValue& v) {
  if (v.is_tensor()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    interp::write_npy(npy_path(dir, name), v.tensor);
  } else if (v.kind == interp::RValue::Kind::List) {
    for (size_t k = 0; k < v.items.size(); ++k)
      save_outputs(dir, name + "_" + std::to_string(k), v.items[k]);
  }
}

}  // namespace

int run_run(const Args& args) {
  ParsedArgs parsed = parse_flags(args, kRunFlags);
  if (parsed.help) {
    print_run_usage(std::cout);
    return kExitOk;
  }
  expect_positionals(parsed, 1, "GRAPH.json");
  interp::RunOptions options;
  for (const std::string& spec : parsed.all("--size")) {
    auto [name, values] = parse_int_list_spec(spec);
    std::vector<int64_t> sizes;
    for (const Int& v : values)
      sizes.push_back(small_int(v, "size", 0, interp::Tensor::kMaxElements));
    if (!options.sizes.emplace(name, sizes).second) {
      throw UsageError("--size given twice for " + quote(name));
    }
  }
  for (const std::string& spec : parsed.all("--dim")) {
    auto [name, value] = parse_binding(spec);
    if (!options.dims
             .emplace(name, small_int(value, "dim " + name, 0, interp::Tensor::kMaxElements))
             .second) {
      throw UsageError("--dim given twice for " + quote(name));
    }
  }
  if (parsed.has("--seed")) {
    options.seed =
        static_cast<uint64_t>(parse_number(parsed.all("--seed").back(), "--seed", 0, INT64_MAX));
  }
  if (parsed.has("--world-size")) {
    options.world_size = static_cast<size_t>(
        parse_number(parsed.all("--world-size").back(), "--world-size", 1, 1024));
  }
  options.random_dims = parsed.has("--random-dims");
  const bool print_values = parsed.has("--print-values");

  options.check_ranges = true;

  const Graph graph = read_graph_arg(parsed.positional[0]);
  // A name the graph does not have is a typo, never silently ignored.
  for (const auto& [name, v] : options.dims) expect_dim_of(graph, "--dim", name);
  const std::vector<std::string> inputs = graph_input_names(graph);
  for (const auto& [name, s] : options.sizes) {
    if (std::find(inputs.begin(), inputs.end(), name) == inputs.end()) {
      const std::vector<std::string> dims = graph_dim_names(graph);
      if (std::find(dims.begin(), dims.end(), name) != dims.end())
        throw UsageError("--size " + quote(name) + ": " + name + " is a dim: give --dim " + name +
                         "=N");
      throw UsageError("--size " + quote(name) + ": the graph has no input " + quote(name) +
                       did_you_mean(name, inputs));
    }
  }
  if (parsed.has("--inputs")) load_inputs(graph, parsed.all("--inputs").back(), options);
  interp::RunResult result = interp::run(graph, options);

  if (!result.ok) {
    std::cerr << "symshape: error: " << result.error << "\n";
    // An op failing on well-formed input is a run-time error (as `check`'s shape error); bad
    // input (an argument, the dims, the inputs) exits as `check` does for it.
    return result.input_error ? kExitBadInput : kExitShapeError;
  }
  // Nothing goes to stdout before the run succeeded.
  if (!result.dims.empty()) {
    std::cout << "dims:";
    for (const auto& [name, v] : result.dims) std::cout << " " << name << "=" << to_string(v);
    std::cout << "\n";
  }
  if (!result.ranks.empty()) {
    std::cout << "world size: " << result.ranks.size() << " (outputs of rank 0)\n";
  }
  const Node& output = graph.nodes.back();
  const interp::RValue& out = result.output();
  const std::string save_dir = parsed.has("--save") ? parsed.all("--save").back() : "";
  auto emit = [&](const std::string& name, const std::string& file, const interp::RValue& v) {
    print_value(std::cout, name, v, print_values);
    if (!save_dir.empty()) save_outputs(save_dir, file, v);
  };
  // The output node's argument is usually a list of node references: name each by its node.
  if (!output.args.empty() && output.args[0].kind == Arg::Kind::List &&
      out.kind == interp::RValue::Kind::List && out.items.size() == output.args[0].items.size()) {
    for (size_t k = 0; k < out.items.size(); ++k) {
      const Arg& a = output.args[0].items[k];
      const bool named = a.kind == Arg::Kind::Node;
      emit(named ? a.text : "output[" + std::to_string(k) + "]",
           named ? a.text : "output_" + std::to_string(k), out.items[k]);
    }
  } else {
    const std::string name = !output.args.empty() && output.args[0].kind == Arg::Kind::Node
                                 ? output.args[0].text
                                 : "output";
    emit(name, name, out);
  }
  return kExitOk;
}

}  // namespace symshape::cli
