// MutableGraph: the graph a pass rewrites. Every edit keeps the order, the name index and the
// users exact, and an edit that would leave the graph inconsistent throws and changes nothing.
// Also Graph::index_of after direct edits of `nodes`, and the target resolver.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "symshape/ir.h"

namespace symshape {
namespace {

Node placeholder(const std::string& name) {
  Node n;
  n.name = name;
  n.op = NodeOp::Placeholder;
  n.dtype = DType::Float32;
  n.shape = std::vector<Expr>{Expr::symbol("batch"), Expr(4)};
  return n;
}

Node call_node(const std::string& name, const std::string& target, std::vector<Arg> args) {
  Node n;
  n.name = name;
  n.op = NodeOp::CallFunction;
  n.target = target;
  n.args = std::move(args);
  return n;
}

Node output(std::vector<Arg> items) {
  Node n;
  n.name = "output";
  n.op = NodeOp::Output;
  n.args = {Arg::list(std::move(items))};
  return n;
}

Value meta() { return Value::of(TensorMeta{DType::Float32, {Expr::symbol("batch"), 4}, {}}); }

// x, y -> a = add(x, y) -> b = relu(a) -> c = mul(a, b) -> output [c]
MutableGraph sample() {
  Graph g;
  g.dims.push_back({"batch", DimDecl{Int(2), Int(64), Int(8)}});
  g.nodes = {placeholder("x"),
             placeholder("y"),
             call_node("a", "aten.add.Tensor", {Arg::node("x"), Arg::node("y")}),
             call_node("b", "aten.relu.default", {Arg::node("a")}),
             call_node("c", "aten.mul.Tensor", {Arg::node("a"), Arg::node("b")}),
             output({Arg::node("c")})};
  std::vector<Value> values(g.nodes.size(), meta());
  values.back() = Value::list({meta()});
  return MutableGraph(std::move(g), std::move(values));
}

std::vector<std::string> order_names(const MutableGraph& g) {
  std::vector<std::string> out;
  for (NodeId id : g.order()) out.push_back(g.node(id).name);
  return out;
}

std::vector<std::string> names_of(const MutableGraph& g, const std::vector<NodeId>& ids) {
  std::vector<std::string> out;
  for (NodeId id : ids) out.push_back(g.node(id).name);
  return out;
}

using Names = std::vector<std::string>;

TEST(MutableGraph, StartsAsTheGraph) {
  MutableGraph g = sample();
  EXPECT_EQ(g.size(), 6u);
  EXPECT_EQ(order_names(g), (Names{"x", "y", "a", "b", "c", "output"}));
  EXPECT_EQ(g.node(g.output()).op, NodeOp::Output);
  EXPECT_EQ(g.find("nope"), kNoNode);
  EXPECT_EQ(names_of(g, g.users(g.find("a"))), (Names{"b", "c"}));
  EXPECT_EQ(names_of(g, g.inputs(g.find("c"))), (Names{"a", "b"}));
  EXPECT_TRUE(g.before(g.find("x"), g.find("c")));
  EXPECT_FALSE(g.before(g.find("c"), g.find("x")));
  EXPECT_EQ(g.dims().size(), 1u);
}

TEST(MutableGraph, RefusesAGraphThatDoesNotVerifyOrValuesOfAnotherLength) {
  Graph g;
  g.nodes = {call_node("a", "aten.relu.default", {Arg::node("later")}), placeholder("later"),
             output({Arg::node("a")})};
  EXPECT_THROW(MutableGraph(g, std::vector<Value>(3)), Error);
  Graph ok;
  ok.nodes = {placeholder("x"), output({Arg::node("x")})};
  EXPECT_THROW(MutableGraph(ok, std::vector<Value>(1)), Error);
}

TEST(MutableGraph, InsertBeforeAndAfter) {
  MutableGraph g = sample();
  NodeId a = g.find("a");
  NodeId n1 = g.insert_after(a, call_node("neg", "aten.neg.default", {Arg::node("a")}), meta());
  NodeId n0 = g.insert_before(a, call_node("exp", "aten.exp.default", {Arg::node("x")}), meta());
  EXPECT_EQ(order_names(g), (Names{"x", "y", "exp", "a", "neg", "b", "c", "output"}));
  EXPECT_EQ(g.prev(n1), a);
  EXPECT_EQ(g.next(n0), a);
  EXPECT_EQ(names_of(g, g.users(a)), (Names{"neg", "b", "c"}));
  EXPECT_EQ(names_of(g, g.users(g.find("x"))), (Names{"exp", "a"}));
  EXPECT_EQ(g.find("neg"), n1);
  EXPECT_EQ(g.size(), 8u);
}

TEST(MutableGraph, InsertRefusesForwardReferencesUnknownNamesAndASecondOutput) {
  MutableGraph g = sample();
  const std::string before = write_graph(g.graph());
  // neg(c) before a: c comes later.
  EXPECT_THROW(
      g.insert_before(g.find("a"), call_node("neg", "aten.neg.default", {Arg::node("c")}), meta()),
      Error);
  // A reference inside a list is checked too.
  EXPECT_THROW(g.insert_before(g.find("a"),
                               call_node("cat", "aten.cat.default",
                                         {Arg::list({Arg::node("x"), Arg::node("b")})}),
                               meta()),
               Error);
  EXPECT_THROW(g.insert_after(g.find("c"),
                              call_node("neg", "aten.neg.default", {Arg::node("nope")}), meta()),
               Error);
  EXPECT_THROW(
      g.insert_after(g.output(), call_node("neg", "aten.neg.default", {Arg::node("c")}), meta()),
      Error);
  EXPECT_THROW(g.insert_before(g.output(), output({Arg::node("c")}), Value()), Error);
  EXPECT_EQ(write_graph(g.graph()), before);
  EXPECT_EQ(g.edits().inserted, 0u);
  EXPECT_EQ(g.size(), 6u);
}

TEST(MutableGraph, InsertMakesATakenNameFresh) {
  MutableGraph g = sample();
  EXPECT_EQ(g.fresh_name("a"), "a_1");
  EXPECT_EQ(g.fresh_name("z"), "z");
  EXPECT_EQ(g.fresh_name(""), "node");
  NodeId a1 =
      g.insert_after(g.find("a"), call_node("a", "aten.neg.default", {Arg::node("a")}), meta());
  EXPECT_EQ(g.node(a1).name, "a_1");
  EXPECT_EQ(g.fresh_name("a"), "a_2");
  NodeId a2 = g.insert_after(a1, call_node("a", "aten.neg.default", {Arg::node("a_1")}), meta());
  EXPECT_EQ(g.node(a2).name, "a_2");
  EXPECT_EQ(g.find("a_2"), a2);
}

TEST(MutableGraph, ReplaceAllUses) {
  MutableGraph g = sample();
  NodeId a = g.find("a"), x = g.find("x");
  EXPECT_EQ(g.replace_all_uses(a, x), 2u);
  EXPECT_FALSE(g.has_users(a));
  EXPECT_EQ(names_of(g, g.users(x)), (Names{"a", "b", "c"}));
  EXPECT_EQ(g.node(g.find("c")).args[0].text, "x");
  EXPECT_EQ(g.edits().rewritten, 2u);
  EXPECT_EQ(g.replace_all_uses(x, x), 0u);
}

TEST(MutableGraph, ReplaceAllUsesRefusesAReplacementAfterAUser) {
  MutableGraph g = sample();
  const std::string before = write_graph(g.graph());
  // a's users b and c: c comes after b, so b cannot take c.
  EXPECT_THROW(g.replace_all_uses(g.find("a"), g.find("c")), Error);
  EXPECT_THROW(g.replace_all_uses(g.find("a"), g.find("b")), Error);
  EXPECT_EQ(write_graph(g.graph()), before);
  EXPECT_EQ(names_of(g, g.users(g.find("a"))), (Names{"b", "c"}));
  EXPECT_EQ(g.edits().rewritten, 0u);
}

TEST(MutableGraph, ReplaceAllUsesWithALiteral) {
  Graph graph;
  graph.nodes = {placeholder("x"),
                 call_node("n", "aten.sym_size.int", {Arg::node("x"), Arg::of_int(1)}),
                 call_node("v", "aten.view.default",
                           {Arg::node("x"), Arg::list({Arg::node("n"), Arg::of_int(-1)})}),
                 output({Arg::node("v")})};
  MutableGraph g(graph, std::vector<Value>(4));
  EXPECT_EQ(g.replace_all_uses(g.find("n"), Arg::of_int(4)), 1u);
  EXPECT_EQ(g.node(g.find("v")).args[1].str(), "[4, -1]");
  EXPECT_FALSE(g.has_users(g.find("n")));
  EXPECT_THROW(g.replace_all_uses(g.find("x"), Arg::node("n")), Error);
  EXPECT_THROW(g.replace_all_uses(g.find("x"), Arg::list({})), Error);
}

TEST(MutableGraph, EraseRefusesANodeWithUsersAndTheOutput) {
  MutableGraph g = sample();
  try {
    g.erase(g.find("a"));
    FAIL() << "erased a node with users";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "node 'a' still has 2 user(s), the first 'b'");
  }
  EXPECT_THROW(g.erase(g.output()), Error);
  EXPECT_EQ(g.size(), 6u);
  // Once unused, it goes, and with it its uses of x and y.
  g.set_args(g.find("b"), {Arg::node("x")}, {});
  g.set_args(g.find("c"), {Arg::node("x"), Arg::node("b")}, {});
  NodeId a = g.find("a");
  g.erase(a);
  EXPECT_FALSE(g.alive(a));
  EXPECT_EQ(g.find("a"), kNoNode);
  EXPECT_EQ(names_of(g, g.users(g.find("y"))), Names{});
  EXPECT_EQ(order_names(g), (Names{"x", "y", "b", "c", "output"}));
  EXPECT_THROW(g.node(a), Error);
  EXPECT_THROW(g.erase(a), Error);
  EXPECT_EQ(g.edits().erased, 1u);
  EXPECT_EQ(g.edits().rewritten, 2u);
  // The name is free again.
  EXPECT_EQ(g.fresh_name("a"), "a");
}

TEST(MutableGraph, SetArgsRefusesForwardReferences) {
  MutableGraph g = sample();
  NodeId b = g.find("b");
  EXPECT_THROW(g.set_args(b, {Arg::node("c")}, {}), Error);
  EXPECT_THROW(g.set_args(b, {Arg::node("b")}, {}), Error);  // itself
  EXPECT_THROW(g.set_args(b, {Arg::node("a")}, {{"out", Arg::node("c")}}), Error);
  EXPECT_EQ(g.node(b).args[0].text, "a");
  EXPECT_EQ(names_of(g, g.users(g.find("a"))), (Names{"b", "c"}));
  EXPECT_EQ(g.edits().rewritten, 0u);
  g.set_args(b, {Arg::node("y")}, {{"alpha", Arg::of_int(2)}});
  EXPECT_EQ(names_of(g, g.users(g.find("a"))), (Names{"c"}));
  EXPECT_EQ(names_of(g, g.users(g.find("y"))), (Names{"a", "b"}));
  EXPECT_EQ(g.edits().rewritten, 1u);
}

TEST(MutableGraph, SetTargetOnlyOnCalls) {
  MutableGraph g = sample();
  g.set_target(g.find("b"), "aten.neg.default");
  EXPECT_EQ(g.node(g.find("b")).target, "aten.neg.default");
  EXPECT_THROW(g.set_target(g.find("x"), "aten.neg.default"), Error);
  EXPECT_THROW(g.set_target(g.find("b"), ""), Error);
  EXPECT_EQ(g.edits().rewritten, 1u);
}

TEST(MutableGraph, UsersAreDistinctAndInGraphOrder) {
  MutableGraph g = sample();
  // mul(a, a) uses a once; inserted before b, it comes first among a's users.
  g.insert_before(g.find("b"), call_node("sq", "aten.mul.Tensor", {Arg::node("a"), Arg::node("a")}),
                  meta());
  EXPECT_EQ(names_of(g, g.users(g.find("a"))), (Names{"sq", "b", "c"}));
  EXPECT_EQ(names_of(g, g.inputs(g.find("sq"))), (Names{"a"}));
}

TEST(MutableGraph, GraphRoundTripAfterManyEdits) {
  MutableGraph g = sample();
  // A chain of 50 negations after a, which b and c then read instead of a; then a is replaced by
  // x in the chain's head and erased.
  NodeId a = g.find("a");
  NodeId last = a;
  for (int i = 0; i < 50; ++i) {
    last = g.insert_after(last, call_node("n", "aten.neg.default", {Arg::node(g.node(last).name)}),
                          meta());
  }
  const std::string tail = g.node(last).name;
  EXPECT_EQ(tail, "n_49");
  g.set_args(g.find("b"), {Arg::node(tail)}, {});
  g.set_args(g.find("c"), {Arg::node(tail), Arg::node("b")}, {});
  EXPECT_EQ(g.replace_all_uses(a, g.find("x")), 1u);
  g.erase(a);
  Graph out = g.graph();
  EXPECT_EQ(verify(out).value_or(""), "");
  EXPECT_EQ(out.nodes.size(), 55u);
  EXPECT_EQ(out.nodes[2].name, "n");
  EXPECT_EQ(out.nodes[2].args[0].text, "x");
  EXPECT_EQ(out.nodes[51].name, "n_49");
  EXPECT_EQ(g.values().size(), out.nodes.size());
  // Written and read back, it is the same graph, and a MutableGraph of it has the same users.
  Expected<Graph> back = read_graph(write_graph(out));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(write_graph(*back), write_graph(out));
  MutableGraph again(*back, g.values());
  EXPECT_EQ(order_names(again), order_names(g));
  EXPECT_EQ(names_of(again, again.users(again.find("n_49"))), (Names{"b", "c"}));
  EXPECT_EQ(names_of(g, g.users(g.find("n_49"))), (Names{"b", "c"}));
  EXPECT_EQ(names_of(g, g.users(g.find("x"))), (Names{"n"}));
}

TEST(MutableGraph, OrderKeysSurviveManyInsertsAtOneSpot) {
  // Inserting always right after x halves the same key gap until it is used up and the keys
  // are renumbered; the order must stay exact through it.
  MutableGraph g = sample();
  NodeId x = g.find("x");
  std::vector<NodeId> inserted;
  for (int i = 0; i < 80; ++i) {
    inserted.push_back(g.insert_after(
        x, call_node("k" + std::to_string(i), "aten.neg.default", {Arg::node("x")}), meta()));
  }
  std::vector<std::string> names = order_names(g);
  ASSERT_EQ(names.size(), 86u);
  EXPECT_EQ(names[0], "x");
  for (int i = 0; i < 80; ++i) EXPECT_EQ(names[1 + i], "k" + std::to_string(79 - i));
  EXPECT_EQ(names[81], "y");
  for (size_t i = 1; i < inserted.size(); ++i) {
    EXPECT_TRUE(g.before(inserted[i], inserted[i - 1])) << i;
    EXPECT_TRUE(g.before(x, inserted[i]));
    EXPECT_TRUE(g.before(inserted[i], g.find("y")));
  }
  // And before the front, where the gap is the first key's.
  for (int i = 0; i < 70; ++i)
    g.insert_before(g.front(), placeholder("p" + std::to_string(i)), meta());
  names = order_names(g);
  EXPECT_EQ(names[0], "p69");
  EXPECT_EQ(names[69], "p0");
  EXPECT_EQ(names[70], "x");
  EXPECT_EQ(names_of(g, g.users(x)).size(), 81u);  // the k's and a, in order
  EXPECT_EQ(names_of(g, g.users(x)).front(), "k79");
  EXPECT_EQ(names_of(g, g.users(x)).back(), "a");
  EXPECT_EQ(verify(g.graph()).value_or(""), "");
  EXPECT_EQ(g.edits().inserted, 150u);
}

TEST(MutableGraph, EditCountsAddUp) {
  MutableGraph g = sample();
  NodeId n =
      g.insert_after(g.find("c"), call_node("neg", "aten.neg.default", {Arg::node("c")}), meta());
  g.set_args(g.output(), {Arg::list({Arg::node("neg")})}, {});
  g.replace_all_uses(n, g.find("c"));
  g.erase(n);
  EXPECT_EQ(g.edits().inserted, 1u);
  EXPECT_EQ(g.edits().rewritten, 2u);
  EXPECT_EQ(g.edits().erased, 1u);
  EXPECT_EQ(g.size(), 6u);
}

// ---- Graph::index_of after direct edits ----

TEST(GraphIndex, StaysRightWhenNodesAreEditedDirectly) {
  Graph g;
  g.nodes = {placeholder("x"), placeholder("y"),
             call_node("a", "aten.add.Tensor", {Arg::node("x"), Arg::node("y")}),
             output({Arg::node("a")})};
  EXPECT_EQ(g.index_of("a"), 2u);
  EXPECT_EQ(g.index_of("y"), 1u);
  // A rename: the old name is gone, the new one found.
  g.nodes[2].name = "sum";
  EXPECT_EQ(g.index_of("a"), g.nodes.size());
  EXPECT_EQ(g.find("a"), nullptr);
  EXPECT_EQ(g.index_of("sum"), 2u);
  // An insert at the front shifts every position.
  g.nodes.insert(g.nodes.begin(), placeholder("w"));
  EXPECT_EQ(g.index_of("w"), 0u);
  EXPECT_EQ(g.index_of("x"), 1u);
  EXPECT_EQ(g.index_of("sum"), 3u);
  EXPECT_EQ(g.index_of("output"), 4u);
  // An erase, and a name that moves to another node.
  g.nodes.erase(g.nodes.begin() + 1);
  g.nodes[0].name = "x";
  EXPECT_EQ(g.index_of("x"), 0u);
  EXPECT_EQ(g.index_of("w"), g.nodes.size());
  EXPECT_EQ(g.find("sum")->target, "aten.add.Tensor");
  // A copy carries the nodes, and its own index answers for them.
  Graph copy = g;
  copy.nodes.pop_back();
  EXPECT_EQ(copy.index_of("output"), copy.nodes.size());
  EXPECT_EQ(g.index_of("output"), 3u);
}

// ---- targets ----

TEST(Targets, ParseTarget) {
  TargetName add = parse_target("aten.add.Tensor");
  EXPECT_EQ(add.packet, "aten.add");
  EXPECT_EQ(add.overload, "Tensor");
  EXPECT_FALSE(add.in_place);
  EXPECT_EQ(add.functional(), "");

  TargetName add_ = parse_target("aten.add_.Tensor");
  EXPECT_EQ(add_.packet, "aten.add_");
  EXPECT_TRUE(add_.in_place);
  EXPECT_EQ(add_.functional(), "aten.add.Tensor");
  EXPECT_EQ(parse_target("aten.relu_").functional(), "aten.relu");

  TargetName band = parse_target("aten.__and__.Tensor");
  EXPECT_EQ(band.packet, "aten.__and__");
  EXPECT_FALSE(band.in_place);

  TargetName getitem = parse_target("operator.getitem");
  EXPECT_EQ(getitem.packet, "operator.getitem");
  EXPECT_EQ(getitem.overload, "");
  EXPECT_FALSE(getitem.in_place);

  EXPECT_FALSE(parse_target("aten._").in_place);
  EXPECT_FALSE(parse_target("aten._foo.default").in_place);
  EXPECT_EQ(parse_target("relu").packet, "relu");
}

TEST(Targets, ResolveTarget) {
  const std::vector<std::string> known = {"aten.add.Tensor", "aten.relu", "operator.getitem",
                                          "aten.__and__.Tensor"};
  auto registered = [&](std::string_view t) {
    return std::find(known.begin(), known.end(), t) != known.end();
  };
  auto key = [&](std::string_view t) {
    auto m = resolve_target(t, registered);
    return m ? m->key + (m->in_place ? " (in place)" : "") : std::string("none");
  };
  EXPECT_EQ(key("aten.add.Tensor"), "aten.add.Tensor");
  EXPECT_EQ(key("aten.add_.Tensor"), "aten.add.Tensor (in place)");
  EXPECT_EQ(key("aten.add.Scalar"), "none");         // no packet entry for aten.add
  EXPECT_EQ(key("aten.relu.default"), "aten.relu");  // the packet's entry
  EXPECT_EQ(key("aten.relu_.default"), "aten.relu (in place)");
  EXPECT_EQ(key("aten.relu_"), "aten.relu (in place)");
  EXPECT_EQ(key("operator.getitem"), "operator.getitem");
  EXPECT_EQ(key("aten.__and__.Tensor"), "aten.__and__.Tensor");
  EXPECT_EQ(key("aten.__and_.Tensor"), "none");
  EXPECT_EQ(key("aten.mul.Tensor"), "none");
}

}  // namespace
}  // namespace symshape
