// Shape rules of data-dependent ops: nonzero, item, masked_select, unique, repeat_interleave.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace symshape::testing {
namespace {

std::string range_of(const OpRun& r, const std::string& symbol) {
  return r.env->bound(Expr::symbol(symbol)).str();
}

// ---- nonzero ----

TEST(Nonzero, ConstantNumelBoundsTheCount) {
  OpRun r = run_op({tensor("x", {"3", "4"})}, "aten.nonzero.default", {T("x")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "int64[u0, 2]");
  EXPECT_EQ(strides_str(r.value()), "[1, u0]");
  EXPECT_EQ(range_of(r, "u0"), "[0, 12]");
  EXPECT_TRUE(r.env->symbol("u0").size_like);
  EXPECT_TRUE(r.runtime_asserts().empty());
  EXPECT_TRUE(r.guards().empty());
}

TEST(Nonzero, SymbolicNumelIsARuntimeAssert) {
  OpRun r = run_op({tensor("x", {"batch", "4"}, DType::Bool)}, "aten.nonzero.default", {T("x")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "int64[u0, 2]");
  EXPECT_EQ(joined(r.runtime_asserts()), "u0 <= 4*batch");
  EXPECT_EQ(range_of(r, "u0"), "[0, inf]");
  // A bounded dim bounds the count too.
  OpRun bounded = run_op({tensor("x", {"batch", "4"})}, "aten.nonzero.default", {T("x")}, {},
                         {Dim("batch", 8, 2, 16)});
  EXPECT_EQ(range_of(bounded, "u0"), "[0, 64]");
}

TEST(Nonzero, EmptyInputHasNoElements) {
  EXPECT_EQ(run_op({tensor("x", {"0", "4"})}, "aten.nonzero.default", {T("x")}).str(),
            "int64[0, 2]");
  EXPECT_EQ(run_op({tensor("x", {})}, "aten.nonzero.default", {T("x")}).str(), "int64[u0, 0]");
  EXPECT_EQ(run_op({tensor("x", {"a"})}, "aten.argwhere.default", {T("x")}).str(), "int64[u0, 1]");
}

TEST(Nonzero, CountFlowsIntoLaterShapes) {
  const Input x = tensor("x", {"3", "4"});
  auto then = [&](const std::string& target, std::vector<long> shape) {
    return run_ops(
        {x}, {{"nz", "aten.nonzero.default", {T("x")}}, {"v", target, {T("nz"), Ints(shape)}}});
  };
  OpRun flat = then("aten.reshape.default", {-1});
  ASSERT_TRUE(flat.ok()) << flat.error();
  EXPECT_EQ(flat.str(), "int64[2*u0]");
  // The result is column-major (strides (1, u0)): it cannot be viewed flat; reshape copies.
  OpRun view = then("aten.view.default", {-1});
  EXPECT_EQ(view.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(view.error(), "view size is not compatible"));
  // A 1-d input's [u0, 1] result is viewable (a size-1 dim's stride does not matter).
  OpRun one = run_ops({tensor("x", {"n"})}, {{"nz", "aten.nonzero.default", {T("x")}},
                                             {"v", "aten.view.default", {T("nz"), Ints({-1})}}});
  ASSERT_TRUE(one.ok()) << one.error();
  EXPECT_EQ(one.str(), "int64[u0]");
  // Reshaping [u0, 2] into [-1, 4] needs u0 even: a runtime assert, not a guard.
  OpRun regroup = then("aten.reshape.default", {-1, 4});
  ASSERT_TRUE(regroup.ok()) << regroup.error();
  EXPECT_EQ(regroup.runtime_asserts().size(), 1u) << joined(regroup.runtime_asserts());
  EXPECT_TRUE(Contains(joined(regroup.runtime_asserts()), "u0 % 2"));
  EXPECT_TRUE(regroup.guards().empty());
  EXPECT_EQ(regroup.str(), "int64[u0//2, 4]");
}

TEST(NonzeroStatic, FixedSize) {
  EXPECT_EQ(
      run_op({tensor("x", {"a", "b"})}, "aten.nonzero_static.default", {T("x")}, {{"size", I(5)}})
          .str(),
      "int64[5, 2]");
  EXPECT_EQ(run_op({tensor("x", {"a"})}, "aten.nonzero_static.default", {T("x")}, {{"size", I(-1)}})
                .result.status,
            Propagation::Status::InputError);
}

// ---- item ----

TEST(Item, IntegerGivesAnUnbackedSymInt) {
  OpRun r = run_op({tensor("t", {}, DType::Int64)}, "aten.item.default", {T("t")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "u0");
  EXPECT_FALSE(r.env->symbol("u0").size_like);
  EXPECT_EQ(range_of(r, "u0"), "[-inf, inf]");
  EXPECT_EQ(
      run_op({tensor("t", {"1", "1"}, DType::Int32)}, "aten._local_scalar_dense.default", {T("t")})
          .str(),
      "u0");
}

TEST(Item, FloatAndBool) {
  OpRun f = run_op({tensor("t", {})}, "aten.item.default", {T("t")});
  ASSERT_TRUE(f.ok()) << f.error();
  EXPECT_EQ(f.value().kind, Value::Kind::Float);
  OpRun b = run_op({tensor("t", {"1"}, DType::Bool)}, "aten.item.default", {T("t")});
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_EQ(b.value().kind, Value::Kind::Bool);
  EXPECT_FALSE(b.value().truth.has_value());
}

TEST(Item, NeedsOneElement) {
  OpRun r = run_op({tensor("t", {"2"}, DType::Int64)}, "aten.item.default", {T("t")});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(), "item() needs a tensor with one element, got [2]"));
  EXPECT_EQ(run_op({tensor("t", {"batch"})}, "aten.item.default", {T("t")}).result.status,
            Propagation::Status::ShapeError);
  // A size that may be 1 is guarded to be.
  OpRun maybe = run_op({tensor("t", {"n - 1"}, DType::Int64)}, "aten.item.default", {T("t")}, {},
                       {Dim("n", 2)});
  ASSERT_TRUE(maybe.ok()) << maybe.error();
  EXPECT_EQ(joined(maybe.guards()), "n - 1 == 1");
}

TEST(Item, UnbackedSizeOfANewTensorMustBeNonNegative) {
  OpRun r = run_ops(
      {tensor("t", {}, DType::Int64)},
      {{"u", "aten.item.default", {T("t")}}, {"z", "aten.zeros.default", {List({T("u"), I(3)})}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[u0, 3]");
  EXPECT_EQ(joined(r.runtime_asserts()), "u0 >= 0");
  EXPECT_TRUE(r.guards().empty());
}

// ---- masked_select ----

TEST(MaskedSelect, BroadcastThenCount) {
  OpRun r = run_op({tensor("x", {"batch", "4"}), tensor("m", {"batch", "1"}, DType::Bool)},
                   "aten.masked_select.default", {T("x"), T("m")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[u0]");
  EXPECT_EQ(joined(r.runtime_asserts()), "u0 <= 4*batch");
  OpRun bad = run_op({tensor("x", {"3"}), tensor("m", {"4"}, DType::Bool)},
                     "aten.masked_select.default", {T("x"), T("m")});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  OpRun floats = run_op({tensor("x", {"3"}), tensor("m", {"3"})}, "aten.masked_select.default",
                        {T("x"), T("m")});
  EXPECT_EQ(floats.result.status, Propagation::Status::InputError);
}

// ---- unique ----

TEST(Unique, FlagsDecideInverseAndCounts) {
  std::vector<Input> x = {tensor("x", {"a", "b"}, DType::Int32)};
  EXPECT_EQ(run_op(x, "aten._unique2.default", {T("x"), B(true), B(true), B(true)}).str(),
            "(int32[u0], int64[a, b], int64[u0])");
  EXPECT_EQ(run_op(x, "aten._unique2.default", {T("x"), B(true), B(false), B(false)}).str(),
            "(int32[u0], int64[0], int64[0])");
  EXPECT_EQ(run_op(x, "aten._unique2.default", {T("x")}, {{"return_counts", B(true)}}).str(),
            "(int32[u0], int64[0], int64[u0])");
  EXPECT_EQ(run_op(x, "aten._unique.default", {T("x"), B(true), B(true)}).str(),
            "(int32[u0], int64[a, b])");
  OpRun r = run_op(x, "aten._unique2.default", {T("x")});
  EXPECT_EQ(joined(r.runtime_asserts()), "u0 <= a*b");
  EXPECT_TRUE(r.env->symbol("u0").size_like);
}

TEST(Unique, EmptyInputHasNoUniqueValues) {
  EXPECT_EQ(
      run_op({tensor("x", {"0"})}, "aten._unique2.default", {T("x"), B(true), B(true), B(true)})
          .str(),
      "(float32[0], int64[0], int64[0])");
}

TEST(Unique, AlongADim) {
  std::vector<Input> x = {tensor("x", {"a", "3"})};
  EXPECT_EQ(run_op(x, "aten.unique_dim.default", {T("x"), I(0), B(true), B(true), B(true)}).str(),
            "(float32[u0, 3], int64[a], int64[u0])");
  EXPECT_EQ(run_op(x, "aten.unique_consecutive.default", {T("x"), B(true), B(false), I(-1)}).str(),
            "(float32[a, u0], int64[3], int64[0])");
  EXPECT_EQ(run_op(x, "aten.unique_consecutive.default", {T("x"), B(true), B(true)}).str(),
            "(float32[u0], int64[a, 3], int64[u0])");
  EXPECT_EQ(
      run_op(x, "aten.unique_dim_consecutive.default", {T("x"), I(1), B(false), B(true)}).str(),
      "(float32[a, u0], int64[0], int64[u0])");
  OpRun range = run_op(x, "aten.unique_dim.default", {T("x"), I(1)});
  EXPECT_EQ(range_of(range, "u0"), "[0, 3]");
  EXPECT_EQ(run_op(x, "aten.unique_dim.default", {T("x"), I(2)}).result.status,
            Propagation::Status::InputError);
}

// ---- repeat_interleave.Tensor ----

TEST(RepeatInterleave, TotalIsDataDependentUnlessGiven) {
  std::vector<Input> reps = {tensor("r", {"n"}, DType::Int64)};
  OpRun r = run_op(reps, "aten.repeat_interleave.Tensor", {T("r")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "int64[u0]");
  EXPECT_TRUE(r.env->symbol("u0").size_like);
  OpRun given = run_op(reps, "aten.repeat_interleave.Tensor", {T("r")}, {{"output_size", I(12)}});
  EXPECT_EQ(given.str(), "int64[12]");
  EXPECT_EQ(
      run_op({tensor("r", {"2", "2"}, DType::Int64)}, "aten.repeat_interleave.Tensor", {T("r")})
          .result.status,
      Propagation::Status::InputError);
  EXPECT_EQ(run_op({tensor("r", {"2"})}, "aten.repeat_interleave.Tensor", {T("r")}).result.status,
            Propagation::Status::InputError);
}

TEST(RepeatInterleave, SelfIntIsStatic) {
  std::vector<Input> x = {tensor("x", {"a", "3"})};
  EXPECT_EQ(run_op(x, "aten.repeat_interleave.self_int", {T("x"), I(2)}).str(), "float32[6*a]");
  EXPECT_EQ(run_op(x, "aten.repeat_interleave.self_int", {T("x"), I(2), I(1)}).str(),
            "float32[a, 6]");
  EXPECT_EQ(run_op({tensor("x", {})}, "aten.repeat_interleave.self_int", {T("x"), I(2), I(0)})
                .result.status,
            Propagation::Status::InputError);
}

}  // namespace
}  // namespace symshape::testing
