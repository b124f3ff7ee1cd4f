// `symshape run GRAPH.json [--size NAME=N,N,...]... [--dim NAME=N]... [--seed N]
// [--world-size W] [--random-dims] [--print-values]`: run a graph in the reference interpreter
// on small concrete tensors and print each output's dtype, shape and checksum. The steps
// (run_command.h) are shared with symshape-mpirun, which runs the same graph one rank per process.
#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>

#include "symshape/interp.h"
#include "symshape/ir.h"
#include "symshape/onnx.h"
#include "tools/cli.h"
#include "tools/run_command.h"

namespace symshape::cli {

namespace {

constexpr FlagSpec kRunFlags[] = {
    {"--size", "NAME=N,N,...", "the sizes of input NAME (binds the named dims in its shape)"},
    {"--dim", "NAME=N", "the value of a named dim"},
    {"--seed", "N", "the seed for generated inputs and constants (default 0)"},
    {"--world-size", "W", "ranks to simulate (default: the collectives' group size, else 1)"},
    {"--random-dims", "", "choose dims not given at random in their ranges (else their hints)"},
    {"--print-values", "", "also print the values of outputs with at most 64 elements"},
    {"--inputs", "DIR", "read input or constant NAME from DIR/NAME.npy where that file exists"},
    {"--save", "DIR", "write each output tensor to DIR/NAME.npy (NAME: the output's node)"},
    {"--save-ranks", "DIR", "write every rank's output tensors to DIR/rank<R>/NAME.npy"},
    {"--save-nodes", "DIR",
     "write every node's tensor value to DIR/NODE.npy (as --save names; not --inputs' files)"},
    {"--json", "", "print one JSON document instead of text"},
    {"--memory-budget", "BYTES",
     "the bytes the run's tensors may hold at once (default 8 GiB; 8 per element)"},
};

void print_run_usage(std::ostream& os) {
  os << "usage: symshape run GRAPH.json [--size NAME=N,N,...]... [--dim NAME=N]... [--seed N]\n"
        "                  [--world-size W] [--random-dims] [--print-values]\n"
        "                  [--inputs DIR] [--save DIR] [--save-ranks DIR] [--save-nodes DIR]\n"
        "                  [--json] [--memory-budget BYTES]\n\n"
        "Runs the graph in the reference interpreter on small CPU tensors. Inputs not given\n"
        "sizes and dims not given values take the graph's hints (or 8, moved into the dim's\n"
        "range); inputs and constants without a value are generated from the seed. Prints the\n"
        "dims used, then one line per output: its dtype, shape and checksum (--json: one JSON\n"
        "document with the dims, the outputs, the runtime asserts' outcomes and any error).\n"
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

// One number of a tensor for --json: a bool or an int as such, a finite float as the number the
// text prints (the shortest that reads back in the tensor's precision); nan, inf and complex
// numbers as the text prints them ("nan", "-inf", "(1.0-0.5j)").
nlohmann::ordered_json number_json(const interp::Scalar& v, DType d) {
  switch (v.kind) {
    case interp::Scalar::Kind::Bool: return v.i != 0;
    case interp::Scalar::Kind::Int: return v.i;
    case interp::Scalar::Kind::Float:
      if (std::isfinite(v.f)) return std::stod(number_text(v, d));
      return number_text(v, d);
    case interp::Scalar::Kind::Complex: return number_text(v, d);
  }
  return nullptr;
}

// The values as nested lists, as values_text prints them.
nlohmann::ordered_json values_json(const interp::Tensor& t) {
  std::vector<interp::Scalar> vals = t.values();
  size_t next = 0;
  std::function<nlohmann::ordered_json(size_t)> level = [&](size_t dim) {
    if (dim == t.rank()) return number_json(vals[next++], t.dtype());
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (int64_t k = 0; k < t.sizes()[dim]; ++k) list.push_back(level(dim + 1));
    return list;
  };
  return level(0);
}

// The entries print_value prints as lines, in the same order and with the same names.
void value_json(nlohmann::ordered_json& outputs, const std::string& name, const interp::RValue& v,
                bool print_values) {
  nlohmann::ordered_json e;
  e["name"] = name;
  switch (v.kind) {
    case interp::RValue::Kind::Tensor: {
      e["dtype"] = std::string(to_string(v.tensor.dtype()));
      e["shape"] = nlohmann::ordered_json::array();
      for (int64_t s : v.tensor.sizes()) e["shape"].push_back(s);
      e["checksum"] = checksum_text(v.tensor);
      if (print_values && v.tensor.numel() <= 64) e["values"] = values_json(v.tensor);
      break;
    }
    case interp::RValue::Kind::List:
      for (size_t k = 0; k < v.items.size(); ++k) {
        value_json(outputs, name + "[" + std::to_string(k) + "]", v.items[k], print_values);
      }
      return;
    case interp::RValue::Kind::Int: e["value"] = v.integer; break;
    case interp::RValue::Kind::Bool: e["value"] = v.truth; break;
    case interp::RValue::Kind::Float:
      e["value"] =
          std::isfinite(v.real) ? nlohmann::ordered_json(v.real) : nlohmann::ordered_json(v.str());
      break;
    case interp::RValue::Kind::None: e["value"] = nullptr; break;
  }
  outputs.push_back(std::move(e));
}

// aten._assert_scalar, aten._assert_async, aten._functional_assert_async, ...: the graph's
// runtime asserts, which `run` checks as it reaches them.
bool is_assert_node(const Node& n) {
  return n.op == NodeOp::CallFunction && (n.target.starts_with("aten._assert_") ||
                                          n.target.starts_with("aten._functional_assert_"));
}

// Each assert node and its outcome: "passed" (it ran and held), "failed" (the run stopped there)
// or "not_run" (the run stopped before it).
nlohmann::ordered_json asserts_json(const Graph& graph, const interp::RunResult& result) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& n = graph.nodes[i];
    if (!is_assert_node(n)) continue;
    // An error before any op ran (the dims, the inputs) has failed_node == nodes.size().
    const bool reached = result.ok || i <= result.failed_node;
    const char* outcome = !reached                              ? "not_run"
                          : result.ok || i < result.failed_node ? "passed"
                                                                : "failed";
    if (!result.ok && result.failed_node >= graph.nodes.size()) outcome = "not_run";
    list.push_back({{"node", n.name}, {"target", n.target}, {"outcome", outcome}});
  }
  return list;
}

// A node name as a file name in DIR: refused when it could name another folder.
std::string npy_path(const std::string& dir, const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    throw UsageError("the name " + quote(name) + " cannot be a file name in " + quote(dir));
  }
  return dir + "/" + name + ".npy";
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

// Every node's value (rank 0's) as DIR/NODE.npy, a list's items as NODE_0, NODE_1, ...: the
// generated inputs, constants and ops that ran (after a failure, the nodes before it). Inputs
// read from --inputs are not written again (the caller has those files); the output node is left
// out (its items are nodes saved under their own names); non-tensor values are not written.
void save_node_values(const std::string& dir, const RunPlan& plan,
                      const interp::RunResult& result) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("--save-nodes: cannot create " + quote(dir) + ": " + ec.message());
  const Graph& graph = plan.graph;
  const size_t count = std::min(graph.nodes.size(), result.values.size());
  for (size_t i = 0; i < count; ++i) {
    const Node& n = graph.nodes[i];
    if (n.op == NodeOp::Output) continue;
    if (n.op == NodeOp::Placeholder && plan.options.inputs.count(n.name)) continue;
    save_outputs(dir, n.name, result.values[i]);
  }
}

// Calls emit(name, file, value) for each of the graph's outputs. The output node's argument is
// usually a list of node references: each is named by its node (file: the name for --save).
void for_each_output(const Graph& graph, const interp::RValue& out,
                     const std::function<void(const std::string&, const std::string&,
                                              const interp::RValue&)>& emit) {
  const Node& output = graph.nodes.back();
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
}

}  // namespace

// Inputs from DIR/NAME.npy, for every placeholder or constant (get_attr: a model's parameters
// and buffers) that has such a file; a file that names neither is an error (a typo would
// otherwise be silently generated over). `flag` names the flag in errors.
std::map<std::string, interp::Tensor> read_input_files(const Graph& graph, const std::string& dir,
                                                       const std::string& flag) {
  std::map<std::string, interp::Tensor> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw UsageError(flag + ": " + quote(dir) + " is no folder");
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".npy") continue;
    const std::string name = entry.path().stem().string();
    const Node* n = graph.find(name);
    if (!n || (n->op != NodeOp::Placeholder && n->op != NodeOp::GetAttr)) {
      throw UsageError(flag + ": " + quote(entry.path().string()) +
                       " names no input or constant of the graph");
    }
    interp::Tensor t = interp::read_npy(entry.path().string());
    if (n->dtype && t.dtype() != *n->dtype) t = t.to(*n->dtype);
    out[name] = t;
  }
  if (ec) throw UsageError(flag + ": cannot list " + quote(dir) + ": " + ec.message());
  return out;
}

std::string run_flags_help() { return format_flags(kRunFlags); }

std::optional<RunPlan> plan_run(const Args& args, void (*usage)(std::ostream&)) {
  ParsedArgs parsed = parse_flags(args, kRunFlags);
  if (parsed.help) {
    usage(std::cout);
    return std::nullopt;
  }
  expect_positionals(parsed, 1, "GRAPH.json");
  RunPlan plan;
  interp::RunOptions& options = plan.options;
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
  if (parsed.has("--memory-budget")) {
    options.memory_budget =
        parse_number(parsed.all("--memory-budget").back(), "--memory-budget", 1, INT64_MAX);
  }
  options.random_dims = parsed.has("--random-dims");
  plan.print_values = parsed.has("--print-values");
  plan.json = parsed.has("--json");
  if (parsed.has("--save")) plan.save_dir = parsed.all("--save").back();
  if (parsed.has("--save-ranks")) plan.save_ranks_dir = parsed.all("--save-ranks").back();
  if (parsed.has("--save-nodes")) plan.save_nodes_dir = parsed.all("--save-nodes").back();

  options.check_ranges = true;

  plan.graph = read_graph_arg(parsed.positional[0]);
  const Graph& graph = plan.graph;
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
  if (parsed.has("--inputs"))
    options.inputs = read_input_files(graph, parsed.all("--inputs").back(), "--inputs");
  return plan;
}

void save_rank_outputs(const RunPlan& plan, const interp::RunResult& result) {
  if (plan.save_ranks_dir.empty() || !result.ok) return;
  auto save = [&](size_t rank, const std::vector<interp::RValue>& values) {
    if (values.empty()) return;
    const std::string dir = plan.save_ranks_dir + "/rank" + std::to_string(rank);
    for_each_output(plan.graph, values.back(),
                    [&](const std::string&, const std::string& file, const interp::RValue& v) {
                      save_outputs(dir, file, v);
                    });
  };
  if (result.ranks.empty()) {
    save(result.rank, result.values);
  } else {
    for (size_t r = 0; r < result.ranks.size(); ++r) save(r, result.ranks[r]);
  }
}

int report_run(const RunPlan& plan, const interp::RunResult& result) {
  const Graph& graph = plan.graph;
  const bool print_values = plan.print_values;
  // An op failing on well-formed input is a run-time error (as `check`'s shape error); bad
  // input (an argument, the dims, the inputs) exits as `check` does for it.
  const int failure_code = result.input_error ? kExitBadInput : kExitShapeError;
  if (!plan.save_nodes_dir.empty()) save_node_values(plan.save_nodes_dir, plan, result);
  if (plan.json) {
    // As `check --json`: the document holds the error, and nothing goes to stderr.
    nlohmann::ordered_json doc;
    doc["status"] = result.ok ? "ok" : result.input_error ? "input_error" : "runtime_error";
    doc["dims"] = nlohmann::ordered_json::object();
    for (const auto& [name, v] : result.dims) doc["dims"][name] = int_json(v);
    doc["world_size"] = result.world_size;
    doc["outputs"] = nlohmann::ordered_json::array();
    if (result.ok) {
      for_each_output(
          graph, result.output(),
          [&](const std::string& name, const std::string& file, const interp::RValue& v) {
            value_json(doc["outputs"], name, v, print_values);
            if (!plan.save_dir.empty()) save_outputs(plan.save_dir, file, v);
          });
      save_rank_outputs(plan, result);
    }
    doc["runtime_asserts"] = asserts_json(graph, result);
    doc["error"] =
        result.ok ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(result.error);
    print_json(std::cout, doc);
    return result.ok ? kExitOk : failure_code;
  }

  if (!result.ok) {
    std::cerr << "symshape: error: " << result.error << "\n";
    return failure_code;
  }
  // Nothing goes to stdout before the run succeeded.
  if (!result.dims.empty()) {
    std::cout << "dims:";
    for (const auto& [name, v] : result.dims) std::cout << " " << name << "=" << to_string(v);
    std::cout << "\n";
  }
  if (result.world_size > 1) {
    std::cout << "world size: " << result.world_size << " (outputs of rank 0)\n";
  }
  for_each_output(graph, result.output(),
                  [&](const std::string& name, const std::string& file, const interp::RValue& v) {
                    print_value(std::cout, name, v, print_values);
                    if (!plan.save_dir.empty()) save_outputs(plan.save_dir, file, v);
                  });
  save_rank_outputs(plan, result);
  return kExitOk;
}

int run_run(const Args& args) {
  std::optional<RunPlan> plan = plan_run(args, print_run_usage);
  if (!plan) return kExitOk;
  if (onnx::is_onnx_graph(plan->graph)) {
    // ONNX's ops have no kernels (yet): say which one stops the run before generating inputs.
    const interp::KernelRegistry& kernels = interp::KernelRegistry::instance();
    for (const Node& n : plan->graph.nodes) {
      if (n.op == NodeOp::CallFunction && n.target != "operator.getitem" &&
          kernels.find(n.target) == nullptr) {
        throw Error("cannot run " + quote(n.name) + ": no kernel for " + n.target +
                    " (symshape runs ONNX models' shapes only: use `symshape check`)");
      }
    }
  }
  return report_run(*plan, interp::run(plan->graph, plan->options));
}

}  // namespace symshape::cli
