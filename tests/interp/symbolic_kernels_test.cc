// Symbolic kernels (sizes, Python operators, getitem, asserts and range constraints):
// hand-computed values, and the op cases for the shape property test.
#include <gtest/gtest.h>

#include "tests/interp/interp_test_util.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {

namespace {

interp::RValue value_of_calls(
    const std::vector<Call>& calls,
    const std::vector<std::pair<std::string, interp::Tensor>>& inputs = {}) {
  interp::RunResult r = run_calls(inputs, calls);
  EXPECT_TRUE(r.ok) << r.error;
  return r.ok ? r.output() : interp::RValue::none();
}

std::string error(const std::vector<Call>& calls,
                  const std::vector<std::pair<std::string, interp::Tensor>>& inputs = {}) {
  interp::RunResult r = run_calls(inputs, calls);
  EXPECT_FALSE(r.ok);
  return r.error;
}

TEST(SymbolicKernels, PythonIntegerArithmetic) {
  EXPECT_EQ(value_of_calls({{"op", "operator.floordiv", {I(-7), I(2)}}}).integer, -4);
  EXPECT_EQ(value_of_calls({{"op", "operator.floordiv", {I(7), I(-2)}}}).integer, -4);
  EXPECT_EQ(value_of_calls({{"op", "operator.mod", {I(-7), I(2)}}}).integer, 1);
  EXPECT_EQ(value_of_calls({{"op", "operator.mod", {I(7), I(-2)}}}).integer, -1);
  EXPECT_EQ(value_of_calls({{"op", "_operator.mod", {I(-8), I(-3)}}}).integer, -2);
  EXPECT_EQ(value_of_calls({{"op", "operator.sub", {I(3), I(10)}}}).integer, -7);
  EXPECT_EQ(value_of_calls({{"op", "operator.neg", {I(3)}}}).integer, -3);
  EXPECT_EQ(value_of_calls({{"op", "torch.sym_max", {I(3), I(10)}}}).integer, 10);
  EXPECT_EQ(value_of_calls({{"op", "torch.sym_min", {I(3), I(10)}}}).integer, 3);
  EXPECT_TRUE(Contains(error({{"op", "operator.floordiv", {I(1), I(0)}}}), "ZeroDivisionError"));
  EXPECT_TRUE(Contains(error({{"op", "operator.mod", {I(1), I(0)}}}), "node op"));
  EXPECT_TRUE(Contains(error({{"op", "operator.mul", {I(INT64_MAX / 2 + 1), I(2)}}}), "overflow"));
}

TEST(SymbolicKernels, PythonFloatArithmetic) {
  interp::RValue d = value_of_calls({{"op", "operator.truediv", {I(7), I(2)}}});
  EXPECT_EQ(d.kind, interp::RValue::Kind::Float);
  EXPECT_EQ(d.real, 3.5);
  EXPECT_EQ(value_of_calls({{"op", "operator.floordiv", {F(-7.5), I(2)}}}).real, -4.0);
  EXPECT_EQ(value_of_calls({{"op", "operator.mod", {F(-7.5), I(2)}}}).real, 0.5);
  EXPECT_EQ(value_of_calls({{"op", "operator.mod", {F(7.5), I(-2)}}}).real, -0.5);
  EXPECT_EQ(value_of_calls({{"op", "operator.add", {F(0.5), I(2)}}}).real, 2.5);
  EXPECT_EQ(value_of_calls({{"op", "operator.neg", {F(0.5)}}}).real, -0.5);
  EXPECT_TRUE(Contains(error({{"op", "operator.truediv", {I(1), I(0)}}}), "division by zero"));
  EXPECT_TRUE(Contains(error({{"op", "operator.mod", {F(1), F(0)}}}), "ZeroDivisionError"));
}

TEST(SymbolicKernels, Comparisons) {
  EXPECT_TRUE(value_of_calls({{"op", "operator.lt", {I(2), F(2.5)}}}).truth);
  EXPECT_FALSE(value_of_calls({{"op", "operator.eq", {I(2), F(2.5)}}}).truth);
  EXPECT_TRUE(value_of_calls({{"op", "operator.eq", {I(2), F(2.0)}}}).truth);
  EXPECT_TRUE(value_of_calls({{"op", "_operator.ge", {I(-1), I(-1)}}}).truth);
  EXPECT_TRUE(value_of_calls({{"op", "operator.ne", {B(true), I(0)}}}).truth);
  EXPECT_FALSE(value_of_calls({{"op", "operator.gt", {I(-1), B(false)}}}).truth);
}

// Values as torch 1.13 gives them: is_contiguous() of a transposed view is False;
// torch.empty(2, 3, 4, 5).to(memory_format=torch.channels_last) has strides (60, 1, 15, 3) and
// is contiguous in channels_last only.
TEST(SymbolicKernels, SymIsContiguous) {
  auto is_contiguous = [](const interp::Tensor& t, const std::string& format) {
    std::vector<Arg> args = {T("x")};
    if (!format.empty()) {
      Arg f;
      f.kind = Arg::Kind::MemoryFormat;
      f.text = format;
      args.push_back(f);
    }
    interp::RValue v = value_of_calls({{"op", "aten.sym_is_contiguous.default", args}}, {{"x", t}});
    EXPECT_EQ(v.kind, interp::RValue::Kind::Bool);
    return v.truth;
  };
  interp::Tensor x = interp::Tensor::zeros(DType::Float32, {2, 3, 4, 5});
  EXPECT_TRUE(is_contiguous(x, ""));
  EXPECT_FALSE(is_contiguous(x, "channels_last"));
  interp::Tensor cl = x.as_strided({2, 3, 4, 5}, {60, 1, 15, 3}, 0);
  EXPECT_FALSE(is_contiguous(cl, ""));
  EXPECT_TRUE(is_contiguous(cl, "channels_last"));
  EXPECT_FALSE(is_contiguous(cl, "channels_last_3d"));  // needs rank 5
  interp::Tensor t = x.as_strided({3, 2}, {1, 3}, 0);
  EXPECT_FALSE(is_contiguous(t, ""));
  // A size-1 dim's stride does not matter.
  EXPECT_TRUE(is_contiguous(x.as_strided({2, 1, 3}, {3, 100, 1}, 0), ""));
}

TEST(SymbolicKernels, SizesStridesAndGetitem) {
  interp::Tensor x = interp::Tensor::zeros(DType::Float32, {2, 3, 4});
  interp::Tensor view = x.as_strided({3, 2}, {4, 12}, 1);
  std::vector<std::pair<std::string, interp::Tensor>> in = {{"x", view}};
  EXPECT_EQ(value_of_calls({{"op", "aten.sym_size.int", {T("x"), I(-1)}}}, in).integer, 2);
  EXPECT_EQ(value_of_calls({{"op", "aten.sym_stride.int", {T("x"), I(1)}}}, in).integer, 12);
  EXPECT_EQ(value_of_calls({{"op", "aten.sym_storage_offset.default", {T("x")}}}, in).integer, 1);
  EXPECT_EQ(value_of_calls({{"op", "aten.sym_numel.default", {T("x")}}}, in).integer, 6);
  EXPECT_EQ(value_of_calls({{"op", "aten.dim.default", {T("x")}}}, in).integer, 2);
  EXPECT_EQ(value_of_calls({{"op", "aten.stride.default", {T("x")}}}, in).str(), "(4, 12)");
  EXPECT_EQ(
      value_of_calls(
          {{"s", "aten.size.default", {T("x")}}, {"op", "operator.getitem", {T("s"), I(-2)}}}, in)
          .integer,
      3);
  EXPECT_TRUE(Contains(
      error({{"s", "aten.size.default", {T("x")}}, {"op", "operator.getitem", {T("s"), I(2)}}}, in),
      "out of range"));
  EXPECT_TRUE(Contains(error({{"op", "aten.sym_size.int", {T("x"), I(2)}}}, in), "out of range"));
}

TEST(SymbolicKernels, AssertsFailWhenFalse) {
  interp::Tensor x = interp::Tensor::zeros(DType::Float32, {3});
  std::vector<std::pair<std::string, interp::Tensor>> in = {{"x", x}};
  std::vector<Call> ok = {{"n", "aten.sym_size.int", {T("x"), I(0)}},
                          {"c", "operator.eq", {T("n"), I(3)}},
                          {"op", "aten._assert_scalar.default", {T("c"), S("n is 3")}}};
  EXPECT_EQ(value_of_calls(ok, in).kind, interp::RValue::Kind::None);
  std::vector<Call> bad = {{"n", "aten.sym_size.int", {T("x"), I(0)}},
                           {"c", "operator.eq", {T("n"), I(4)}},
                           {"op", "aten._assert_scalar.default", {T("c"), S("n is 4")}}};
  std::string e = error(bad, in);
  EXPECT_TRUE(Contains(e, "node op (aten._assert_scalar.default)")) << e;
  EXPECT_TRUE(Contains(e, "n is 4")) << e;
  EXPECT_TRUE(Contains(
      error({{"op", "aten.sym_constrain_range.default", {I(5)}, {{"min", I(0)}, {"max", I(3)}}}}),
      "outside its range"));
  EXPECT_TRUE(
      Contains(error({{"op", "aten.sym_constrain_range_for_size.default", {I(-1)}}}), "negative"));
  EXPECT_EQ(
      value_of_calls({{"op", "aten.sym_constrain_range.default", {I(3)}, {{"min", I(3)}}}}).kind,
      interp::RValue::Kind::None);
  interp::Tensor zero = interp::Tensor::zeros(DType::Bool, {});
  EXPECT_TRUE(Contains(
      error({{"op", "aten._assert_async.msg", {T("z"), S("zero")}}}, {{"z", zero}}), "zero"));
  interp::Tensor one = interp::Tensor::scalar(DType::Int64, interp::Scalar::of_int(2));
  interp::RValue token =
      value_of_calls({{"op", "aten._functional_assert_async.msg", {T("z"), S("m")}}}, {{"z", one}});
  EXPECT_EQ(token.str(), "float32[]");
}

}  // namespace

std::vector<OpCase> symbolic_cases() {
  const DType F32 = DType::Float32;
  const std::vector<Input> x = {{"x", F32, {"a", "b"}}};
  const std::vector<Call> sizes = {{"n", "aten.sym_size.int", {T("x"), I(0)}},
                                   {"m", "aten.sym_size.int", {T("x"), I(1)}}};
  std::vector<OpCase> cases;
  auto with_sizes = [&](std::vector<Call> more) {
    std::vector<Call> calls = sizes;
    calls.insert(calls.end(), more.begin(), more.end());
    return calls;
  };
  cases.push_back({"sym_size", x, {{"op", "aten.sym_size", {T("x")}}}});
  cases.push_back({"sym_size.int", x, {{"op", "aten.sym_size.int", {T("x"), I(-1)}}}});
  cases.push_back(
      {"sym_stride.transposed",
       x,
       {{"t", "aten.t.default", {T("x")}}, {"op", "aten.sym_stride.int", {T("t"), I(0)}}}});
  cases.push_back({"sym_stride", x, {{"op", "aten.sym_stride", {T("x")}}}});
  cases.push_back({"sym_numel", x, {{"op", "aten.sym_numel.default", {T("x")}}}});
  cases.push_back({"sym_storage_offset", x, {{"op", "aten.sym_storage_offset.default", {T("x")}}}});
  cases.push_back({"size", x, {{"op", "aten.size.default", {T("x")}}}});
  cases.push_back({"size.int", x, {{"op", "aten.size.int", {T("x"), I(0)}}}});
  cases.push_back({"stride", x, {{"op", "aten.stride.default", {T("x")}}}});
  cases.push_back({"numel", x, {{"op", "aten.numel.default", {T("x")}}}});
  cases.push_back({"dim", x, {{"op", "aten.dim.default", {T("x")}}}});
  for (const char* prefix : {"operator.", "_operator."}) {
    const std::string p = prefix;
    cases.push_back({p + "getitem",
                     x,
                     {{"s", "aten.sym_size", {T("x")}}, {"op", p + "getitem", {T("s"), I(-1)}}}});
    for (const char* op : {"add", "sub", "mul", "floordiv", "mod"}) {
      cases.push_back({p + op, x, with_sizes({{"op", p + op, {T("n"), T("m")}}})});
      cases.push_back({p + op + ".const", x, with_sizes({{"op", p + op, {T("m"), I(-3)}}})});
    }
    cases.push_back(
        {p + "floordiv.float", x, with_sizes({{"op", p + "floordiv", {T("n"), F(0.5)}}})});
    cases.push_back({p + "truediv", x, with_sizes({{"op", p + "truediv", {T("n"), T("m")}}})});
    cases.push_back({p + "neg", x, with_sizes({{"op", p + "neg", {T("n")}}})});
    for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge"}) {
      cases.push_back({p + op, x, with_sizes({{"op", p + op, {T("n"), T("m")}}})});
      cases.push_back({p + op + ".float", x, with_sizes({{"op", p + op, {T("n"), F(3.5)}}})});
    }
  }
  cases.push_back({"sym_max", x, with_sizes({{"op", "torch.sym_max", {T("n"), T("m")}}})});
  cases.push_back({"sym_min", x, with_sizes({{"op", "torch.sym_min", {T("n"), T("m")}}})});
  cases.push_back({"sizes.into_zeros", x,
                   with_sizes({{"p", "operator.mul", {T("n"), T("m")}},
                               {"q", "operator.floordiv", {T("p"), I(2)}},
                               {"op", "aten.zeros.default", {List({T("q"), T("m")})}}})});
  cases.push_back({"_assert_scalar", x,
                   with_sizes({{"c", "operator.ge", {T("n"), I(2)}},
                               {"op", "aten._assert_scalar.default", {T("c"), S("n >= 2")}}})});
  cases.push_back(
      {"sym_constrain_range",
       {{"x", DType::Int64, {"1"}}},
       {{"u", "aten.item.default", {T("x")}},
        {"op", "aten.sym_constrain_range.default", {T("u")}, {{"min", I(0)}, {"max", I(1)}}}}});
  cases.push_back(
      {"sym_constrain_range_for_size",
       {{"x", DType::Int64, {"1"}}},
       {{"u", "aten.item.default", {T("x")}},
        {"op", "aten.sym_constrain_range_for_size.default", {T("u")}, {{"max", I(10)}}}}});
  cases.push_back({"_assert_async",
                   x,
                   {{"one", "aten.ones.default", {List({I(1)})}, {{"dtype", D(DType::Bool)}}},
                    {"op", "aten._assert_async.msg", {T("one"), S("never")}}}});
  cases.push_back({"_functional_assert_async",
                   x,
                   {{"one", "aten.ones.default", {List({})}, {{"dtype", D(DType::Int64)}}},
                    {"op", "aten._functional_assert_async.msg", {T("one"), S("never")}}}});
  return cases;
}

}  // namespace symshape::testing
