// The operator signature table (schema.h): parsing, the table's coverage of every rule and
// kernel, binding a call to an overload, and the errors a call that fits none gets.
#include <gtest/gtest.h>

#include <algorithm>

#include "op_test_util.h"
#include "symshape/interp.h"
#include "symshape/ops/schema_table.h"
#include "symshape/schema.h"

namespace symshape::testing {
namespace {

const OpSchema& only(std::string_view target) {
  std::vector<const OpSchema*> found = SchemaTable::instance().overloads(target);
  if (found.size() != 1) throw Error(std::string(target) + ": expected one overload");
  return *found[0];
}

TEST(SchemaParse, ReadsTypesDefaultsAndKeywordOnlyParameters) {
  OpSchema s = parse_schema(
      "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
      "ScalarType? dtype=None) -> Tensor");
  EXPECT_EQ(s.name, "aten.sum");
  EXPECT_EQ(s.overload, "dim_IntList");
  EXPECT_EQ(s.target(), "aten.sum.dim_IntList");
  ASSERT_EQ(s.params.size(), 4u);
  EXPECT_EQ(s.positional_count(), 3u);
  EXPECT_EQ(s.params[1].type, ParamType::IntList);
  EXPECT_TRUE(s.params[1].optional);
  EXPECT_FALSE(s.params[1].default_value.has_value());
  ASSERT_TRUE(s.params[2].default_value.has_value());
  EXPECT_EQ(s.params[2].default_value->kind, Arg::Kind::Bool);
  EXPECT_FALSE(s.params[2].default_value->boolean);
  EXPECT_TRUE(s.params[3].kwarg_only);
  EXPECT_EQ(s.params[3].type, ParamType::ScalarType);
  EXPECT_EQ(s.params[3].default_value->kind, Arg::Kind::None);
  EXPECT_EQ(s.returns, "Tensor");
  EXPECT_EQ(*s.position("keepdim"), 2u);
  EXPECT_EQ(s.param("out"), nullptr);
}

TEST(SchemaParse, ReadsAliasAnnotationsListsAndTheirDefaults) {
  OpSchema s = parse_schema(
      "aten.add_.Tensor(Tensor(a!) self, Tensor?[] indices, int[2] stride=[1, 2], "
      "float eps=1e-05, str mode=\"mean\", ScalarType dtype=long) -> Tensor(a!)");
  EXPECT_TRUE(s.params[0].writes);
  EXPECT_EQ(s.params[0].type, ParamType::Tensor);
  EXPECT_EQ(s.params[1].type, ParamType::OptionalTensorList);
  const Arg& stride = *s.params[2].default_value;
  ASSERT_EQ(stride.kind, Arg::Kind::List);
  ASSERT_EQ(stride.items.size(), 2u);
  EXPECT_EQ(stride.items[1].integer.str(), "2");
  EXPECT_DOUBLE_EQ(s.params[3].default_value->real, 1e-05);
  EXPECT_EQ(s.params[4].default_value->text, "mean");
  EXPECT_EQ(s.params[5].default_value->dtype, DType::Int64);
  EXPECT_EQ(s.str(),
            "aten.add_.Tensor(Tensor(a!) self, Tensor?[] indices, int[2] stride=[1, 2], "
            "float eps=1e-05, str mode=\"mean\", ScalarType dtype=long) -> Tensor(a!)");
}

TEST(SchemaParse, RefusesMalformedSignaturesSayingWhy) {
  auto error = [](std::string_view text) {
    try {
      parse_schema(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_TRUE(Contains(error("aten.relu"), "no '(' after the name"));
  EXPECT_TRUE(Contains(error("relu(Tensor self)"), "namespace.op[.overload]"));
  EXPECT_TRUE(Contains(error("aten.f(Tensor a, int a)"), "parameter 'a' appears twice"));
  EXPECT_TRUE(Contains(error("aten.f(Tensor)"), "has no name"));
  EXPECT_TRUE(Contains(error("aten.f(Ten$or a)"), "unknown type 'Ten$or'"));
  EXPECT_TRUE(Contains(error("aten.f(Tensor a"), "unclosed parameter list"));
  EXPECT_TRUE(Contains(error("aten.f(int a=nope)"), "cannot read the default 'nope'"));
}

// Every signature in the table parses, and prints back as the table writes it.
TEST(SchemaTable, EverySignatureParsesAndRoundTrips) {
  size_t count = 0;
  for (const std::string& packet : SchemaTable::instance().packets()) {
    for (const OpSchema* s : SchemaTable::instance().overloads(packet)) {
      OpSchema again = parse_schema(s->str());
      EXPECT_EQ(again.str(), s->str());
      ++count;
    }
  }
  EXPECT_GT(count, 1500u);
}

// Packets are looked up by binary search over the generated table, which the generator sorts by
// packet: every signature in it is found through its own target.
TEST(SchemaTable, FindsEveryGeneratedSignatureByItsTarget) {
  std::vector<std::string> lost;
  for (size_t i = 0; i < detail::kSchemaTableSize; ++i) {
    const OpSchema want = parse_schema(detail::kSchemaTable[i]);
    const std::vector<const OpSchema*> found = SchemaTable::instance().overloads(want.target());
    if (std::none_of(found.begin(), found.end(),
                     [&](const OpSchema* s) { return s->str() == want.str(); })) {
      lost.push_back(want.str());
    }
  }
  EXPECT_TRUE(lost.empty()) << lost.size() << " signatures not found, first " << lost.front();
}

// The rules and the kernels read their arguments by name through the table: each needs a
// signature there.
TEST(SchemaTable, EveryRuleAndKernelTargetHasASignature) {
  std::vector<std::string> missing;
  for (const std::string& t : OpRegistry::instance().targets())
    if (SchemaTable::instance().overloads(t).empty()) missing.push_back("rule " + t);
  for (const std::string& t : interp::KernelRegistry::instance().targets())
    if (SchemaTable::instance().overloads(t).empty()) missing.push_back("kernel " + t);
  EXPECT_TRUE(missing.empty()) << missing.size() << " without a signature, first "
                               << missing.front();
}

TEST(SchemaTable, ResolvesPacketsOverloadsDefaultAndInPlaceForms) {
  SchemaTable& table = const_cast<SchemaTable&>(SchemaTable::instance());
  std::vector<const OpSchema*> max = table.overloads("aten.max");
  ASSERT_GE(max.size(), 3u);
  EXPECT_EQ(max[0]->overload, "");  // the default overload first
  EXPECT_EQ(only("aten.max.dim").str(),
            "aten.max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor "
            "indices)");
  EXPECT_EQ(only("aten.relu.default").target(), "aten.relu");
  // aten.empty has no default overload: `.default` (as hand-written graphs say) means any.
  EXPECT_GE(table.overloads("aten.empty.default").size(), 1u);
  // An in-place op with a signature of its own, and one that borrows its functional form's.
  EXPECT_TRUE(only("aten.sigmoid_").params[0].writes);
  EXPECT_EQ(only("aten.isfinite_").target(), "aten.isfinite");
  EXPECT_TRUE(table.overloads("aten.no_such_op").empty());
  EXPECT_TRUE(table.overloads("aten.max.no_such_overload").empty());
}

TEST(SchemaTable, AddsAndReplacesSignaturesInACopy) {
  SchemaTable table = SchemaTable::instance();
  table.add("mylib::scale(Tensor x, float factor=2.0) -> Tensor");
  ASSERT_EQ(table.overloads("mylib.scale").size(), 1u);
  table.add("aten::relu(Tensor input) -> Tensor");
  ASSERT_EQ(table.overloads("aten.relu").size(), 1u);
  EXPECT_EQ(table.overloads("aten.relu")[0]->params[0].name, "input");
  // The standard table is untouched.
  EXPECT_EQ(only("aten.relu").params[0].name, "self");
  EXPECT_TRUE(SchemaTable::instance().overloads("mylib.scale").empty());
}

// ---- binding ----

Node call(const std::string& target, std::vector<Arg> args,
          std::vector<std::pair<std::string, Arg>> kwargs = {}) {
  Node n;
  n.name = "op";
  n.target = target;
  n.args = std::move(args);
  n.kwargs = std::move(kwargs);
  return n;
}

// Node arguments named t* are tensors, s* ints (SymInts), the rest unknown.
ArgClass classify(const Arg& a) {
  if (a.text.starts_with("t")) return ArgClass::Tensor;
  if (a.text.starts_with("s")) return ArgClass::Int;
  return ArgClass::Other;
}

BoundArgs bind(const Node& n) {
  return bind_arguments(n, SchemaTable::instance().overloads(n.target), classify);
}

std::string bind_error(const Node& n) {
  try {
    bind(n);
  } catch (const Error& e) {
    return e.what();
  }
  return "(bound)";
}

TEST(BindArguments, PicksThePacketOverloadTheArgumentsFit) {
  EXPECT_EQ(bind(call("aten.max", {T("t")})).schema()->target(), "aten.max");
  EXPECT_EQ(bind(call("aten.max", {T("t"), I(1)})).schema()->target(), "aten.max.dim");
  EXPECT_EQ(bind(call("aten.max", {T("t"), T("t2")})).schema()->target(), "aten.max.other");
  EXPECT_EQ(bind(call("aten.max", {T("t")}, {{"dim", T("s0")}})).schema()->target(),
            "aten.max.dim");
  EXPECT_EQ(bind(call("aten.sum", {T("t"), Ints({1})})).schema()->target(), "aten.sum.dim_IntList");
  EXPECT_EQ(bind(call("aten.arange", {I(5)})).schema()->target(), "aten.arange");
  EXPECT_EQ(bind(call("aten.arange", {I(0), T("s")})).schema()->target(), "aten.arange.start");
  EXPECT_EQ(bind(call("aten.arange", {I(0), T("s"), I(2)})).schema()->target(),
            "aten.arange.start_step");
  // A number where a Tensor is expected fits loosely (PyTorch wraps it), after exact fits.
  EXPECT_EQ(bind(call("aten.add", {T("t"), I(2)})).schema()->target(), "aten.add.Scalar");
  EXPECT_EQ(bind(call("aten.add.Tensor", {T("t"), I(2)})).schema()->target(), "aten.add.Tensor");
}

TEST(BindArguments, ReadsArgumentsByPositionKeywordOrDefault) {
  Node n = call("aten.sum.dim_IntList", {T("t"), Ints({0, 1})}, {{"keepdim", B(true)}});
  BoundArgs b = bind(n);
  EXPECT_EQ(b.get("dim"), &n.args[1]);
  EXPECT_EQ(b.get("keepdim"), &n.kwargs[0].second);
  EXPECT_TRUE(b.given("keepdim"));
  ASSERT_NE(b.get("dtype"), nullptr);  // the default, None
  EXPECT_EQ(b.get("dtype")->kind, Arg::Kind::None);
  EXPECT_FALSE(b.given("dtype"));
  EXPECT_TRUE(b.declares("dtype"));
  EXPECT_FALSE(b.declares("out"));
  EXPECT_THROW(b.get("out"), Error);

  Node plain = call("aten.sum.dim_IntList", {T("t"), I(1)});
  const Arg* keepdim = bind(plain).get("keepdim");
  ASSERT_NE(keepdim, nullptr);
  EXPECT_EQ(keepdim->kind, Arg::Kind::Bool);
  EXPECT_FALSE(keepdim->boolean);
}

TEST(BindArguments, RefusesCallsThatFitNoOverloadSayingWhy) {
  EXPECT_TRUE(Contains(bind_error(call("aten.relu.default", {T("t"), T("t")})),
                       "aten.relu takes 1 positional argument, got 2"));
  EXPECT_TRUE(Contains(bind_error(call("aten.relu.default", {T("t")}, {{"inplace", I(1)}})),
                       "has no argument 'inplace'"));
  EXPECT_TRUE(Contains(bind_error(call("aten.view.default", {T("t"), S("six")})),
                       "argument 'size' is SymInt[], got 'six'"));
  EXPECT_TRUE(
      Contains(bind_error(call("aten.sum.dim_IntList", {T("t"), Ints({1})}, {{"dim", Ints({0})}})),
               "argument 'dim' is given twice"));
  // A packet lists what each overload says.
  std::string e = bind_error(call("aten.max", {T("t"), S("x"), S("y"), S("z")}));
  EXPECT_TRUE(Contains(e, "no overload of aten.max takes these arguments")) << e;
  EXPECT_TRUE(Contains(e, "aten.max.dim(Tensor self, int dim, bool keepdim=False)")) << e;
  EXPECT_TRUE(Contains(bind_error(call("aten.no_such_op", {})), "no operator signature"));
}

// Through propagation: a call that fits no signature is bad input naming the node.
TEST(BindArguments, PropagationReportsAMisfitCallAsBadInput) {
  auto r = run_op({Input{"x", DType::Float32, {"n", "4"}}}, "aten.sum.dim_IntList",
                  {T("x"), Ints({1})}, {{"dims", Ints({0})}});
  EXPECT_EQ(r.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(r.error(), "node op (aten.sum.dim_IntList)")) << r.error();
  EXPECT_TRUE(Contains(r.error(), "has no argument 'dims'")) << r.error();
}

// Propagates placeholder x (dtype, shape), then `op` (named op), the output, under `ops`.
Propagation propagate_with(const OpRegistry& ops, DType dtype, std::vector<Expr> shape, Node op) {
  Graph g;
  Node x;
  x.name = "x";
  x.op = NodeOp::Placeholder;
  x.target = "x";
  x.dtype = dtype;
  x.shape = std::move(shape);
  g.nodes.push_back(x);
  g.nodes.push_back(std::move(op));
  Node out;
  out.name = "output";
  out.op = NodeOp::Output;
  out.target = "output";
  out.args = {Arg::node("op")};
  g.nodes.push_back(out);
  ShapeEnv env;
  PropagateOptions options;
  options.registry = &ops;
  return propagate(g, env, options);
}

// A rule that reads a parameter none of its op's signatures has is a bug, reported as one.
TEST(BindArguments, ARuleReadingAnUndeclaredNameFailsLoudly) {
  OpRegistry ops = OpRegistry::instance();
  ops.add("aten.relu", [](OpContext& ctx) { return Value::of(ctx.tensor("input")); });
  Propagation p =
      propagate_with(ops, DType::Float32, {Expr(3)}, call("aten.relu.default", {Arg::node("x")}));
  EXPECT_NE(p.status, Propagation::Status::Ok);
  EXPECT_TRUE(Contains(p.error, "reads an argument 'input', which none of its signatures has"))
      << p.error;
}

// docs/ops.md's custom op: its signature defined once, its rule in a copy of the registry.
TEST(SchemaTable, DefinesACustomOpThatRulesReadByName) {
  SchemaTable::define("mylib::scale(Tensor x, float factor=2.0) -> Tensor");
  SchemaTable::define("mylib::scale(Tensor x, float factor=2.0) -> Tensor");  // again: no-op
  try {
    SchemaTable::define("mylib::scale(Tensor x, int factor) -> Tensor");
    ADD_FAILURE() << "a different signature for mylib.scale was accepted";
  } catch (const Error& e) {
    EXPECT_TRUE(Contains(e.what(),
                         "already has the signature mylib.scale(Tensor x, float "
                         "factor=2.0) -> Tensor"))
        << e.what();
  }
  OpRegistry ops = OpRegistry::instance();
  ops.add("mylib.scale", [](OpContext& ctx) {
    TensorMeta x = ctx.tensor("x");
    ctx.real("factor", 2.0);
    TensorMeta out;
    out.dtype = x.dtype;
    out.sizes = x.sizes;
    return Value::of(out);
  });
  for (auto [kwargs, ok] : {std::pair<Kwargs, bool>{{}, true},
                            {{{"factor", F(0.5)}}, true},
                            {{{"factor", S("big")}}, false},
                            {{{"scale", F(0.5)}}, false}}) {
    Propagation p = propagate_with(ops, DType::Float16, {parse_expr("n").value(), Expr(4)},
                                   call("mylib.scale", {Arg::node("x")}, kwargs));
    EXPECT_EQ(p.ok(), ok) << p.error;
    if (ok) {
      EXPECT_EQ(p.values[1].str(), "float16[n, 4]");
    }
  }
}

}  // namespace
}  // namespace symshape::testing
