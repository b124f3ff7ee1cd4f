// Data-dependent kernels (nonzero, item, masked_select, unique, repeat_interleave):
// hand-computed values, and the op cases for the shape property test.
#include <gtest/gtest.h>

#include "tests/interp/interp_test_util.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {

namespace {

interp::RValue value(const std::vector<std::pair<std::string, interp::Tensor>>& inputs,
                     const std::string& target, std::vector<Arg> args, Kwargs kwargs = {}) {
  interp::RunResult r = run_calls(inputs, {Call{"op", target, std::move(args), std::move(kwargs)}});
  EXPECT_TRUE(r.ok) << r.error;
  return r.ok ? r.output() : interp::RValue::none();
}

TEST(DataDependentKernels, NonzeroIsColumnMajor) {
  interp::Tensor x = tensor_of(DType::Float32, {2, 3}, {0, 1.5, 0, -2, 0, 0.25});
  interp::Tensor nz = value({{"x", x}}, "aten.nonzero.default", {T("x")}).tensor;
  EXPECT_EQ(nz.str(), "int64[3, 2]");
  EXPECT_EQ(nz.strides(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(values_of(nz), (std::vector<double>{0, 1, 1, 0, 1, 2}));
  interp::Tensor none =
      value({{"x", interp::Tensor::zeros(DType::Bool, {4})}}, "aten.argwhere.default", {T("x")})
          .tensor;
  EXPECT_EQ(none.str(), "int64[0, 1]");
  interp::Tensor st =
      value({{"x", x}}, "aten.nonzero_static.default", {T("x")}, {{"size", I(4)}}).tensor;
  EXPECT_EQ(values_of(st), (std::vector<double>{0, 1, 1, 0, 1, 2, -1, -1}));
  interp::Tensor cut = value({{"x", x}}, "aten.nonzero_static.default", {T("x")},
                             {{"size", I(1)}, {"fill_value", I(9)}})
                           .tensor;
  EXPECT_EQ(values_of(cut), (std::vector<double>{0, 1}));
}

TEST(DataDependentKernels, Item) {
  EXPECT_EQ(
      value({{"x", tensor_of(DType::Int32, {1, 1}, {-5})}}, "aten.item.default", {T("x")}).integer,
      -5);
  interp::RValue f = value({{"x", tensor_of(DType::Float16, {}, {0.1})}},
                           "aten._local_scalar_dense.default", {T("x")});
  EXPECT_EQ(f.kind, interp::RValue::Kind::Float);
  EXPECT_EQ(f.real, 0.0999755859375);
  interp::RunResult bad = run_calls({{"x", interp::Tensor::zeros(DType::Int64, {2})}},
                                    {{"op", "aten.item.default", {T("x")}}});
  EXPECT_FALSE(bad.ok);
  EXPECT_TRUE(Contains(bad.error, "2 elements")) << bad.error;
}

TEST(DataDependentKernels, MaskedSelectBroadcasts) {
  interp::Tensor x = tensor_of(DType::Int64, {2, 2}, {1, 2, 3, 4});
  interp::Tensor m = interp::Tensor::from(
      DType::Bool, {2}, {interp::Scalar::of_bool(false), interp::Scalar::of_bool(true)});
  interp::Tensor s =
      value({{"x", x}, {"m", m}}, "aten.masked_select.default", {T("x"), T("m")}).tensor;
  EXPECT_EQ(values_of(s), (std::vector<double>{2, 4}));
}

TEST(DataDependentKernels, Unique) {
  interp::Tensor x = tensor_of(DType::Int64, {2, 3}, {3, 1, 3, 2, 1, 1});
  interp::RValue u =
      value({{"x", x}}, "aten._unique2.default", {T("x"), B(true), B(true), B(true)});
  EXPECT_EQ(u.str(), "(int64[3], int64[2, 3], int64[3])");
  EXPECT_EQ(values_of(u.items[0].tensor), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(values_of(u.items[1].tensor), (std::vector<double>{2, 0, 2, 1, 0, 0}));
  EXPECT_EQ(values_of(u.items[2].tensor), (std::vector<double>{3, 1, 2}));
  interp::RValue plain = value({{"x", x}}, "aten._unique.default", {T("x")});
  EXPECT_EQ(plain.str(), "(int64[3], int64[0])");
  interp::RValue c =
      value({{"x", x}}, "aten.unique_consecutive.default", {T("x"), B(true), B(true)});
  EXPECT_EQ(values_of(c.items[0].tensor), (std::vector<double>{3, 1, 3, 2, 1}));
  EXPECT_EQ(values_of(c.items[1].tensor), (std::vector<double>{0, 1, 2, 3, 4, 4}));
  EXPECT_EQ(values_of(c.items[2].tensor), (std::vector<double>{1, 1, 1, 1, 2}));
  // Unique columns: [3,2], [1,1], [3,1], [1,1] -> sorted [1,1], [3,1], [3,2].
  interp::Tensor cols = tensor_of(DType::Int64, {2, 4}, {3, 1, 3, 1, 2, 1, 1, 1});
  interp::RValue d =
      value({{"x", cols}}, "aten.unique_dim.default", {T("x"), I(1), B(true), B(true), B(true)});
  EXPECT_EQ(d.str(), "(int64[2, 3], int64[4], int64[3])");
  EXPECT_EQ(values_of(d.items[0].tensor), (std::vector<double>{1, 3, 3, 1, 1, 2}));
  EXPECT_EQ(values_of(d.items[1].tensor), (std::vector<double>{2, 0, 1, 0}));
  EXPECT_EQ(values_of(d.items[2].tensor), (std::vector<double>{2, 1, 1}));
  interp::RValue dc = value({{"x", cols}}, "aten.unique_dim_consecutive.default", {T("x"), I(1)});
  EXPECT_EQ(dc.str(), "(int64[2, 4], int64[0], int64[0])");
  interp::Tensor f = tensor_of(DType::Float32, {4}, {0.5, NAN, -1, 0.5});
  EXPECT_EQ(values_of(value({{"x", f}}, "aten._unique2.default", {T("x")}).items[0].tensor).size(),
            3u);
}

TEST(DataDependentKernels, RepeatInterleave) {
  interp::Tensor r = tensor_of(DType::Int64, {3}, {2, 0, 1});
  interp::Tensor out = value({{"r", r}}, "aten.repeat_interleave.Tensor", {T("r")}).tensor;
  EXPECT_EQ(values_of(out), (std::vector<double>{0, 0, 2}));
  interp::RunResult bad = run_calls(
      {{"r", r}}, {{"op", "aten.repeat_interleave.Tensor", {T("r")}, {{"output_size", I(4)}}}});
  EXPECT_FALSE(bad.ok);
  interp::RunResult neg = run_calls({{"r", tensor_of(DType::Int64, {2}, {1, -1})}},
                                    {{"op", "aten.repeat_interleave.Tensor", {T("r")}}});
  EXPECT_FALSE(neg.ok);
  EXPECT_TRUE(Contains(neg.error, "negative")) << neg.error;
}

}  // namespace

std::vector<OpCase> data_dependent_cases() {
  const DType F32 = DType::Float32, I64 = DType::Int64, BOOL = DType::Bool;
  const std::vector<Input> x = {{"x", F32, {"a", "b"}}};
  const std::vector<Input> ints = {{"x", I64, {"a", "b"}}};
  std::vector<OpCase> cases;
  cases.push_back({"nonzero", x, {{"op", "aten.nonzero.default", {T("x")}}}});
  cases.push_back({"nonzero.then_size",
                   ints,
                   {{"nz", "aten.nonzero.default", {T("x")}},
                    {"n", "aten.sym_size.int", {T("nz"), I(0)}},
                    {"op", "aten.zeros.default", {List({T("n"), I(2)})}}}});
  cases.push_back({"argwhere", ints, {{"op", "aten.argwhere.default", {T("x")}}}});
  cases.push_back({"nonzero_static",
                   ints,
                   {{"op", "aten.nonzero_static.default", {T("x")}, {{"size", E("a")}}}}});
  cases.push_back({"item.int",
                   {{"x", I64, {"1"}}},
                   {{"u", "aten.item.default", {T("x")}},
                    {"op", "aten.zeros.default", {List({T("u"), E("2")})}}}});
  cases.push_back({"item.float", {{"x", F32, {}}}, {{"op", "aten.item.default", {T("x")}}}});
  cases.push_back({"_local_scalar_dense",
                   {{"x", I64, {"a"}}},
                   {{"s", "aten.sym_size.int", {T("x"), I(0)}},
                    {"v", "aten.ones.default", {List({I(1)})}, {{"dtype", D(I64)}}},
                    {"op", "aten._local_scalar_dense.default", {T("v")}}}});
  cases.push_back({"masked_select",
                   {{"x", F32, {"a", "b"}}, {"m", BOOL, {"b"}}},
                   {{"op", "aten.masked_select.default", {T("x"), T("m")}}}});
  cases.push_back(
      {"_unique2", ints, {{"op", "aten._unique2.default", {T("x"), B(true), B(true), B(true)}}}});
  cases.push_back({"_unique2.plain", ints, {{"op", "aten._unique2.default", {T("x")}}}});
  cases.push_back({"_unique", ints, {{"op", "aten._unique.default", {T("x"), B(true), B(true)}}}});
  cases.push_back({"unique_dim",
                   ints,
                   {{"op", "aten.unique_dim.default", {T("x"), I(1), B(true), B(true), B(true)}}}});
  cases.push_back({"unique_consecutive",
                   ints,
                   {{"op", "aten.unique_consecutive.default", {T("x"), B(true), B(true)}}}});
  cases.push_back({"unique_consecutive.dim",
                   ints,
                   {{"op", "aten.unique_consecutive.default", {T("x"), B(false), B(true), I(0)}}}});
  cases.push_back(
      {"unique_dim_consecutive",
       ints,
       {{"op", "aten.unique_dim_consecutive.default", {T("x"), I(0), B(true), B(true)}}}});
  cases.push_back({"repeat_interleave.Tensor",
                   {{"r", I64, {"a"}}},
                   {{"op", "aten.repeat_interleave.Tensor", {T("r")}}}});
  return cases;
}

}  // namespace symshape::testing
