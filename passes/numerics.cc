// --verify-numerics: the same inputs through the graph before and after a pass, compared.
#include <algorithm>
#include <cmath>

#include "passes/numerics.h"
#include "symshape/interp.h"

namespace symshape::passes {

namespace {

using interp::RValue;
using interp::Scalar;
using interp::Tensor;

// The dims to run at: the hints (an empty map), then for each named backed symbol two other
// values inside its range that every guard accepts with the other symbols at their hints.
std::vector<std::map<std::string, int64_t>> run_dims(const ShapeEnv& env) {
  std::vector<std::map<std::string, int64_t>> out{{}};
  Bindings hints;
  for (const SymbolInfo& s : env.symbols()) {
    if (s.kind == SymbolKind::Backed && s.hint) hints[s.name] = *s.hint;
  }
  auto accepted = [&](const Bindings& b) {
    try {
      for (const Guard& g : env.guards()) {
        if (!symshape::evaluate(g.cond, b)) return false;
      }
      return true;
    } catch (const Error&) {
      return false;
    }
  };
  for (const SymbolInfo& s : env.symbols()) {
    if (s.kind != SymbolKind::Backed || !s.hint) continue;
    const Expr sym = Expr::symbol(s.name);
    if (!env.substitute(sym).identical(sym)) continue;  // replaced: follows another symbol
    const std::optional<int64_t> hint = to_int64(*s.hint);
    if (!hint) continue;
    const ValueRange range = env.facts().range_of(s.name);
    std::vector<int64_t> candidates{2, 3, 4, 5, 6, 7, *hint - 1, *hint + 1, *hint / 2, 2 * *hint};
    size_t taken = 0;
    std::vector<int64_t> seen{*hint};
    for (int64_t v : candidates) {
      if (taken == 2) break;
      if (std::find(seen.begin(), seen.end(), v) != seen.end()) continue;
      seen.push_back(v);
      if (!range.contains(Int(v))) continue;
      Bindings b = hints;
      b[s.name] = Int(v);
      if (!accepted(b)) continue;
      out.push_back({{s.name, v}});
      ++taken;
    }
  }
  return out;
}

// The relative tolerance a half-precision result needs whatever the pass: rounding each step to
// 8 (bfloat16) or 11 (float16) significant bits, a pass that reorders or splits steps moves a
// result by an ulp or two, which the next ops carry on. These are torch.testing's defaults for the
// two dtypes (rtol 1.6e-2 and 1e-3).
double rounding_tolerance(DType d) {
  switch (d) {
    case DType::BFloat16: return 1.6e-2;
    case DType::Float16: return 1e-3;
    default: return 0;
  }
}

bool close(double a, double b, double tolerance) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::abs(a - b) <= tolerance * std::max({1.0, std::abs(a), std::abs(b)});
}

bool same_scalar(const Scalar& a, const Scalar& b, double tolerance) {
  if (a.kind == Scalar::Kind::Complex || b.kind == Scalar::Kind::Complex) {
    return close(a.as_complex().real(), b.as_complex().real(), tolerance) &&
           close(a.as_complex().imag(), b.as_complex().imag(), tolerance);
  }
  if (a.kind == Scalar::Kind::Float || b.kind == Scalar::Kind::Float) {
    return close(a.as_double(), b.as_double(), tolerance);
  }
  return a.as_int() == b.as_int();
}

std::string scalar_text(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::Bool: return s.i ? "true" : "false";
    case Scalar::Kind::Int: return std::to_string(s.i);
    case Scalar::Kind::Float: return std::to_string(s.f);
    case Scalar::Kind::Complex:
      return "(" + std::to_string(s.c.real()) + ", " + std::to_string(s.c.imag()) + ")";
  }
  return "?";
}

// Empty when equal; else what differs, prefixed by where.
std::string difference(const RValue& a, const RValue& b, const std::string& where,
                       double tolerance) {
  if (a.kind != b.kind) return where + ": " + a.str() + " before, " + b.str() + " after";
  switch (a.kind) {
    case RValue::Kind::Tensor: {
      if (a.tensor.dtype() != b.tensor.dtype() || a.tensor.sizes() != b.tensor.sizes()) {
        return where + ": " + a.tensor.str() + " before, " + b.tensor.str() + " after";
      }
      const double within = std::max(tolerance, rounding_tolerance(a.tensor.dtype()));
      for (int64_t i = 0; i < a.tensor.numel(); ++i) {
        Scalar x = a.tensor.flat(i), y = b.tensor.flat(i);
        if (!same_scalar(x, y, within)) {
          return where + ", element " + std::to_string(i) + ": " + scalar_text(x) + " before, " +
                 scalar_text(y) + " after";
        }
      }
      return "";
    }
    case RValue::Kind::Int:
      return a.integer == b.integer ? ""
                                    : where + ": " + std::to_string(a.integer) + " before, " +
                                          std::to_string(b.integer) + " after";
    case RValue::Kind::Float:
      return close(a.real, b.real, tolerance)
                 ? ""
                 : where + ": " + a.str() + " before, " + b.str() + " after";
    case RValue::Kind::Bool:
      return a.truth == b.truth ? "" : where + ": " + a.str() + " before, " + b.str() + " after";
    case RValue::Kind::List: {
      if (a.items.size() != b.items.size()) {
        return where + ": " + a.str() + " before, " + b.str() + " after";
      }
      for (size_t i = 0; i < a.items.size(); ++i) {
        std::string d =
            difference(a.items[i], b.items[i], where + "[" + std::to_string(i) + "]", tolerance);
        if (!d.empty()) return d;
      }
      return "";
    }
    case RValue::Kind::None: return "";
  }
  return "";
}

// A complex tensor's real view: [..., 2] (real, imaginary), contiguous.
Tensor real_view(const Tensor& t) {
  std::vector<int64_t> sizes = t.sizes();
  sizes.push_back(2);
  Tensor out =
      Tensor::zeros(t.dtype() == DType::Complex128 ? DType::Float64 : DType::Float32, sizes);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const auto c = t.flat(i).as_complex();
    out.set_flat(2 * i, Scalar::of_float(c.real()));
    out.set_flat(2 * i + 1, Scalar::of_float(c.imag()));
  }
  return out;
}

// What complex-rewrite recorded in the graph after the pass and not before: the unpacked
// inputs (new name -> original name) and the outputs now given as real views.
struct ComplexIo {
  std::vector<std::pair<std::string, std::string>> inputs;
  std::vector<size_t> outputs;
};

ComplexIo new_complex_io(const Graph& before, const Graph& after) {
  ComplexIo io;
  if (before.extra.contains("complex_io") || !after.extra.contains("complex_io")) return io;
  const auto& j = after.extra["complex_io"];
  for (const auto& in : j.value("inputs", nlohmann::ordered_json::array()))
    io.inputs.emplace_back(in.value("name", ""), in.value("original", ""));
  for (const auto& out : j.value("outputs", nlohmann::ordered_json::array()))
    io.outputs.push_back(out.get<size_t>());
  return io;
}

// The output of `before` as the graph after a complex rewrite gives it: the listed complex
// outputs as real views.
RValue as_rewritten(RValue out, const ComplexIo& io) {
  for (size_t i : io.outputs) {
    RValue& v = out.kind == RValue::Kind::List ? out.items.at(i) : out;
    if (v.is_tensor() && is_complex(v.tensor.dtype())) v = RValue::of(real_view(v.tensor));
  }
  return out;
}

// The given tensors that name an input or constant of g (a pass may drop an unused constant or
// replace an input, as complex-rewrite does).
std::map<std::string, Tensor> inputs_of(const Graph& g,
                                        const std::map<std::string, Tensor>& given) {
  std::map<std::string, Tensor> out;
  for (const auto& [name, t] : given) {
    const Node* n = g.find(name);
    if (n && (n->op == NodeOp::Placeholder || n->op == NodeOp::GetAttr)) out.emplace(name, t);
  }
  return out;
}

// Whether a run of g may write into a given tensor: some op of it writes in place (its target
// `op_`, or an `out=` variant). The interpreter hands a given input to the graph as it is, so
// such a run gets copies, and every run starts from the same values.
bool may_write_inputs(const Graph& g) {
  for (const Node& n : g.nodes) {
    if (n.op != NodeOp::CallFunction) continue;
    const TargetName t = parse_target(n.target);
    if (t.in_place || t.overload.starts_with("out")) return true;
    for (const auto& [key, value] : n.kwargs)
      if (key == "out") return true;
  }
  return false;
}

std::map<std::string, Tensor> copied(const std::map<std::string, Tensor>& inputs) {
  std::map<std::string, Tensor> out;
  for (const auto& [name, t] : inputs) out.emplace(name, t.clone());
  return out;
}

std::string dims_text(const std::map<std::string, int64_t>& dims) {
  if (dims.empty()) return "at the hints";
  std::string out = "with";
  for (const auto& [k, v] : dims) out += " " + k + "=" + std::to_string(v);
  return out;
}

}  // namespace

// The inputs and constants of g alone: a run of it gives them as the interpreter generates them
// for g (each from the seed and its name), before g writes into any of them in place.
Graph inputs_alone(const Graph& g) {
  Graph h;
  h.dims = g.dims;
  h.extra = g.extra;
  for (const Node& n : g.nodes) {
    if (n.op == NodeOp::Placeholder || n.op == NodeOp::GetAttr) h.nodes.push_back(n);
  }
  Node out;
  out.name = "output";
  out.op = NodeOp::Output;
  out.args.push_back(Arg::list({}));
  h.nodes.push_back(std::move(out));
  return h;
}

size_t compare_numerics(const Graph& before, const Graph& after, const ShapeEnv& env,
                        const Pass& pass, const std::map<std::string, std::string>& options,
                        uint64_t seed, int64_t memory_budget,
                        const std::map<std::string, Tensor>& given) {
  const std::string name(pass.name());
  const ComplexIo io = new_complex_io(before, after);
  const double tolerance = pass.tolerance(options);
  const std::map<std::string, Tensor> inputs_before = inputs_of(before, given);
  const std::map<std::string, Tensor> inputs_after = inputs_of(after, given);
  const bool writes_before = may_write_inputs(before), writes_after = may_write_inputs(after);
  size_t runs = 0;
  std::optional<Bindings> at_hints;  // the dims of the run at the hints
  std::string failure_at_hints;      // why the graph before did not run there
  for (const auto& dims : run_dims(env)) {
    // Given inputs bind their dims: a size they bind to the value the run at the hints had is
    // that run again.
    if (at_hints && std::all_of(dims.begin(), dims.end(), [&](const auto& d) {
          auto it = at_hints->find(d.first);
          return it != at_hints->end() && it->second == Int(d.second);
        })) {
      continue;
    }
    interp::RunOptions options;
    options.dims = dims;
    options.seed = seed;
    options.eval_mode = pass.numerics_in_eval_mode();
    options.memory_budget = memory_budget;
    options.inputs = writes_before ? copied(inputs_before) : inputs_before;
    interp::RunResult a = interp::run(before, options);
    // A graph the memory budget cannot hold cannot be verified: say so, naming the tensor (as
    // `run` does), rather than pass unverified.
    if (a.over_budget) {
      throw PassError(
          name, "",
          "--verify-numerics cannot run the graph before it " + dims_text(dims) + ": " + a.error);
    }
    // A size at which the graph before the pass cannot run (a runtime assert fails) says
    // nothing about the pass.
    if (!a.ok) {
      if (dims.empty()) failure_at_hints = a.error;
      continue;
    }
    if (dims.empty()) at_hints = a.dims;
    // After complex-rewrite, the unpacked inputs are the real views of the ones before. Given
    // inputs are the same on every rank, so both graphs then run with rank 0's values given.
    interp::RunOptions after_options = options;
    after_options.inputs = writes_after ? copied(inputs_after) : inputs_after;
    if (!io.inputs.empty()) {
      interp::RunOptions originals = options;
      originals.inputs = writes_before ? copied(inputs_before) : inputs_before;
      // A graph that writes into its inputs returns them written: their values before the run
      // come from a run of the inputs alone.
      const Graph probe = inputs_alone(before);
      const interp::RunResult in = interp::run(probe, originals);
      if (!in.ok) continue;
      for (const auto& [name, original] : io.inputs) {
        size_t k = probe.index_of(original);
        if (k < in.values.size() && in.values[k].is_tensor()) {
          originals.inputs[original] = in.values[k].tensor;
          after_options.inputs[name] = real_view(in.values[k].tensor);
        }
      }
      if (!a.ranks.empty()) a = interp::run(before, originals);
      if (!a.ok) continue;
    }
    interp::RunResult b = interp::run(after, after_options);
    if (!b.ok) {
      throw PassError(name, "",
                      "the graph after it fails to run " + dims_text(dims) +
                          " where it ran before: " + b.error);
    }
    std::string d = difference(as_rewritten(a.output(), io), b.output(), "output", tolerance);
    if (!d.empty()) {
      throw PassError(name, "", "changed the numbers " + dims_text(dims) + ": " + d);
    }
    ++runs;
  }
  // Given inputs are the numbers to check the pass on: that the graph runs on none of them is
  // an error in them (sizes that fit no dim, a wrong dtype), not a pass verified.
  if (runs == 0 && !inputs_before.empty()) {
    throw PassError(name, "",
                    "--verify-numerics: the graph before it does not run on the given inputs" +
                        (failure_at_hints.empty() ? std::string()
                                                  : " (at the hints: " + failure_at_hints + ")"));
  }
  return runs;
}

}  // namespace symshape::passes
