// Shape rules of tensor creation (factories, arange, *_like, new_*) and dtype casts.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace symshape::testing {
namespace {

Arg tagged(Arg::Kind kind, const std::string& text) {
  Arg a;
  a.kind = kind;
  a.text = text;
  return a;
}
Arg Device(const std::string& d) { return tagged(Arg::Kind::Device, d); }

// A factory call with no tensor inputs (dims declare any symbols it uses).
OpRun factory(const std::string& target, std::vector<Arg> args, Kwargs kwargs = {},
              std::vector<std::pair<std::string, DimDecl>> dims = {}) {
  return run_op({}, target, std::move(args), std::move(kwargs), std::move(dims));
}

// ---- empty / zeros / ones / full / rand ----

TEST(Factory, SizesAndDefaultDtype) {
  EXPECT_EQ(factory("aten.empty.memory_format", {Ints({2, 3})}).str(), "float32[2, 3]");
  EXPECT_EQ(factory("aten.zeros.default", {Ints({4})}, {{"dtype", D(DType::Int32)}}).str(),
            "int32[4]");
  EXPECT_EQ(factory("aten.ones.default", {Ints({})}).str(), "float32[]");
  EXPECT_EQ(factory("aten.randn.default", {Ints({2})}, {{"dtype", D(DType::Float16)}}).str(),
            "float16[2]");
  EXPECT_EQ(factory("aten.rand.default", {Ints({2})}).str(), "float32[2]");
}

TEST(Factory, SymbolicSizes) {
  OpRun r = factory("aten.zeros.default", {List({E("n"), E("2*n"), I(3)})}, {}, {Dim("n", 4)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[n, 2*n, 3]");
  EXPECT_EQ(strides_str(r.value()), "[6*n, 3, 1]");
  // Sizes read off another tensor.
  OpRun from_size = run_ops({tensor("x", {"batch", "seq"})},
                            {{"b", "aten.sym_size.int", {T("x"), I(0)}},
                             {"z", "aten.empty.memory_format", {List({T("b"), I(8)})}}});
  EXPECT_EQ(from_size.str(), "float32[batch, 8]");
}

TEST(Factory, NegativeSizeIsBadInput) {
  OpRun r = factory("aten.empty.memory_format", {Ints({2, -1})});
  EXPECT_EQ(r.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(r.error(), "size -1 in [2, -1] is negative"));
}

TEST(Full, DtypeFollowsTheFillValue) {
  EXPECT_EQ(factory("aten.full.default", {Ints({2}), I(7)}).str(), "int64[2]");
  EXPECT_EQ(factory("aten.full.default", {Ints({2}), F(0.5)}).str(), "float32[2]");
  EXPECT_EQ(factory("aten.full.default", {Ints({2}), B(true)}).str(), "bool[2]");
  EXPECT_EQ(factory("aten.full.default", {Ints({2}), I(7)}, {{"dtype", D(DType::Float64)}}).str(),
            "float64[2]");
  OpRun symbolic_fill =
      run_ops({tensor("x", {"batch"})}, {{"b", "aten.sym_size.int", {T("x"), I(0)}},
                                         {"f", "aten.full.default", {Ints({3}), T("b")}}});
  EXPECT_EQ(symbolic_fill.str(), "int64[3]");
}

TEST(Randint, Int64ByDefault) {
  EXPECT_EQ(factory("aten.randint.default", {I(10), Ints({3, 4})}).str(), "int64[3, 4]");
  EXPECT_EQ(factory("aten.randint.low", {I(2), I(10), Ints({5})}).str(), "int64[5]");
  EXPECT_EQ(factory("aten.randint.default", {I(10), Ints({3})}, {{"dtype", D(DType::Int8)}}).str(),
            "int8[3]");
}

TEST(EmptyStrided, TakesTheStrides) {
  OpRun r = factory("aten.empty_strided.default", {Ints({2, 3}), Ints({1, 2})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[2, 3]");
  EXPECT_EQ(strides_str(r.value()), "[1, 2]");
  EXPECT_EQ(factory("aten.empty_strided.default", {Ints({2, 3}), Ints({1})}).result.status,
            Propagation::Status::InputError);
}

TEST(ScalarTensor, IsZeroDimFloat32ByDefault) {
  EXPECT_EQ(factory("aten.scalar_tensor.default", {F(1.0)}).str(), "float32[]");
  EXPECT_EQ(factory("aten.scalar_tensor.default", {I(1)}, {{"dtype", D(DType::Int64)}}).str(),
            "int64[]");
}

TEST(Eye, SquareAndRectangular) {
  EXPECT_EQ(factory("aten.eye.default", {I(3)}).str(), "float32[3, 3]");
  OpRun r = factory("aten.eye.m", {E("n"), I(5)}, {{"dtype", D(DType::Bool)}}, {Dim("n", 4)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "bool[n, 5]");
}

TEST(Linspace, StepsElements) {
  EXPECT_EQ(factory("aten.linspace.default", {F(0.0), F(1.0), I(5)}).str(), "float32[5]");
  EXPECT_EQ(factory("aten.linspace.default", {F(0.0), F(1.0), I(-1)}).result.status,
            Propagation::Status::InputError);
}

// ---- arange ----

TEST(Arange, IntegerBounds) {
  EXPECT_EQ(factory("aten.arange.default", {I(5)}).str(), "int64[5]");
  EXPECT_EQ(factory("aten.arange.start", {I(2), I(7)}).str(), "int64[5]");
  EXPECT_EQ(factory("aten.arange.start_step", {I(0), I(10), I(3)}).str(), "int64[4]");
  EXPECT_EQ(factory("aten.arange.start_step", {I(10), I(0), I(-3)}).str(), "int64[4]");
  EXPECT_EQ(factory("aten.arange.start", {I(3), I(3)}).str(), "int64[0]");
  EXPECT_EQ(factory("aten.arange.default", {I(5)}, {{"dtype", D(DType::Float32)}}).str(),
            "float32[5]");
}

TEST(Arange, SymbolicEndNeedsNoGuard) {
  OpRun r = factory("aten.arange.default", {E("n")}, {}, {Dim("n", 8)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "int64[n]");
  EXPECT_TRUE(r.guards().empty());
  OpRun start = factory("aten.arange.start", {I(1), E("n")}, {}, {Dim("n", 8)});
  EXPECT_EQ(start.str(), "int64[n - 1]");
  EXPECT_TRUE(start.guards().empty());
  OpRun step = factory("aten.arange.start_step", {I(0), E("n"), I(2)}, {}, {Dim("n", 8)});
  EXPECT_EQ(step.str(), "int64[(n + 1)//2]");
  EXPECT_TRUE(step.guards().empty());
  OpRun down = factory("aten.arange.start_step", {E("n"), I(0), I(-1)}, {}, {Dim("n", 8)});
  EXPECT_EQ(down.str(), "int64[n]");
  EXPECT_TRUE(down.guards().empty());
}

TEST(Arange, SymbolicBoundsOfUnknownOrderAreGuarded) {
  OpRun r = factory("aten.arange.start", {E("a"), E("b")}, {}, {Dim("a", 3), Dim("b", 8)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "int64[-a + b]");
  EXPECT_EQ(joined(r.guards()), "b >= a");
  OpRun reversed = factory("aten.arange.start", {E("a"), E("b")}, {}, {Dim("a", 8), Dim("b", 3)});
  EXPECT_EQ(reversed.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(reversed.error(), "inconsistent with step sign"));
}

TEST(Arange, SymbolicStepSignIsGuarded) {
  OpRun r = factory("aten.arange.start_step", {I(0), I(12), E("k - 5")}, {}, {Dim("k", 8, 2, 10)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(joined(r.guards()), "k - 5 != 0; k - 5 > 0");
  EXPECT_EQ(r.env->size_hint(r.value().tensor.sizes[0]), Int(4));
}

TEST(Arange, BadIntegerArguments) {
  OpRun zero = factory("aten.arange.start_step", {I(0), I(5), I(0)});
  EXPECT_EQ(zero.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(zero.error(), "step must be nonzero"));
  OpRun backwards = factory("aten.arange.start", {I(5), I(0)});
  EXPECT_EQ(backwards.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(backwards.error(), "upper bound and lower bound inconsistent"));
  EXPECT_EQ(factory("aten.arange.start_step", {I(0), I(5), I(-1)}).result.status,
            Propagation::Status::InputError);
}

TEST(Arange, UntrackedFloatBoundGivesAnUnbackedLength) {
  // A float computed by the graph has no known value: the length is data-dependent.
  OpRun r = run_ops({{"t", DType::Float32, {}}},
                    {{"f", "aten.item.default", {T("t")}},
                     {"a", "aten.arange.start_step", {F(0.0), T("f"), F(0.5)}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[u0]");
  EXPECT_TRUE(r.env->symbol("u0").size_like);
}

TEST(Arange, FloatingBounds) {
  EXPECT_EQ(factory("aten.arange.start_step", {F(0.0), F(1.0), F(0.25)}).str(), "float32[4]");
  EXPECT_EQ(factory("aten.arange.start", {I(0), F(5.5)}).str(), "float32[6]");
  EXPECT_EQ(factory("aten.arange.start_step", {F(1.0), F(0.0), F(-0.3)}).str(), "float32[4]");
  EXPECT_EQ(factory("aten.arange.default", {F(2.5)}, {{"dtype", D(DType::Float64)}}).str(),
            "float64[3]");
  // An int64 result truncates floating bounds first; other dtypes do not.
  EXPECT_EQ(factory("aten.arange.start", {I(0), F(5.5)}, {{"dtype", D(DType::Int64)}}).str(),
            "int64[5]");
  EXPECT_EQ(factory("aten.arange.start", {I(0), F(5.5)}, {{"dtype", D(DType::Int32)}}).str(),
            "int32[6]");
  EXPECT_EQ(factory("aten.arange.start_step", {F(0.0), F(1.0), F(0.0)}).result.status,
            Propagation::Status::InputError);
  EXPECT_EQ(factory("aten.arange.start", {F(0.5), F(0.0)}).result.status,
            Propagation::Status::InputError);
  EXPECT_EQ(factory("aten.arange.start_step", {I(0), I(1), F(0.5)}, {{"dtype", D(DType::Int64)}})
                .result.status,
            Propagation::Status::InputError);
}

// ---- *_like / new_* ----

TEST(Like, SelfsShapeAndDtypeUnlessGiven) {
  std::vector<Input> in = {tensor("x", {"a", "b"}, DType::Float16)};
  EXPECT_EQ(run_op(in, "aten.empty_like.default", {T("x")}).str(), "float16[a, b]");
  EXPECT_EQ(run_op(in, "aten.zeros_like.default", {T("x")}, {{"dtype", D(DType::Int64)}}).str(),
            "int64[a, b]");
  EXPECT_EQ(run_op(in, "aten.ones_like.default", {T("x")}).str(), "float16[a, b]");
  EXPECT_EQ(run_op(in, "aten.rand_like.default", {T("x")}).str(), "float16[a, b]");
  EXPECT_EQ(run_op(in, "aten.full_like.default", {T("x"), I(3)}).str(), "float16[a, b]");
  EXPECT_EQ(
      run_op(in, "aten.full_like.default", {T("x"), I(3)}, {{"dtype", D(DType::Int32)}}).str(),
      "int32[a, b]");
}

TEST(Like, MemoryFormatDecidesStrides) {
  // preserve (the default) keeps a transposed layout; contiguous_format does not.
  std::vector<Call> transposed = {{"t", "aten.t.default", {T("x")}}};
  std::vector<Call> preserve = transposed;
  preserve.push_back({"e", "aten.empty_like.default", {T("t")}});
  OpRun kept = run_ops({tensor("x", {"a", "b"})}, preserve);
  EXPECT_EQ(kept.str(), "float32[b, a]");
  EXPECT_EQ(strides_str(kept.value()), "[1, b]");
  std::vector<Call> contig = transposed;
  contig.push_back({"e",
                    "aten.empty_like.default",
                    {T("t")},
                    {{"memory_format", MemoryFormat("contiguous_format")}}});
  EXPECT_EQ(strides_str(run_ops({tensor("x", {"a", "b"})}, contig).value()), "[a, 1]");
  // A broadcast (stride 0) input gets a dense result.
  OpRun expanded = run_ops({tensor("x", {"1", "b"})},
                           {{"e", "aten.expand.default", {T("x"), List({I(4), E("b")})}},
                            {"z", "aten.zeros_like.default", {T("e")}}});
  EXPECT_EQ(strides_str(expanded.value()), "[b, 1]");
  OpRun nhwc = run_op({tensor("x", {"n", "c", "h", "w"})}, "aten.empty_like.default", {T("x")},
                      {{"memory_format", MemoryFormat("channels_last")}});
  EXPECT_EQ(strides_str(nhwc.value()), "[c*h*w, 1, c*w, c]");
  EXPECT_EQ(run_op({tensor("x", {"a"})}, "aten.empty_like.default", {T("x")},
                   {{"memory_format", MemoryFormat("channels_last")}})
                .result.status,
            Propagation::Status::InputError);
}

TEST(NewFactories, GivenSizeSelfsDtype) {
  std::vector<Input> in = {tensor("x", {"a"}, DType::BFloat16)};
  EXPECT_EQ(run_op(in, "aten.new_zeros.default", {T("x"), Ints({2, 3})}).str(), "bfloat16[2, 3]");
  EXPECT_EQ(run_op(in, "aten.new_empty.default", {T("x"), List({E("a"), I(2)})}).str(),
            "bfloat16[a, 2]");
  EXPECT_EQ(
      run_op(in, "aten.new_ones.default", {T("x"), Ints({2})}, {{"dtype", D(DType::Bool)}}).str(),
      "bool[2]");
  EXPECT_EQ(run_op(in, "aten.new_full.default", {T("x"), Ints({4}), F(1.0)}).str(), "bfloat16[4]");
  OpRun strided =
      run_op(in, "aten.new_empty_strided.default", {T("x"), Ints({2, 3}), Ints({1, 2})});
  EXPECT_EQ(strided.str(), "bfloat16[2, 3]");
  EXPECT_EQ(strides_str(strided.value()), "[1, 2]");
  EXPECT_EQ(
      run_op(in, "aten.new_empty_strided.default", {T("x"), Ints({2, 3}), Ints({1})}).result.status,
      Propagation::Status::InputError);
  EXPECT_EQ(run_op(in, "aten.new_zeros.default", {T("x"), Ints({-2})}).result.status,
            Propagation::Status::InputError);
}

// ---- casts ----

TEST(Cast, ToCopyAndToDtype) {
  std::vector<Input> in = {tensor("x", {"a", "b"})};
  EXPECT_EQ(run_op(in, "aten._to_copy.default", {T("x")}, {{"dtype", D(DType::Float16)}}).str(),
            "float16[a, b]");
  EXPECT_EQ(run_op(in, "aten._to_copy.default", {T("x")}).str(), "float32[a, b]");
  EXPECT_EQ(run_op(in, "aten.to.dtype", {T("x"), D(DType::Int32)}).str(), "int32[a, b]");
  EXPECT_EQ(run_op(in, "aten.to.dtype_layout", {T("x")}, {{"dtype", D(DType::Float64)}}).str(),
            "float64[a, b]");
  EXPECT_EQ(run_op(in, "aten.to.device", {T("x"), Device("cuda:0"), D(DType::BFloat16)}).str(),
            "bfloat16[a, b]");
}

TEST(Cast, PreservesALayoutUnlessAskedForContiguous) {
  OpRun kept = run_ops({tensor("x", {"a", "b"})},
                       {{"t", "aten.t.default", {T("x")}},
                        {"c", "aten._to_copy.default", {T("t")}, {{"dtype", D(DType::Float16)}}}});
  EXPECT_EQ(kept.str(), "float16[b, a]");
  EXPECT_EQ(strides_str(kept.value()), "[1, b]");
  OpRun dense = run_ops({tensor("x", {"a", "b"})},
                        {{"t", "aten.t.default", {T("x")}},
                         {"c",
                          "aten._to_copy.default",
                          {T("t")},
                          {{"memory_format", MemoryFormat("contiguous_format")}}}});
  EXPECT_EQ(strides_str(dense.value()), "[a, 1]");
}

TEST(Cast, TypeAsAndToOtherTakeOthersDtype) {
  std::vector<Input> in = {tensor("x", {"a", "b"}), tensor("y", {"3"}, DType::Int8)};
  EXPECT_EQ(run_op(in, "aten.type_as.default", {T("x"), T("y")}).str(), "int8[a, b]");
  EXPECT_EQ(run_op(in, "aten.to.other", {T("x"), T("y")}).str(), "int8[a, b]");
}

// ---- copy ----

TEST(Copy, SourceBroadcastsToSelf) {
  OpRun r = run_op({tensor("x", {"a", "4"}, DType::Float16), tensor("y", {"4"}, DType::Int64)},
                   "aten.copy.default", {T("x"), T("y")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float16[a, 4]");
  OpRun in_place = run_op({tensor("x", {"a", "4"}), tensor("y", {"1", "4"})}, "aten.copy_.default",
                          {T("x"), T("y")});
  ASSERT_TRUE(in_place.ok()) << in_place.error();
  EXPECT_EQ(in_place.str(), "float32[a, 4]");
}

TEST(Copy, SelfIsNeverBroadcast) {
  OpRun r = run_op({tensor("x", {"1", "4"}), tensor("y", {"3", "4"})}, "aten.copy.default",
                   {T("x"), T("y")});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(), "copy: source [3, 4] cannot be broadcast to [1, 4]"));
  OpRun rank =
      run_op({tensor("x", {"4"}), tensor("y", {"2", "4"})}, "aten.copy.default", {T("x"), T("y")});
  EXPECT_EQ(rank.result.status, Propagation::Status::ShapeError);
  OpRun guarded =
      run_op({tensor("x", {"a"}), tensor("y", {"b"})}, "aten.copy.default", {T("x"), T("y")});
  ASSERT_TRUE(guarded.ok()) << guarded.error();
  EXPECT_EQ(joined(guarded.guards()), "a == b");
}

}  // namespace
}  // namespace symshape::testing
