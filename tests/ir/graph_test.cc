// TensorMeta, Value, Arg and Graph helpers: what they compute and how they render in messages.
#include <gtest/gtest.h>

#include <limits>

#include "symshape/ir.h"

namespace symshape {
namespace {

Expr sym(const char* name) { return Expr::symbol(name); }

std::vector<std::string> strs(const std::vector<Expr>& es) {
  std::vector<std::string> out;
  for (const Expr& e : es) out.push_back(e.str());
  return out;
}

TEST(TensorMeta, NumelIsTheProductOfSizes) {
  TensorMeta t{DType::Float32, {sym("s0"), 4, 2}, {}};
  EXPECT_EQ(t.rank(), 3u);
  EXPECT_EQ(t.numel().str(), "8*s0");
  EXPECT_EQ(TensorMeta{}.numel().str(), "1");  // a scalar has one element
  EXPECT_EQ((TensorMeta{DType::Int64, {3, 0}, {}}).numel().str(), "0");
}

TEST(TensorMeta, ContiguousStrides) {
  using V = std::vector<std::string>;
  EXPECT_EQ(strs(TensorMeta::contiguous_strides({2, 3, 4})), (V{"12", "4", "1"}));
  EXPECT_EQ(strs(TensorMeta::contiguous_strides({sym("s0"), sym("s1"), 4})), (V{"4*s1", "4", "1"}));
  EXPECT_TRUE(TensorMeta::contiguous_strides({}).empty());
  // As torch.empty(2, 0, 3).stride() == (3, 3, 1): a zero size does not zero outer strides.
  EXPECT_EQ(strs(TensorMeta::contiguous_strides({2, 0, 3})), (V{"3", "3", "1"}));
  EXPECT_EQ(strs(TensorMeta::contiguous_strides({5, 1, 3})), (V{"3", "3", "1"}));
}

TEST(TensorMeta, Str) {
  TensorMeta t{DType::Float32, {sym("s0"), 4096}, {}};
  EXPECT_EQ(t.str(), "float32[s0, 4096]");
  EXPECT_EQ((TensorMeta{DType::Int64, {}, {}}).str(), "int64[]");
  EXPECT_EQ((TensorMeta{DType::BFloat16, {floordiv(sym("s0"), 2) + 1}, {}}).str(),
            "bfloat16[s0//2 + 1]");
}

TEST(Value, ConstructorsAndStr) {
  EXPECT_EQ(Value::none().str(), "None");
  EXPECT_EQ(Value::none().kind, Value::Kind::None);
  Value t = Value::of(TensorMeta{DType::Float32, {sym("s0"), 4}, {}});
  EXPECT_TRUE(t.is_tensor());
  EXPECT_EQ(t.str(), "float32[s0, 4]");
  EXPECT_EQ(Value::of_int(sym("s0") + 1).str(), "s0 + 1");
  EXPECT_EQ(Value::of_int(sym("s0") + 1).kind, Value::Kind::Int);
  EXPECT_EQ(Value::of_float(0.5).str(), "0.5");
  EXPECT_EQ(Value::of_float(2).str(), "2.0");
  EXPECT_EQ(Value::of_bool(true).str(), "True");
  EXPECT_EQ(Value::of_bool(false).str(), "False");
  EXPECT_EQ(Value::of_bool(std::nullopt).str(), "bool");
  Value pair = Value::list({Value::of(TensorMeta{DType::Float32, {2}, {}}),
                            Value::of(TensorMeta{DType::Int64, {2}, {}})});
  EXPECT_EQ(pair.kind, Value::Kind::List);
  EXPECT_EQ(pair.str(), "(float32[2], int64[2])");
  EXPECT_EQ(Value::list({Value::of_int(3)}).str(), "(3,)");
  EXPECT_EQ(Value::list({}).str(), "()");
}

TEST(Arg, ConstructorsAndStr) {
  EXPECT_EQ(Arg::none().str(), "None");
  EXPECT_EQ(Arg::node("x").kind, Arg::Kind::Node);
  EXPECT_EQ(Arg::node("x").str(), "%x");
  EXPECT_EQ(Arg::of_int(sym("s0") * 2).str(), "2*s0");
  EXPECT_EQ(Arg::list({Arg::of_int(2), Arg::of_int(sym("s0"))}).str(), "[2, s0]");
  Arg d;
  d.kind = Arg::Kind::DType;
  d.dtype = DType::Float16;
  EXPECT_EQ(d.str(), "float16");
  Arg f;
  f.kind = Arg::Kind::Float;
  f.real = 1e-5;
  EXPECT_EQ(f.str(), "1e-05");
  f.real = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(f.str(), "-inf");
  Arg s;
  s.kind = Arg::Kind::String;
  s.text = "floor";
  EXPECT_EQ(s.str(), "'floor'");
  Arg b;
  b.kind = Arg::Kind::Bool;
  b.boolean = true;
  EXPECT_EQ(b.str(), "True");
  EXPECT_EQ(Arg::list({Arg::list({}), Arg::node("y"), Arg::none()}).str(), "[[], %y, None]");
}

TEST(NodeOp, Names) {
  EXPECT_EQ(to_string(NodeOp::Placeholder), "placeholder");
  EXPECT_EQ(to_string(NodeOp::GetAttr), "get_attr");
  EXPECT_EQ(to_string(NodeOp::CallFunction), "call_function");
  EXPECT_EQ(to_string(NodeOp::Output), "output");
}

TEST(Node, Kwarg) {
  Node n;
  n.kwargs.emplace_back("alpha", Arg::of_int(2));
  n.kwargs.emplace_back("out", Arg::none());
  ASSERT_NE(n.kwarg("alpha"), nullptr);
  EXPECT_EQ(n.kwarg("alpha")->str(), "2");
  ASSERT_NE(n.kwarg("out"), nullptr);
  EXPECT_EQ(n.kwarg("out")->kind, Arg::Kind::None);
  EXPECT_EQ(n.kwarg("beta"), nullptr);
}

TEST(Graph, Lookups) {
  Graph g;
  g.dims.push_back({"batch", DimDecl{Int(1), Int(64), Int(8)}});
  Node x;
  x.name = "x";
  x.op = NodeOp::Placeholder;
  Node y;
  y.name = "y";
  g.nodes = {x, y};
  EXPECT_EQ(g.index_of("y"), 1u);
  EXPECT_EQ(g.index_of("z"), 2u);
  ASSERT_NE(g.find("x"), nullptr);
  EXPECT_EQ(g.find("x")->op, NodeOp::Placeholder);
  EXPECT_EQ(g.find("z"), nullptr);
  ASSERT_NE(g.dim("batch"), nullptr);
  EXPECT_EQ(to_string(*g.dim("batch")->max), "64");
  EXPECT_EQ(g.dim("seq"), nullptr);
}

}  // namespace
}  // namespace symshape
