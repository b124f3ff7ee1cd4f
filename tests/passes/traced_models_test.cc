// The default pipeline on every example graph and on the models traced from PyTorch
// (examples/traced/, written by scripts/trace_model.py with make_fx(tracing_mode="symbolic")):
// it succeeds with the numeric check of every pass on, adds no guard, keeps every symbolic dim of
// the inputs, removes every dropout, identity copy, detach, alias, no-op view and dead node, and
// the lowered graph computes what the traced model computes in inference (dropout off).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "symshape/interp.h"
#include "symshape/ir.h"
#include "symshape/passes.h"
#include "symshape/propagate.h"
#include "symshape/shape_env.h"

namespace symshape {
namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = SYMSHAPE_SOURCE_DIR;

// examples/*.json and examples/traced/*.json, as paths relative to the source folder.
std::vector<std::string> graph_files() {
  std::vector<std::string> out;
  for (const char* dir : {"examples", "examples/traced"}) {
    if (!fs::is_directory(kSourceDir / dir)) continue;
    for (const auto& e : fs::directory_iterator(kSourceDir / dir)) {
      if (e.path().extension() == ".json") {
        out.push_back(fs::relative(e.path(), kSourceDir).generic_string());
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The op's name without namespace and overload: `aten.native_dropout.default` -> native_dropout.
std::string_view op_of(const Node& n) {
  std::string_view packet = parse_target(n.target).packet;
  const size_t dot = packet.rfind('.');
  return dot == std::string_view::npos ? packet : packet.substr(dot + 1);
}

// Whether a node must stay even when nothing uses its result: it writes in place (`relu_`, an
// `out=` argument), talks to other ranks, or checks something at run time.
bool has_side_effects(const Node& n) {
  if (n.op != NodeOp::CallFunction) return true;
  const std::string_view op = op_of(n);
  return parse_target(n.target).in_place || n.kwarg("out") != nullptr ||
         n.target.find("c10d") != std::string::npos || op.starts_with("_assert") ||
         op.starts_with("_functional_assert") || op.starts_with("sym_constrain_range");
}

// The node names each node's arguments refer to (nested lists included).
void referents(const Arg& a, std::vector<std::string>& out) {
  if (a.kind == Arg::Kind::Node) out.push_back(a.text);
  for (const Arg& item : a.items) referents(item, out);
}

std::map<std::string, size_t> user_counts(const Graph& g) {
  std::map<std::string, size_t> users;
  for (const Node& n : g.nodes) {
    std::vector<std::string> refs;
    for (const Arg& a : n.args) referents(a, refs);
    for (const auto& [k, a] : n.kwargs) referents(a, refs);
    for (const std::string& r : refs) ++users[r];
  }
  return users;
}

std::set<std::string> placeholder_symbols(const Graph& g) {
  std::set<std::string> out;
  for (const Node& n : g.nodes) {
    if (n.op != NodeOp::Placeholder || !n.shape) continue;
    for (const Expr& e : *n.shape)
      for (const std::string& s : e.free_symbols()) out.insert(s);
  }
  return out;
}

std::vector<std::string> guard_texts(const ShapeEnv& env) {
  std::vector<std::string> out;
  for (const Guard& g : env.guards()) out.push_back(g.cond.str());
  return out;
}

// Whether two tensors' dtypes, sizes and strides are provably the same under env.
bool same_meta(ShapeEnv& env, const TensorMeta& a, const TensorMeta& b) {
  if (a.dtype != b.dtype || a.rank() != b.rank()) return false;
  const auto sa = a.strides.empty() ? TensorMeta::contiguous_strides(a.sizes) : a.strides;
  const auto sb = b.strides.empty() ? TensorMeta::contiguous_strides(b.sizes) : b.strides;
  for (size_t d = 0; d < a.rank(); ++d) {
    if (env.known(env.wrap(a.sizes[d] == b.sizes[d])) != Truth::True) return false;
    if (env.known(env.wrap(sa[d] == sb[d])) != Truth::True) return false;
  }
  return true;
}

// What the default pipeline must have removed: a node that is still in `lowered` although it is
// a dropout, a detach or alias, a copy or view whose result is provably its input, or dead. The
// clones repair-input-as-output puts between an input and the output are what the pipeline adds
// on purpose; a clone that changes the layout (`contiguous()` of a transposed tensor) is a real
// copy and stays.
std::vector<std::string> leftovers(const Graph& lowered, const std::vector<Value>& values,
                                   ShapeEnv& env) {
  static const std::set<std::string_view> kAlwaysRemoved = {
      "dropout", "native_dropout", "feature_dropout", "alpha_dropout",  "feature_alpha_dropout",
      "detach",  "alias",          "lift_fresh",      "lift_fresh_copy"};
  static const std::set<std::string_view> kRemovedWhenIdentity = {
      "clone", "contiguous", "_to_copy",  "view",    "_unsafe_view", "reshape",   "expand",
      "slice", "permute",    "transpose", "squeeze", "view_as",      "reshape_as"};
  std::vector<std::string> out;
  const std::map<std::string, size_t> users = user_counts(lowered);
  const Node& output = lowered.nodes.back();
  std::vector<std::string> returned;
  for (const Arg& a : output.args) referents(a, returned);
  for (size_t i = 0; i < lowered.nodes.size(); ++i) {
    const Node& n = lowered.nodes[i];
    if (n.op != NodeOp::CallFunction) continue;
    const std::string_view op = op_of(n);
    const std::string what = n.name + " (" + n.target + ")";
    if (!users.count(n.name) && !has_side_effects(n)) {
      out.push_back(what + ": dead");
      continue;
    }
    if (kAlwaysRemoved.count(op)) {
      out.push_back(what);
      continue;
    }
    if (!kRemovedWhenIdentity.count(op) || n.args.empty() || n.args[0].kind != Arg::Kind::Node)
      continue;
    const size_t source = lowered.index_of(n.args[0].text);
    if (source >= values.size()) {
      out.push_back(what + ": its input " + n.args[0].text + " is not in the graph");
      continue;
    }
    const Node& input = lowered.nodes[source];
    if (op == "clone" && input.op == NodeOp::Placeholder && users.at(n.name) == 1 &&
        std::count(returned.begin(), returned.end(), n.name) == 1) {
      continue;  // repair-input-as-output's copy of an input the graph returns
    }
    if (values[i].is_tensor() && values[source].is_tensor() &&
        same_meta(env, values[source].tensor, values[i].tensor)) {
      out.push_back(what + ": its result is its input " + input.name);
    }
  }
  return out;
}

// The largest relative difference of two run-time values (0 when equal; infinity when their
// kinds, dtypes, sizes or integer values differ).
double difference(const interp::RValue& a, const interp::RValue& b) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (a.kind != b.kind) return kInf;
  switch (a.kind) {
    case interp::RValue::Kind::Tensor: {
      if (a.tensor.dtype() != b.tensor.dtype() || a.tensor.sizes() != b.tensor.sizes()) return kInf;
      double worst = 0;
      for (int64_t i = 0; i < a.tensor.numel(); ++i) {
        const interp::Scalar x = a.tensor.flat(i), y = b.tensor.flat(i);
        if (x.kind == interp::Scalar::Kind::Float) {
          const double u = x.as_double(), v = y.as_double();
          if (std::isnan(u) || std::isnan(v)) {
            if (std::isnan(u) != std::isnan(v)) return kInf;
          } else if (std::isinf(u) || std::isinf(v)) {
            if (u != v) return kInf;
          } else {
            worst = std::max(worst, std::abs(u - v) / std::max({1.0, std::abs(u), std::abs(v)}));
          }
        } else if (x.as_complex() != y.as_complex()) {
          return kInf;
        }
      }
      return worst;
    }
    case interp::RValue::Kind::Int: return a.integer == b.integer ? 0 : kInf;
    case interp::RValue::Kind::Bool: return a.truth == b.truth ? 0 : kInf;
    case interp::RValue::Kind::Float:
      return std::abs(a.real - b.real) / std::max({1.0, std::abs(a.real), std::abs(b.real)});
    case interp::RValue::Kind::List: {
      if (a.items.size() != b.items.size()) return kInf;
      double worst = 0;
      for (size_t i = 0; i < a.items.size(); ++i)
        worst = std::max(worst, difference(a.items[i], b.items[i]));
      return worst;
    }
    case interp::RValue::Kind::None: return 0;
  }
  return kInf;
}

// The elements of the inputs and constants at the hints overridden by `dims`: of those sized by
// a dim (`dynamic`) and of the others.
struct Elements {
  double dynamic = 0, fixed = 0;
};
Elements input_elements(const Graph& g, const std::map<std::string, int64_t>& dims) {
  Bindings at;
  for (const auto& [name, d] : g.dims) at[name] = d.hint ? *d.hint : default_hint(d);
  for (const auto& [name, v] : dims) at[name] = Int(v);
  Elements out;
  for (const Node& n : g.nodes) {
    if ((n.op != NodeOp::Placeholder && n.op != NodeOp::GetAttr) || !n.shape) continue;
    double numel = 1;
    bool dynamic = false;
    for (const Expr& e : *n.shape) {
      dynamic = dynamic || !e.free_symbols().empty();
      numel *= static_cast<double>(to_int64(evaluate(e, at)).value_or(0));
    }
    (dynamic ? out.dynamic : out.fixed) += numel;
  }
  return out;
}

// The sizes to compare the numbers at: the hints and each declared dim one off its hint, then
// every dim at its smallest value (at least 2) and each dim one above that. The reference
// interpreter is plain C++ and the test also runs under ASan: points whose dynamic inputs exceed
// 64Ki elements are left out (examples/resnet_block.json's hints are a batch of 8 56x56 images),
// and a graph with more than 256Ki elements of weights (examples/tp_mlp.json) runs at its
// smallest sizes only. The traced models, whose hints are small, run at every point.
std::vector<std::map<std::string, int64_t>> run_points(const Graph& g) {
  std::vector<std::map<std::string, int64_t>> candidates{{}};
  std::map<std::string, int64_t> smallest;
  for (const auto& [name, d] : g.dims) {
    const std::optional<int64_t> h = to_int64(d.hint ? *d.hint : default_hint(d));
    if (!h) continue;
    const bool at_max = d.max && *d.max <= Int(*h);
    candidates.push_back({{name, at_max ? *h - 1 : *h + 1}});
    smallest[name] = d.min && *d.min >= 2 ? to_int64(*d.min).value_or(2) : 2;
  }
  candidates.push_back(smallest);
  for (const auto& [name, v] : smallest) {
    std::map<std::string, int64_t> up = smallest;
    const DimDecl* d = g.dim(name);
    if (d && d->max && *d->max <= Int(v)) continue;
    up[name] = v + 1;
    candidates.push_back(up);
  }
  if (input_elements(g, {}).fixed > 262144) return {smallest};
  std::vector<std::map<std::string, int64_t>> out;
  for (const auto& dims : candidates) {
    if (input_elements(g, dims).dynamic <= 65536) out.push_back(dims);
  }
  return out;
}

class TracedModels : public ::testing::TestWithParam<std::string> {};

TEST_P(TracedModels, DefaultPipelineKeepsShapesAndNumbersAndRemovesTheCopies) {
  Expected<Graph> input = read_graph_file((kSourceDir / GetParam()).string());
  ASSERT_TRUE(input.ok()) << input.error();

  ShapeEnv plain;
  Propagation p = propagate(*input, plain);
  ASSERT_TRUE(p.ok()) << p.error;

  PassManagerOptions options;
  options.verify_numerics = true;
  PassManager manager(PassRegistry::standard(), options);
  manager.add_pipeline("default");
  ShapeEnv env;
  const LowerResult result = manager.run(*input, env);
  ASSERT_TRUE(result.ok) << result.failed_pass << ": " << result.error;
  const Graph& lowered = result.graph;

  // No guard: none reported, and the env holds exactly what propagating the input records.
  for (const PassReport& r : result.reports) {
    EXPECT_TRUE(r.guards_added.empty()) << r.pass << " added " << r.guards_added[0].cond.str();
    if (r.stats.changed()) {
      EXPECT_GE(r.numeric_runs, 1u) << r.pass << " was not checked";
    }
  }
  EXPECT_EQ(guard_texts(env), guard_texts(plain));

  // Every symbol the inputs are sized by still sizes an input, and is still declared.
  const std::set<std::string> before = placeholder_symbols(*input);
  const std::set<std::string> after = placeholder_symbols(lowered);
  for (const std::string& s : before) {
    EXPECT_TRUE(after.count(s)) << "no input of the lowered graph is sized by " << s;
    if (input->dim(s)) {
      EXPECT_NE(lowered.dim(s), nullptr) << s << " is no longer declared";
    }
  }

  // What the pipeline promises to remove is gone.
  ASSERT_EQ(result.values.size(), lowered.nodes.size());
  for (const std::string& node : leftovers(lowered, result.values, env)) {
    ADD_FAILURE() << "still in the lowered graph: " << node;
  }
  EXPECT_LE(lowered.nodes.size(), input->nodes.size() + 1);

  // The same outputs as the traced model in inference, at the hints and at other sizes.
  const auto points = run_points(*input);
  if (GetParam().starts_with("examples/traced/")) {
    EXPECT_EQ(points.size(), 2 * input->dims.size() + 2) << "a traced model left out sizes";
  }
  for (const auto& dims : points) {
    interp::RunOptions run;
    run.dims = dims;
    run.eval_mode = true;
    const interp::RunResult a = interp::run(*input, run);
    ASSERT_TRUE(a.ok) << a.error;
    run.eval_mode = false;  // nothing random is left: the lowered graph runs as written
    const interp::RunResult b = interp::run(lowered, run);
    ASSERT_TRUE(b.ok) << b.error;
    std::string where;
    for (const auto& [k, v] : dims) where += " " + k + "=" + std::to_string(v);
    EXPECT_LE(difference(a.output(), b.output()), 1e-5)
        << "at" << (where.empty() ? " the hints" : where) << ": " << a.output().str() << " vs "
        << b.output().str();
  }
}

// The traced models are really there, with what makes them worth lowering: dynamic dims, and
// the dropouts, copies and detaches a traced training graph carries.
TEST(TracedModels, ExamplesHoldTheTracedModels) {
  const std::vector<std::string> files = graph_files();
  for (const char* name :
       {"examples/traced/resnet18.json", "examples/traced/transformer_encoder_train.json",
        "examples/traced/gpt.json"}) {
    EXPECT_NE(std::find(files.begin(), files.end(), name), files.end()) << name;
  }
  auto count = [](const Graph& g, std::string_view op) {
    return std::count_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) {
      return n.op == NodeOp::CallFunction && op_of(n) == op;
    });
  };
  Expected<Graph> encoder =
      read_graph_file((kSourceDir / "examples/traced/transformer_encoder_train.json").string());
  ASSERT_TRUE(encoder.ok()) << encoder.error();
  EXPECT_EQ(count(*encoder, "native_dropout"), 8);  // 4 per layer (attention, 3 in the block)
  EXPECT_EQ(placeholder_symbols(*encoder), (std::set<std::string>{"batch", "seq"}));
  Expected<Graph> gpt = read_graph_file((kSourceDir / "examples/traced/gpt.json").string());
  ASSERT_TRUE(gpt.ok()) << gpt.error();
  EXPECT_GE(count(*gpt, "native_dropout"), 1);
  EXPECT_GE(count(*gpt, "clone"), 1);
  EXPECT_GE(count(*gpt, "detach"), 1);
  EXPECT_EQ(placeholder_symbols(*gpt), (std::set<std::string>{"batch", "seq"}));
  Expected<Graph> resnet = read_graph_file((kSourceDir / "examples/traced/resnet18.json").string());
  ASSERT_TRUE(resnet.ok()) << resnet.error();
  EXPECT_EQ(count(*resnet, "convolution"), 20);  // ResNet-18: 17 convolutions + 3 downsamples
  EXPECT_EQ(placeholder_symbols(*resnet), (std::set<std::string>{"batch", "h", "w"}));
}

INSTANTIATE_TEST_SUITE_P(Graphs, TracedModels, ::testing::ValuesIn(graph_files()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace symshape
