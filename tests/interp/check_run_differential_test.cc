// The check/run differential test: one verdict per graph, whatever the command.
//
// Every op case of every kernel family, random mutants of them (an int argument made negative,
// zero or out of range, a list turned into a lone int or a bool or emptied, a dim repeated, an
// argument dropped), and the repros under tests/repros/ go through propagate() (what `check`
// runs) and interp::run() (what `run` runs). Both must give the same verdict: ok, a failure on
// well-formed input (a shape error / an op failing at run time: exit 1), or bad input (exit 2);
// and when both succeed, every node's concrete shape must be the symbolic one evaluated at the
// dims the run used.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>

#include "symshape/interp.h"
#include "symshape/propagate.h"
#include "tests/interp/interp_test_util.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {
namespace {

enum class Verdict { Ok, Failure, BadInput };

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Ok: return "ok";
    case Verdict::Failure: return "failure (exit 1)";
    case Verdict::BadInput: return "bad input (exit 2)";
  }
  return "?";
}

Verdict check_verdict(const Propagation& p) {
  switch (p.status) {
    case Propagation::Status::Ok: return Verdict::Ok;
    case Propagation::Status::ShapeError: return Verdict::Failure;
    case Propagation::Status::InputError: return Verdict::BadInput;
  }
  return Verdict::BadInput;
}

Verdict run_verdict(const interp::RunResult& r) {
  if (r.ok) return Verdict::Ok;
  return r.input_error ? Verdict::BadInput : Verdict::Failure;
}

struct Outcome {
  bool compared = false;   // false: skipped for a reason the test states
  bool known_gap = false;  // a disagreement in an op of kKnownGaps
  std::optional<std::string> problem;
};

// Ops whose shape rule does not yet check an argument that only the kernel reads (a value such
// as dropout's train flag or a fill value, a backward op's geometry, a random range): `check`
// accepts what `run` refuses. Each entry is a rule to complete; the list may only shrink.
const std::set<std::string> kKnownGaps = {
    "aten.avg_pool2d_backward.default",
    "aten.avg_pool3d.default",
    "aten.avg_pool3d_backward.default",
    "aten.convolution_backward.default",
    "aten.dropout",
    "aten.embedding_dense_backward.default",
    "aten.full.default",
    "aten.full_like.default",
    "aten.instance_norm.default",
    "aten.masked_fill_.Scalar",
    "aten.native_batch_norm_backward.default",
    "aten.native_group_norm_backward.default",
    "aten.native_layer_norm_backward.default",
    "aten.new_full.default",
    "aten.randint_like.default",
};

// Failures that depend on what check cannot know, by design: values (an integer division by a
// zero element, an assert on data), the interpreter's size limit, and collectives whose group
// is the simulation's (the number of ranks run decides a split count or a source rank, and its
// ranks all run the one graph, where a traced graph's all_to_all splits are one rank's own).
bool beyond_check(const std::string& run_error) {
  for (const char* what : {"ZeroDivisionError", "_assert_async needs", "is outside its range",
                           "too large for the interpreter", "split sizes for",
                           "is outside the group of", "rows from rank",
                           // a view through explicit strides past its storage's end: storage
                           // sizes are not metadata (as_strided, _reshape_alias)
                           "reaches outside a storage of"}) {
    if (run_error.find(what) != std::string::npos) return true;
  }
  return false;
}

// The target of the node a verdict failed at ("" when none).
std::string failed_target(const Graph& g, size_t index) {
  return index < g.nodes.size() ? g.nodes[index].target : "";
}

// Both verdicts of one graph; a problem when they differ, or when both succeed with different
// shapes. Graphs whose run depends on data (a false runtime assert, a data-dependent decision
// that check cannot make) are not compared: their verdict is the data's, not the graph's.
Outcome compare(const Graph& g) {
  Outcome out;
  ShapeEnv env;
  Propagation p = propagate(g, env);
  interp::RunResult r = interp::run(g);
  const Verdict check = check_verdict(p), run = run_verdict(r);
  Bindings dims;
  for (const auto& [name, v] : r.dims) dims[name] = v;
  ShapeChecker checker(env, dims);
  std::optional<std::string> shapes;
  if (check == Verdict::Ok) shapes = checker.check(g, p.values, r.values);
  if (check == Verdict::Ok && run == Verdict::Failure && checker.failed_runtime_assert()) {
    return out;
  }
  if (check == Verdict::Failure && p.error.find("data-dependent") != std::string::npos) return out;
  if (check == Verdict::Ok && run == Verdict::Failure && beyond_check(r.error)) return out;
  out.compared = true;
  if (check != run) {
    out.known_gap = kKnownGaps.count(failed_target(g, p.ok() ? r.failed_node : p.failed_node)) +
                        kKnownGaps.count(failed_target(g, r.ok ? p.failed_node : r.failed_node)) >
                    0;
    out.problem = std::string("check: ") + verdict_name(check) +
                  (p.ok() ? "" : " (" + p.error + ")") + "; run: " + verdict_name(run) +
                  (r.ok ? "" : " (" + r.error + ")");
  } else if (shapes) {
    out.problem = "both ok, but " + *shapes;
  }
  return out;
}

// The int-like arguments of a graph's call nodes, which a mutation may replace.
std::vector<Arg*> mutable_args(Graph& g) {
  std::vector<Arg*> out;
  auto visit = [&](Arg& a) {
    const bool ints = a.kind == Arg::Kind::List && !a.items.empty() &&
                      std::all_of(a.items.begin(), a.items.end(),
                                  [](const Arg& i) { return i.kind == Arg::Kind::Int; });
    if (a.kind == Arg::Kind::Int || a.kind == Arg::Kind::Bool || ints) out.push_back(&a);
  };
  for (Node& n : g.nodes) {
    if (n.op != NodeOp::CallFunction) continue;
    for (Arg& a : n.args) visit(a);
    for (auto& [k, a] : n.kwargs) visit(a);
  }
  return out;
}

Arg int_arg(int64_t v) { return Arg::of_int(Expr(v)); }

Arg bool_arg(bool v) {
  Arg a;
  a.kind = Arg::Kind::Bool;
  a.boolean = v;
  return a;
}

// One random change of one argument, toward the malformed and the out-of-range.
void mutate(Arg& a, std::mt19937_64& rng) {
  static const int64_t kInts[] = {-3, -2, -1, 0, 1, 2, 3, 5, 64};
  auto pick_int = [&] { return kInts[rng() % std::size(kInts)]; };
  if (a.kind != Arg::Kind::List) {
    switch (rng() % 5) {
      case 0: a = Arg::none(); return;
      case 1: a = Arg::list({int_arg(pick_int()), int_arg(pick_int())}); return;
      default: a = int_arg(pick_int()); return;
    }
  }
  switch (rng() % 6) {
    case 0: a = a.items[0]; return;                                      // a lone int
    case 1: a = bool_arg(true); return;                                  // a bool
    case 2: a = Arg::list({}); return;                                   // empty
    case 3: a.items.push_back(a.items[rng() % a.items.size()]); return;  // a repeated entry
    default: a.items[rng() % a.items.size()] = int_arg(pick_int()); return;
  }
}

std::vector<OpCase> all_cases() {
  std::vector<OpCase> out;
  for (auto* family : {elementwise_cases, reductions_cases, complex_cases, views_cases,
                       indexing_cases, linalg_cases, conv_pool_cases, norm_cases, creation_cases,
                       symbolic_cases, data_dependent_cases, collectives_cases, structured_cases}) {
    for (OpCase& c : family()) out.push_back(std::move(c));
  }
  return out;
}

TEST(CheckRunDifferential, OpCasesAndRandomMutants) {
  constexpr int kMutantsPerCase = 6;
  std::mt19937_64 rng(20261123);
  size_t graphs = 0, compared = 0, failures = 0, gaps = 0;
  for (const OpCase& c : all_cases()) {
    const Graph original = graph_of(c.inputs, c.calls, c.dims);
    for (int m = 0; m <= kMutantsPerCase; ++m) {
      Graph g = original;
      std::string what = c.name;
      if (m > 0) {
        std::vector<Arg*> slots = mutable_args(g);
        if (slots.empty()) break;
        Arg* slot = slots[rng() % slots.size()];
        const std::string before = slot->str();
        mutate(*slot, rng);
        what += " with " + before + " -> " + slot->str();
      }
      ++graphs;
      Outcome o = compare(g);
      compared += o.compared;
      if (o.problem && o.known_gap) {
        ++gaps;
      } else if (o.problem) {
        ++failures;
        ADD_FAILURE() << what << ": " << *o.problem;
      }
    }
  }
  std::cout << "[ differential ] " << graphs << " graphs, " << compared
            << " compared (the rest depend on data), " << failures << " disagreements, " << gaps
            << " in the " << kKnownGaps.size() << " ops of known gaps\n";
  EXPECT_GT(compared, graphs / 2);
}

// The repros of issue 11: each once gave check and run different verdicts.
TEST(CheckRunDifferential, Repros) {
  const std::filesystem::path dir = std::filesystem::path(SYMSHAPE_SOURCE_DIR) / "tests/repros";
  const std::map<std::string, Verdict> expected = {
      {"19_unknown_target.json", Verdict::BadInput},
      {"51_view_two_minus1.json", Verdict::BadInput},
      {"56_sym_size_oob.json", Verdict::BadInput},
      {"61_getitem_oob.json", Verdict::BadInput},
      {"62_cat_empty.json", Verdict::BadInput},
      {"63_expand_neg.json", Verdict::BadInput},
      {"75_stride_neg.json", Verdict::BadInput},
      {"83_permute_bad.json", Verdict::BadInput},
      {"84_unsqueeze_oob.json", Verdict::BadInput},
      {"99_all_to_all_bool_splits.json", Verdict::BadInput},
      {"99b_all_to_all_int_splits.json", Verdict::BadInput},
      {"100_run_redraws_hint.json", Verdict::Failure},
  };
  for (const auto& [file, verdict] : expected) {
    Expected<Graph> g = read_graph_file((dir / file).string());
    ASSERT_TRUE(g.ok()) << file << ": " << g.error();
    ShapeEnv env;
    EXPECT_EQ(verdict_name(check_verdict(propagate(*g, env))), std::string(verdict_name(verdict)))
        << file << " (check)";
    EXPECT_EQ(verdict_name(run_verdict(interp::run(*g))), std::string(verdict_name(verdict)))
        << file << " (run)";
    Outcome o = compare(*g);
    EXPECT_TRUE(o.compared) << file;
    EXPECT_FALSE(o.problem) << file << ": " << o.problem.value_or("");
  }
}

}  // namespace
}  // namespace symshape::testing
