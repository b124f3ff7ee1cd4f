// Creation kernels (empty, zeros, full, arange, linspace, eye, *_like, new_*, casts, copy):
// hand-computed values, and the op cases for the shape property test.
#include <gtest/gtest.h>

#include "tests/interp/interp_test_util.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {

namespace {

Arg tagged(Arg::Kind kind, const std::string& text) {
  Arg a;
  a.kind = kind;
  a.text = text;
  return a;
}
Arg Device(const std::string& d) { return tagged(Arg::Kind::Device, d); }

interp::RunResult run_one(const std::vector<std::pair<std::string, interp::Tensor>>& inputs,
                          const std::string& target, std::vector<Arg> args, Kwargs kwargs = {}) {
  return run_calls(inputs, {Call{"op", target, std::move(args), std::move(kwargs)}});
}

interp::Tensor out_of(const interp::RunResult& r) {
  EXPECT_TRUE(r.ok) << r.error;
  return r.ok ? r.output().tensor : interp::Tensor();
}

TEST(CreationKernels, Factories) {
  interp::Tensor z = out_of(run_one({}, "aten.zeros.default", {Ints({2, 3})}));
  EXPECT_EQ(z.str(), "float32[2, 3]");
  EXPECT_EQ(values_of(z), std::vector<double>(6, 0.0));
  interp::Tensor o =
      out_of(run_one({}, "aten.ones.default", {Ints({2})}, {{"dtype", D(DType::Int32)}}));
  EXPECT_EQ(o.str(), "int32[2]");
  EXPECT_EQ(values_of(o), (std::vector<double>{1, 1}));
  interp::Tensor f = out_of(run_one({}, "aten.full.default", {Ints({2}), I(7)}));
  EXPECT_EQ(f.str(), "int64[2]");  // an int fill value makes int64
  EXPECT_EQ(values_of(f), (std::vector<double>{7, 7}));
  EXPECT_EQ(out_of(run_one({}, "aten.full.default", {Ints({1}), B(true)})).str(), "bool[1]");
  interp::Tensor ff = out_of(run_one({}, "aten.full.default", {Ints({1}), F(0.1)}));
  EXPECT_EQ(values_of(ff), (std::vector<double>{0.100000001490116119384765625}));
  interp::Tensor u = out_of(run_one({}, "aten.rand.default", {Ints({50})}));
  for (double v : values_of(u)) {
    EXPECT_GE(v, 0.0);
    EXPECT_LT(v, 1.0);
  }
  interp::Tensor ri = out_of(run_one({}, "aten.randint.low", {I(-2), I(3), Ints({100})}));
  EXPECT_EQ(ri.str(), "int64[100]");
  std::set<double> seen;
  for (double v : values_of(ri)) seen.insert(v);
  EXPECT_EQ(seen, (std::set<double>{-2, -1, 0, 1, 2}));
  interp::RunResult neg = run_one({}, "aten.zeros.default", {Ints({2, -1})});
  EXPECT_FALSE(neg.ok);
  EXPECT_TRUE(Contains(neg.error, "negative")) << neg.error;
}

TEST(CreationKernels, Arange) {
  EXPECT_EQ(values_of(out_of(run_one({}, "aten.arange.default", {I(4)}))),
            (std::vector<double>{0, 1, 2, 3}));
  interp::Tensor a = out_of(run_one({}, "aten.arange.start_step", {I(0), I(5), I(2)}));
  EXPECT_EQ(a.str(), "int64[3]");
  EXPECT_EQ(values_of(a), (std::vector<double>{0, 2, 4}));
  EXPECT_EQ(values_of(out_of(run_one({}, "aten.arange.start_step", {I(5), I(0), I(-2)}))),
            (std::vector<double>{5, 3, 1}));
  EXPECT_EQ(values_of(out_of(run_one({}, "aten.arange.start", {I(-3), I(-1)}))),
            (std::vector<double>{-3, -2}));
  // Floats: ceil((1 - 0) / 0.3) = 4 elements, computed in double and rounded to float32.
  interp::Tensor f = out_of(run_one({}, "aten.arange.start_step", {F(0.0), F(1.0), F(0.3)}));
  EXPECT_EQ(f.str(), "float32[4]");
  EXPECT_EQ(values_of(f)[3], static_cast<double>(static_cast<float>(0.9)));
  interp::Tensor d =
      out_of(run_one({}, "aten.arange.start", {I(1), F(2.5)}, {{"dtype", D(DType::Float64)}}));
  EXPECT_EQ(values_of(d), (std::vector<double>{1, 2}));
  EXPECT_FALSE(run_one({}, "aten.arange.start_step", {I(0), I(5), I(0)}).ok);
  interp::RunResult wrong = run_one({}, "aten.arange.start_step", {I(0), I(5), I(-1)});
  EXPECT_FALSE(wrong.ok);
  EXPECT_TRUE(Contains(wrong.error, "inconsistent with step sign")) << wrong.error;
}

TEST(CreationKernels, LinspaceAndEye) {
  EXPECT_EQ(values_of(out_of(run_one({}, "aten.linspace.default", {I(0), I(1), I(5)}))),
            (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(values_of(out_of(run_one({}, "aten.linspace.default", {I(3), I(-3), I(3)}))),
            (std::vector<double>{3, 0, -3}));
  EXPECT_EQ(values_of(out_of(run_one({}, "aten.linspace.default", {I(2), I(9), I(1)}))),
            (std::vector<double>{2}));
  interp::Tensor e = out_of(run_one({}, "aten.eye.m", {I(2), I(3)}));
  EXPECT_EQ(e.str(), "float32[2, 3]");
  EXPECT_EQ(values_of(e), (std::vector<double>{1, 0, 0, 0, 1, 0}));
}

TEST(CreationKernels, LikeKeepsLayoutUnlessAsked) {
  interp::Tensor x = tensor_of(DType::Float32, {2, 3}, {1, 2, 3, 4, 5, 6});
  interp::Tensor xt = x.as_strided({3, 2}, {1, 3}, 0);  // a transpose
  interp::Tensor like = out_of(run_one({{"x", xt}}, "aten.zeros_like.default", {T("x")}));
  EXPECT_EQ(like.strides(), (std::vector<int64_t>{1, 3}));  // preserve_format
  interp::Tensor c = out_of(run_one({{"x", xt}}, "aten.ones_like.default", {T("x")},
                                    {{"memory_format", MemoryFormat("contiguous_format")}}));
  EXPECT_EQ(c.strides(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(values_of(c), std::vector<double>(6, 1.0));
  interp::Tensor img = interp::Tensor::zeros(DType::Float32, {2, 3, 4, 5});
  interp::Tensor cl = out_of(run_one({{"x", img}}, "aten.empty_like.default", {T("x")},
                                     {{"memory_format", MemoryFormat("channels_last")}}));
  EXPECT_EQ(cl.strides(), (std::vector<int64_t>{60, 1, 15, 3}));
  interp::Tensor full = out_of(run_one({{"x", x}}, "aten.full_like.default", {T("x"), F(2.5)}));
  EXPECT_EQ(full.str(), "float32[2, 3]");
  EXPECT_EQ(values_of(full), std::vector<double>(6, 2.5));
  // new_full takes self's dtype, not the fill value's.
  interp::Tensor nf =
      out_of(run_one({{"x", x}}, "aten.new_full.default", {T("x"), Ints({2}), I(3)}));
  EXPECT_EQ(nf.str(), "float32[2]");
  interp::Tensor es =
      out_of(run_one({}, "aten.empty_strided.default", {Ints({2, 3}), Ints({1, 2})}));
  EXPECT_EQ(es.strides(), (std::vector<int64_t>{1, 2}));
}

TEST(CreationKernels, CastsAliasOrCopy) {
  interp::Tensor x = tensor_of(DType::Float32, {3}, {0.1, -2.7, 70000});
  interp::RunResult same = run_one({{"x", x}}, "aten.to.dtype", {T("x"), D(DType::Float32)});
  ASSERT_TRUE(same.ok) << same.error;
  EXPECT_TRUE(same.output().tensor.shares_storage(same.values[0].tensor));  // `to` aliases
  interp::RunResult copy = run_one({{"x", x}}, "aten._to_copy.default", {T("x")});
  ASSERT_TRUE(copy.ok) << copy.error;
  EXPECT_FALSE(copy.output().tensor.shares_storage(copy.values[0].tensor));
  interp::Tensor h = out_of(
      run_one({{"x", x}}, "aten._to_copy.default", {T("x")}, {{"dtype", D(DType::Float16)}}));
  EXPECT_EQ(values_of(h), (std::vector<double>{0.0999755859375, -2.69921875, INFINITY}));
  interp::Tensor i = out_of(run_one({{"x", x}}, "aten.to.dtype", {T("x"), D(DType::Int16)}));
  EXPECT_EQ(values_of(i), (std::vector<double>{0, -2, 4464}));
  interp::Tensor other = interp::Tensor::zeros(DType::Bool, {1});
  interp::Tensor b =
      out_of(run_one({{"x", x}, {"o", other}}, "aten.type_as.default", {T("x"), T("o")}));
  EXPECT_EQ(b.str(), "bool[3]");
  EXPECT_EQ(values_of(b), (std::vector<double>{1, 1, 1}));
  interp::Tensor dev =
      out_of(run_one({{"x", x}}, "aten.to.device", {T("x"), Device("cpu"), D(DType::BFloat16)}));
  EXPECT_EQ(values_of(dev)[1], -2.703125);
}

TEST(CreationKernels, CopyBroadcastsSourceIntoSelfsShape) {
  interp::Tensor self = tensor_of(DType::Int64, {2, 2}, {1, 2, 3, 4});
  interp::Tensor src = tensor_of(DType::Float32, {2}, {5.9, -6.5});
  interp::Tensor c =
      out_of(run_one({{"s", self}, {"t", src}}, "aten.copy.default", {T("s"), T("t")}));
  EXPECT_EQ(c.str(), "int64[2, 2]");
  EXPECT_EQ(values_of(c), (std::vector<double>{5, -6, 5, -6}));
  interp::RunResult bad = run_one({{"s", src}, {"t", self}}, "aten.copy.default", {T("s"), T("t")});
  EXPECT_FALSE(bad.ok);
  // copy_ writes into self (the in-place fallback).
  interp::RunResult in_place =
      run_one({{"s", self}, {"t", src}}, "aten.copy_.default", {T("s"), T("t")});
  ASSERT_TRUE(in_place.ok) << in_place.error;
  EXPECT_EQ(values_of(in_place.values[0].tensor), (std::vector<double>{5, -6, 5, -6}));
}

}  // namespace

std::vector<OpCase> creation_cases() {
  const DType F32 = DType::Float32, I64 = DType::Int64;
  const std::vector<Input> ab = {{"x", F32, {"a", "b"}}};
  const std::vector<Input> img = {{"x", F32, {"a", "c", "h", "w"}}};
  std::vector<OpCase> cases;
  auto size_ab = [] { return List({E("a"), E("b")}); };
  for (const char* op : {"aten.empty.default", "aten.zeros.default", "aten.ones.default",
                         "aten.rand.default", "aten.randn.default", "aten.empty.memory_format"}) {
    cases.push_back({std::string(op).substr(5), ab, {{"op", op, {size_ab()}}}});
  }
  cases.push_back({"zeros.dtype",
                   ab,
                   {{"op", "aten.zeros.default", {size_ab()}, {{"dtype", D(DType::Float16)}}}}});
  cases.push_back({"ones.from_sizes",
                   ab,
                   {{"s", "aten.sym_size.int", {T("x"), I(1)}},
                    {"op", "aten.ones.default", {List({T("s"), E("a + 1")})}}}});
  cases.push_back({"full.int", ab, {{"op", "aten.full.default", {size_ab(), I(3)}}}});
  cases.push_back({"full.bool", ab, {{"op", "aten.full.default", {size_ab(), B(false)}}}});
  cases.push_back(
      {"full.float_dtype",
       ab,
       {{"op", "aten.full.default", {size_ab(), F(1.5)}, {{"dtype", D(DType::Float64)}}}}});
  cases.push_back({"empty_strided",
                   ab,
                   {{"op", "aten.empty_strided.default", {size_ab(), List({I(1), E("a")})}}}});
  cases.push_back({"randint", ab, {{"op", "aten.randint.default", {I(5), size_ab()}}}});
  cases.push_back({"randint.low", ab, {{"op", "aten.randint.low", {I(-5), I(5), size_ab()}}}});
  for (const char* op :
       {"aten.empty_like.default", "aten.zeros_like.default", "aten.ones_like.default",
        "aten.rand_like.default", "aten.randn_like.default"}) {
    cases.push_back({std::string(op).substr(5), ab, {{"op", op, {T("x")}}}});
  }
  cases.push_back(
      {"randint_like",
       ab,
       {{"op", "aten.randint_like.default", {T("x")}, {{"high", I(4)}, {"dtype", D(I64)}}}}});
  cases.push_back({"empty_like.channels_last",
                   img,
                   {{"op",
                     "aten.empty_like.default",
                     {T("x")},
                     {{"memory_format", MemoryFormat("channels_last")}}}}});
  cases.push_back({"zeros_like.transposed",
                   ab,
                   {{"t", "aten.t.default", {T("x")}},
                    {"op", "aten.zeros_like.default", {T("t")}, {{"dtype", D(I64)}}}}});
  cases.push_back({"full_like", ab, {{"op", "aten.full_like.default", {T("x"), I(2)}}}});
  for (const char* op :
       {"aten.new_empty.default", "aten.new_zeros.default", "aten.new_ones.default"}) {
    cases.push_back({std::string(op).substr(5), ab, {{"op", op, {T("x"), List({E("b"), I(3)})}}}});
  }
  cases.push_back(
      {"new_full", ab, {{"op", "aten.new_full.default", {T("x"), List({E("b")}), I(7)}}}});
  cases.push_back({"new_empty_strided",
                   ab,
                   {{"op",
                     "aten.new_empty_strided.default",
                     {T("x"), List({E("b"), I(2)}), List({I(2), I(1)})}}}});
  cases.push_back({"scalar_tensor", {}, {{"op", "aten.scalar_tensor.default", {F(2.5)}}}});
  cases.push_back({"arange", ab, {{"op", "aten.arange", {E("a")}}}});
  cases.push_back({"arange.default", ab, {{"op", "aten.arange.default", {E("b")}}}});
  cases.push_back({"arange.start", ab, {{"op", "aten.arange.start", {E("a"), E("a + b")}}}});
  cases.push_back(
      {"arange.start_step", ab, {{"op", "aten.arange.start_step", {I(1), E("a * b"), I(3)}}}});
  cases.push_back(
      {"arange.negative_step", ab, {{"op", "aten.arange.start_step", {E("b"), I(-1), I(-2)}}}});
  cases.push_back(
      {"arange.float", {}, {{"op", "aten.arange.start_step", {F(0.5), F(3.0), F(0.5)}}}});
  cases.push_back({"arange.from_size",
                   ab,
                   {{"n", "aten.sym_size.int", {T("x"), I(0)}},
                    {"op", "aten.arange.start", {I(0), T("n")}, {{"dtype", D(DType::Int32)}}}}});
  cases.push_back({"linspace", ab, {{"op", "aten.linspace.default", {I(0), I(1), E("a")}}}});
  cases.push_back({"eye", ab, {{"op", "aten.eye.default", {E("a")}}}});
  cases.push_back(
      {"eye.m", ab, {{"op", "aten.eye.m", {E("a"), E("b")}, {{"dtype", D(DType::Bool)}}}}});
  cases.push_back({"_to_copy",
                   ab,
                   {{"op", "aten._to_copy.default", {T("x")}, {{"dtype", D(DType::BFloat16)}}}}});
  cases.push_back({"to.dtype", ab, {{"op", "aten.to.dtype", {T("x"), D(DType::Float64)}}}});
  cases.push_back(
      {"to.dtype_layout", ab, {{"op", "aten.to.dtype_layout", {T("x")}, {{"dtype", D(I64)}}}}});
  cases.push_back(
      {"to.device", ab, {{"op", "aten.to.device", {T("x"), Device("cpu"), D(DType::Complex64)}}}});
  cases.push_back({"to.other",
                   {{"x", F32, {"a", "b"}}, {"y", DType::Int32, {"c"}}},
                   {{"op", "aten.to.other", {T("x"), T("y")}}}});
  cases.push_back({"type_as",
                   {{"x", I64, {"a", "b"}}, {"y", DType::Float16, {"c"}}},
                   {{"op", "aten.type_as.default", {T("x"), T("y")}}}});
  cases.push_back({"copy.broadcast",
                   {{"x", F32, {"a", "b"}}, {"y", I64, {"b"}}},
                   {{"op", "aten.copy.default", {T("x"), T("y")}}}});
  cases.push_back({"copy_.in_place",
                   {{"x", F32, {"a", "b"}}, {"y", F32, {"a", "b"}}},
                   {{"op", "aten.copy_.default", {T("x"), T("y")}}}});
  return cases;
}

}  // namespace symshape::testing
