// The lowering toolkit: passes that rewrite a graph while keeping every symbolic size intact, the
// registry that names them, and the PassManager that runs a pipeline and checks every pass.
//
// A pass is a class with a stable name (what the CLI's --passes accepts), a one-line description,
// options with defaults, and one entry point, run(PassContext&). It edits the graph through the
// context (a MutableGraph and a builder that gives new nodes their metadata through the shape
// rules), asks the ShapeEnv only static questions unless it declares that it may add guards, and
// reports counters. After every pass the manager verifies the graph, re-derives every node's
// metadata under the same ShapeEnv and fails the pass, naming the node, when anything differs,
// when a symbol of the input was lost or specialized, or when a guard appeared undeclared.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "symshape/ir.h"
#include "symshape/ops.h"
#include "symshape/propagate.h"
#include "symshape/shape_env.h"

namespace symshape {

namespace interp {
class Tensor;
}

// A pass failed: it broke an invariant, or its input is one it must refuse (a provably false
// assert). Names the pass and, where there is one, the node.
class PassError : public Error {
 public:
  PassError(std::string pass, std::string node, const std::string& message);
  const std::string& pass() const { return pass_; }
  const std::string& node() const { return node_; }

 private:
  std::string pass_, node_;
};

// A pass refused the value of one of its options (an unknown name, a file that does not read):
// bad input, as the CLI reports it, rather than a pass failing its checks.
class PassOptionError : public PassError {
 public:
  using PassError::PassError;
};

// An option a pass accepts: `--passes name{key=value}` on the CLI.
struct PassOption {
  std::string name;
  std::string default_value;
  std::string help;  // one line
};

// What a pass did: nodes inserted, erased and rewritten (counted by the graph), and counters of
// its own ("dropouts removed").
struct PassStats {
  size_t inserted = 0, erased = 0, rewritten = 0;
  std::map<std::string, size_t> counters;
  bool changed() const;
};

// What a pass sees while it runs.
class PassContext {
 public:
  PassContext(std::string pass, MutableGraph& graph, ShapeEnv& env, const OpRegistry& ops,
              std::map<std::string, std::string> options, PropagateOptions propagate_options);

  MutableGraph& graph() { return graph_; }
  ShapeEnv& env() { return env_; }
  const OpRegistry& ops() const { return ops_; }
  // The options the graph was propagated with (dim overrides), for a pass that re-propagates.
  const PropagateOptions& propagate_options() const { return propagate_options_; }

  // An option's value (its default when not given).
  const std::string& option(std::string_view name) const;
  bool flag(std::string_view name) const;  // "true"/"1" or "false"/"0"; PassError otherwise

  // Adds n to one of the pass's counters.
  void count(std::string_view counter, size_t n = 1) { counters_[std::string(counter)] += n; }
  const std::map<std::string, size_t>& counters() const { return counters_; }

  // Creates a call_function node before `pos` whose metadata its shape rule derives under the
  // env. The name is made fresh from `name` (the target's op name when empty). Throws PassError
  // when the rule fails or has no entry.
  NodeId create_call(NodeId pos, std::string target, std::vector<Arg> args,
                     std::vector<std::pair<std::string, Arg>> kwargs = {}, std::string name = "");
  // Sets a node's arguments (and target, when not empty) and re-derives its metadata.
  void rewrite_call(NodeId id, std::vector<Arg> args,
                    std::vector<std::pair<std::string, Arg>> kwargs, std::string target = "");
  // The metadata the shape rules give a call node now (it is not stored).
  Value derive(NodeId id);
  // Re-derives every node's metadata, in order, from the rules: for a pass whose rewrite makes
  // later metadata more exact (a stride, a simpler size) rather than merely equal.
  void rederive_all();

  // Static knowledge only: never a guard.
  Truth known(const Cond& c);
  bool provably(const Cond& c) { return known(c) == Truth::True; }
  // Whether two tensors' metadata (dtype, sizes, strides) are provably the same.
  bool same_meta(const TensorMeta& a, const TensorMeta& b);

  // A PassError naming this pass and the node.
  [[noreturn]] void fail(NodeId node, const std::string& message) const;
  // A PassOptionError: the option's value is refused (`option NAME: message`).
  [[noreturn]] void bad_option(std::string_view option, const std::string& message) const;

 private:
  Value run_rule(const Node& node);
  ValueLookup values() const;  // the graph's values by node name

  std::string pass_;
  MutableGraph& graph_;
  ShapeEnv& env_;
  const OpRegistry& ops_;
  std::map<std::string, std::string> options_;
  PropagateOptions propagate_options_;
  std::map<std::string, size_t> counters_;
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;         // `dce`
  virtual std::string_view description() const = 0;  // one line
  virtual std::vector<PassOption> options() const { return {}; }
  // Whether the pass may record guards (they are listed in its report); else a new guard fails it.
  virtual bool may_add_guards() const { return false; }
  // The relative tolerance --verify-numerics allows for floats (exact for integers), given the
  // options the pass runs with (every option present, defaults filled in). Half-precision
  // results are always allowed torch.testing's tolerance for their dtype on top.
  virtual double tolerance(const std::map<std::string, std::string>& options) const {
    (void)options;
    return 1e-5;
  }
  // Whether the reference runs that check the pass's numbers run dropout as in eval mode (a pass
  // that removes dropout keeps the numbers of the model in inference).
  virtual bool numerics_in_eval_mode() const { return false; }
  virtual void run(PassContext& ctx) const = 0;
};

// The passes by name, and named pipelines of them.
class PassRegistry {
 public:
  // Every pass of the project, and its pipelines (`default`, `cleanup`).
  static const PassRegistry& standard();

  void add(std::unique_ptr<Pass> pass);
  void add_pipeline(std::string name, std::string description, std::vector<std::string> passes);
  const Pass* find(std::string_view name) const;  // nullptr when unknown
  std::vector<const Pass*> passes() const;        // sorted by name
  struct Pipeline {
    std::string name, description;
    std::vector<std::string> passes;
  };
  const Pipeline* pipeline(std::string_view name) const;
  std::vector<const Pipeline*> pipelines() const;  // sorted by name

 private:
  std::map<std::string, std::shared_ptr<const Pass>, std::less<>> passes_;
  std::map<std::string, Pipeline, std::less<>> pipelines_;
};

// One pass of a pipeline, with its options.
struct PassSpec {
  std::string name;
  std::map<std::string, std::string> options;
};
// Parses `dce,remove-noop,cse{max=4;x=y}`; errors name the unknown pass (with the known ones) or
// option.
Expected<std::vector<PassSpec>> parse_pass_list(std::string_view text,
                                                const PassRegistry& registry);

struct PassManagerOptions {
  // Check the invariants after every pass (the default), or only once after the pipeline (faster
  // on large graphs; a failure then names the pipeline, not the pass).
  bool verify_each_pass = true;
  // Run the graph in the reference interpreter before and after every pass, at the hints and at
  // two more sizes per dim inside its range, and fail the pass whose outputs differ.
  bool verify_numerics = false;
  uint64_t seed = 0;
  // The bytes each of --verify-numerics' runs may hold at once (RunOptions::memory_budget; the
  // default is `run`'s, 8 GiB). A graph that does not fit fails the pass naming the tensor.
  int64_t memory_budget = int64_t{8} << 30;
  // --verify-numerics' values of inputs and constants (placeholder or get_attr nodes, by name),
  // as `symshape run --inputs` gives them: a model's own parameters and input. The others are
  // generated from `seed`. A size at which a given tensor does not fit is not run.
  std::shared_ptr<const std::map<std::string, interp::Tensor>> numeric_inputs;
  // Print the graph (canonical JSON) before / after these passes to `dump`.
  std::vector<std::string> dump_before, dump_after;
  std::ostream* dump = nullptr;
  // How the graph is propagated (dim overrides, the shape rules used).
  PropagateOptions propagate;
};

// What one pass did.
struct PassReport {
  std::string pass;
  PassStats stats;
  std::vector<Guard> guards_added;  // only for a pass that may add guards
  double seconds = 0;
  size_t nodes_before = 0, nodes_after = 0;
  size_t numeric_runs = 0;  // reference runs compared (--verify-numerics)
};

struct LowerResult {
  bool ok = false;
  std::string error;          // why it failed: the pass, the node, what differs
  std::string failed_pass;    // empty when the input graph itself failed to propagate
  bool bad_option = false;    // the failed pass refused an option's value (bad input)
  Graph graph;                // the lowered graph (the input graph when nothing ran)
  std::vector<Value> values;  // its nodes' metadata
  std::vector<PassReport> reports;
};

class PassManager {
 public:
  explicit PassManager(const PassRegistry& registry = PassRegistry::standard(),
                       PassManagerOptions options = {});
  // Appends a pass (an unknown name or option throws Error listing the known ones).
  void add(const PassSpec& spec);
  void add(std::string_view name) { add(PassSpec{std::string(name), {}}); }
  // Appends a named pipeline's passes.
  void add_pipeline(std::string_view name);
  const std::vector<PassSpec>& pipeline() const { return specs_; }

  // Propagates the graph under env, then runs every pass with its checks. Never throws.
  LowerResult run(const Graph& graph, ShapeEnv& env) const;

 private:
  const PassRegistry& registry_;
  PassManagerOptions options_;
  std::vector<PassSpec> specs_;
};

// ---- graphs written in C++, and the subgraph rewriter ----

// Builds a small graph in C++: a pattern, a replacement, a test's input.
//   GraphBuilder b;
//   Arg x = b.input("x"), w = b.input("w");
//   Graph g = b.build(b.call("aten.mm.default", {x, b.call("aten.t.default", {w})}));
class GraphBuilder {
 public:
  // A placeholder; dtype and shape are needed when the graph is to be propagated, not for a
  // pattern (whose inputs match any value).
  Arg input(const std::string& name, std::optional<DType> dtype = std::nullopt,
            std::optional<std::vector<Expr>> shape = std::nullopt);
  // A call node named after the op (made unique), or `name`.
  Arg call(const std::string& target, std::vector<Arg> args,
           std::vector<std::pair<std::string, Arg>> kwargs = {}, const std::string& name = "");
  // The graph with its output node returning `result`.
  Graph build(const Arg& result);

 private:
  std::string fresh(const std::string& base);
  Graph graph_;
  std::map<std::string, size_t> used_;
};

// A pattern and what replaces it, both small graphs (torch.fx's subgraph_rewriter). The
// pattern's placeholders match any value (the same placeholder, the same value); its call nodes
// match nodes with the same target (a pattern target without an overload matches every overload)
// and equal literal arguments, along the same dataflow; its output names the matched result. The
// replacement's placeholders carry the pattern's names; its output names the new result.
struct RewritePattern {
  std::string name;
  Graph pattern;
  Graph replacement;
  // Conditions the ShapeEnv must prove for a match to be rewritten (never assumed): integer
  // expressions over `NAME.size(K)` of a tensor input and NAME of an int input, e.g.
  // `x.size(1) % 8 == 0`.
  std::vector<std::string> constraints;
};

// Reads `{"patterns": [{"name": ..., "pattern": GRAPH, "replacement": GRAPH,
// "constraints": [...]}]}` (graphs in the graph format). Errors name the pattern and the key.
Expected<std::vector<RewritePattern>> read_patterns(std::string_view json_text);

// Rewrites every match of p, in graph order and without overlap, whose inner nodes nobody else
// uses and whose constraints the env proves; the new nodes get their metadata from the shape
// rules, and a match whose replacement would not have the matched result's metadata is left.
// Returns the number of rewrites.
size_t rewrite_subgraphs(PassContext& ctx, const RewritePattern& p);

// ---- the passes, by family (one registration function per file in passes/) ----
void register_cleanup_passes(PassRegistry& r);

}  // namespace symshape
