// What the passes need to know about an op beyond its shape rule: whether it has side effects,
// writes in place, draws random numbers, or only re-labels its input's data.
#pragma once

#include <initializer_list>
#include <string_view>

#include "symshape/ir.h"
#include "symshape/passes.h"

namespace symshape::passes {

// The op's name without namespace and overload: `aten.add_.Tensor` -> `add_`.
std::string_view op_name(std::string_view target);
// Whether target's packet is `aten.<one of names>` (any overload, the in-place form excluded).
bool is_aten(std::string_view target, std::initializer_list<std::string_view> names);

// Writes into one of its arguments: an in-place op (`add_`), or one given an `out=` tensor.
bool writes_in_place(const Node& n);
// A collective (c10d), which talks to other ranks.
bool is_collective(const Node& n);
// A check at run time: `_assert_scalar`, `_assert_async`, `sym_constrain_range`, ...
bool is_assert(const Node& n);
// Draws random numbers: two calls differ.
bool is_random(const Node& n);
// Must stay even when nothing uses its result.
bool has_side_effects(const Node& n);
// Whether any node of the graph writes in place: then a copy may be what keeps two values apart.
bool graph_mutates(const MutableGraph& g);
// Whether the node's value mentions a data-dependent symbol that none of its inputs mention:
// it makes a fresh one (nonzero, item), so two such nodes are never the same value.
bool makes_unbacked(const MutableGraph& g, const ShapeEnv& env, NodeId id);

// The ONNX operators (`onnx.Conv`) among the graph's call nodes: the passes that rewrite ATen ops
// leave them as they are and say so (`ONNX ops left as they are`).
size_t count_onnx_ops(const MutableGraph& g);
void report_onnx_ops(PassContext& ctx);

// Appends a canonical text of an argument to out: two arguments with the same text are the
// same value (node references by name, numbers exactly).
void append_arg_key(const Arg& a, std::string& out);

// A pass made of a function, for the passes that need no state of their own.
class FunctionPass : public Pass {
 public:
  struct Info {
    std::string name, description;
    std::vector<PassOption> options{};
    bool numerics_in_eval_mode = false;
    double tolerance = 1e-5;  // relative, for --verify-numerics on floats
    // When set, the tolerance for the options the pass runs with (instead of `tolerance`).
    double (*tolerance_for)(const std::map<std::string, std::string>&) = nullptr;
  };
  FunctionPass(Info info, void (*run)(PassContext&)) : info_(std::move(info)), run_(run) {}
  std::string_view name() const override { return info_.name; }
  std::string_view description() const override { return info_.description; }
  std::vector<PassOption> options() const override { return info_.options; }
  bool numerics_in_eval_mode() const override { return info_.numerics_in_eval_mode; }
  double tolerance(const std::map<std::string, std::string>& options) const override {
    return info_.tolerance_for ? info_.tolerance_for(options) : info_.tolerance;
  }
  void run(PassContext& ctx) const override { run_(ctx); }

 private:
  Info info_;
  void (*run_)(PassContext&);
};

// Makes every use of `node` use `replacement` and erases `node` (a value that provably equals
// its replacement). Returns false, changing nothing, when `replacement` comes after a user.
bool forward(PassContext& ctx, NodeId node, NodeId replacement);

}  // namespace symshape::passes
