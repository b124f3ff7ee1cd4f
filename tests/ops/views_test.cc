// Shape rules of views and shape ops: reshape, permutations, expand, squeeze, slicing, split,
// cat / stack, repeat, padding, pixel shuffle, as_strided and dtype views.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace symshape::testing {
namespace {

// One op on a single input `x` of the given shape.
OpRun views_on_x(std::vector<std::string> shape, const std::string& target, std::vector<Arg> args,
                 std::vector<std::pair<std::string, DimDecl>> dims = {}) {
  std::vector<Arg> all = {T("x")};
  all.insert(all.end(), args.begin(), args.end());
  return run_op({tensor("x", std::move(shape))}, target, std::move(all), {}, std::move(dims));
}

// The sizes of each item of a list value: "[3, 4] [3, 4] [1, 4]".
std::string item_shapes(const OpRun& r) {
  std::string s;
  for (const Value& v : r.value().items) {
    if (!s.empty()) s += " ";
    s += "[";
    for (size_t i = 0; i < v.tensor.sizes.size(); ++i) {
      s += (i ? ", " : "") + v.tensor.sizes[i].str();
    }
    s += "]";
  }
  return s;
}

const std::vector<std::string> kBSD = {"batch", "seq", "512"};

// ---- view / reshape ----

TEST(View, InferredDimOverSymbolicDimsNeedsNoGuard) {
  OpRun r = views_on_x(kBSD, "aten.view.default", {Ints({-1, 512})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch*seq, 512]");
  EXPECT_TRUE(r.guards().empty()) << joined(r.guards());
}

TEST(View, InferredDimGuardsDivisibilityThenDividesExactly) {
  OpRun r = views_on_x({"a", "4"}, "aten.view.default", {Ints({-1, 16})}, {Dim("a", 8)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[a//4, 16]");
  // One guard: 4 | a (printed as the simplifier leaves it), true at a = 8, false at a = 6.
  ASSERT_EQ(r.guards().size(), 1u);
  EXPECT_TRUE(Contains(r.guards()[0], "a % 4")) << r.guards()[0];
  EXPECT_TRUE(evaluate(r.env->guards()[0].cond, {{"a", Int(8)}}));
  EXPECT_FALSE(evaluate(r.env->guards()[0].cond, {{"a", Int(6)}}));
}

TEST(View, InferredDimThatDoesNotDivideFailsAtTheHint) {
  OpRun r = views_on_x({"a", "4"}, "aten.view.default", {Ints({-1, 16})}, {Dim("a", 6)});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(),
                       "node op (aten.view.default): shape [-1, 16] is invalid for "
                       "input of size 4*a"))
      << r.error();
}

TEST(Reshape, ConcreteSizesAndInvalidTargets) {
  EXPECT_EQ(views_on_x({"2", "3", "4"}, "aten.reshape.default", {Ints({4, -1})}).str(),
            "float32[4, 6]");
  OpRun bad = views_on_x({"2", "3"}, "aten.reshape.default", {Ints({4, 2})});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(bad.error(), "shape [4, 2] is invalid for input of size 6"));
  OpRun two = views_on_x({"2", "3"}, "aten.reshape.default", {Ints({-1, -1})});
  EXPECT_EQ(two.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(two.error(), "only one dimension can be inferred"));
  OpRun negative = views_on_x({"2", "3"}, "aten.reshape.default", {Ints({-2, 3})});
  EXPECT_EQ(negative.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(negative.error(), "invalid size -2"));
}

TEST(Reshape, InferringNextToAZeroSizeIsAmbiguous) {
  OpRun r = views_on_x({"0", "4"}, "aten.reshape.default", {Ints({-1, 0})});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(), "ambiguous")) << r.error();
  EXPECT_EQ(views_on_x({"0", "4"}, "aten.reshape.default", {Ints({-1, 2})}).str(), "float32[0, 2]");
}

TEST(Reshape, SymbolicTargetWithSameNumelNeedsNoGuard) {
  OpRun r = views_on_x(kBSD, "aten.reshape.default", {List({E("batch"), E("seq"), I(8), I(64)})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, seq, 8, 64]");
  EXPECT_TRUE(r.guards().empty());
  OpRun merged = views_on_x(kBSD, "aten.reshape.default", {List({E("batch*seq"), I(-1)})});
  ASSERT_TRUE(merged.ok()) << merged.error();
  EXPECT_EQ(merged.str(), "float32[batch*seq, 512]");
  EXPECT_TRUE(merged.guards().empty());
}

TEST(Reshape, SizesFromSymSizeNodes) {
  OpRun r =
      run_ops({tensor("x", kBSD)}, {{"n", "aten.sym_size.int", {T("x"), I(0)}},
                                    {"v", "aten.view.default", {T("x"), List({T("n"), I(-1)})}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, 512*seq]");
  EXPECT_TRUE(r.guards().empty());
}

TEST(Reshape, DifferentNumelIsGuardedOrFails) {
  // [a, b] -> [b, a] keeps numel; [a] -> [b] needs a == b.
  OpRun same = views_on_x({"a", "b"}, "aten.reshape.default", {List({E("b"), E("a")})});
  ASSERT_TRUE(same.ok()) << same.error();
  EXPECT_TRUE(same.guards().empty());
  OpRun guarded = run_op({tensor("x", {"a"}), tensor("y", {"b"})}, "aten.reshape.default",
                         {T("x"), List({E("b")})});
  ASSERT_TRUE(guarded.ok()) << guarded.error();
  EXPECT_EQ(joined(guarded.guards()), "a == b");
}

TEST(View, StridesFollowANonContiguousInput) {
  // [6, b] transposed is [b, 6] with strides [1, b]; splitting the 6 keeps it a view.
  OpRun split = run_ops({tensor("x", {"6", "b"})},
                        {{"t", "aten.t.default", {T("x")}},
                         {"v", "aten.view.default", {T("t"), List({E("b"), I(2), I(3)})}}});
  ASSERT_TRUE(split.ok()) << split.error();
  EXPECT_EQ(split.str(), "float32[b, 2, 3]");
  EXPECT_EQ(strides_str(split.value()), "[1, 3*b, b]");
  EXPECT_TRUE(split.guards().empty());
  // A slice keeps rows apart: its columns split, but rows and columns do not merge.
  std::vector<Call> sliced = {{"s", "aten.slice.Tensor", {T("x"), I(1), I(0), I(8)}}};
  std::vector<Call> split_cols = sliced;
  split_cols.push_back({"v", "aten.view.default", {T("s"), List({E("a"), I(2), I(4)})}});
  OpRun cols = run_ops({tensor("x", {"a", "16"})}, split_cols);
  ASSERT_TRUE(cols.ok()) << cols.error();
  EXPECT_EQ(strides_str(cols.value()), "[16, 4, 1]");
  std::vector<Call> merge = sliced;
  merge.push_back({"v", "aten.view.default", {T("s"), Ints({-1})}});
  EXPECT_EQ(run_ops({tensor("x", {"a", "16"})}, merge).result.status,
            Propagation::Status::ShapeError);
}

TEST(View, MergingDimsAcrossAGapFailsButReshapeCopies) {
  std::vector<Call> view = {{"t", "aten.t.default", {T("x")}},
                            {"v", "aten.view.default", {T("t"), Ints({-1})}}};
  OpRun bad = run_ops({tensor("x", {"a", "b"})}, view);
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(bad.error(),
                       "node v (aten.view.default): view size is not compatible with "
                       "input tensor's size and stride"));
  std::vector<Call> reshape = {{"t", "aten.t.default", {T("x")}},
                               {"v", "aten.reshape.default", {T("t"), Ints({-1})}}};
  OpRun copied = run_ops({tensor("x", {"a", "b"})}, reshape);
  ASSERT_TRUE(copied.ok()) << copied.error();
  EXPECT_EQ(copied.str(), "float32[a*b]");
  EXPECT_EQ(strides_str(copied.value()), "[1]");
  // Expanded (stride 0) dims cannot merge either.
  OpRun expanded =
      run_ops({tensor("x", {"3", "1"})}, {{"e", "aten.expand.default", {T("x"), Ints({3, 4})}},
                                          {"v", "aten.view.default", {T("e"), Ints({12})}}});
  EXPECT_EQ(expanded.result.status, Propagation::Status::ShapeError);
  // view_copy always makes a dense copy.
  std::vector<Call> copy = {{"t", "aten.t.default", {T("x")}},
                            {"v", "aten.view_copy.default", {T("t"), Ints({-1})}}};
  EXPECT_EQ(run_ops({tensor("x", {"a", "b"})}, copy).str(), "float32[a*b]");
}

TEST(ViewAs, ReshapeAsAndViewAsTakeOthersShape) {
  std::vector<Input> in = {tensor("x", {"a", "6"}), tensor("y", {"a", "2", "3"}, DType::Int64)};
  EXPECT_EQ(run_op(in, "aten.view_as.default", {T("x"), T("y")}).str(), "float32[a, 2, 3]");
  EXPECT_EQ(run_op(in, "aten.reshape_as.default", {T("x"), T("y")}).str(), "float32[a, 2, 3]");
  OpRun bad = run_op({tensor("x", {"a", "6"}), tensor("y", {"a", "5"})}, "aten.view_as.default",
                     {T("x"), T("y")});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
}

// ---- permutations ----

TEST(Permute, NegativeDimsAndStrides) {
  OpRun r = views_on_x({"a", "b", "c"}, "aten.permute.default", {Ints({-1, 0, 1})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[c, a, b]");
  EXPECT_EQ(strides_str(r.value()), "[1, b*c, c]");
}

TEST(Permute, BadDimListsAreBadInput) {
  OpRun repeated = views_on_x({"a", "b"}, "aten.permute.default", {Ints({0, 0})});
  EXPECT_EQ(repeated.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(repeated.error(), "repeat"));
  OpRun short_list = views_on_x({"a", "b"}, "aten.permute.default", {Ints({0})});
  EXPECT_EQ(short_list.result.status, Propagation::Status::InputError);
  OpRun out_of_range = views_on_x({"a", "b"}, "aten.permute.default", {Ints({0, 2})});
  EXPECT_TRUE(Contains(out_of_range.error(), "dim 2 is out of range for a tensor of rank 2"));
}

TEST(Transpose, SwapsSizesAndStrides) {
  OpRun r = views_on_x({"a", "b", "c"}, "aten.transpose.int", {I(0), I(-1)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[c, b, a]");
  EXPECT_EQ(strides_str(r.value()), "[1, c, b*c]");
  EXPECT_EQ(views_on_x({"a", "b", "c"}, "aten.swapaxes.default", {I(1), I(2)}).str(),
            "float32[a, c, b]");
  EXPECT_EQ(views_on_x({}, "aten.transpose.int", {I(0), I(-1)}).str(), "float32[]");
  OpRun bad = views_on_x({"a", "b"}, "aten.transpose.int", {I(0), I(2)});
  EXPECT_EQ(bad.result.status, Propagation::Status::InputError);
}

TEST(T, TwoDimsTransposeFewerStayMoreFail) {
  OpRun r = views_on_x({"a", "b"}, "aten.t.default", {});
  EXPECT_EQ(r.str(), "float32[b, a]");
  EXPECT_EQ(strides_str(r.value()), "[1, b]");
  EXPECT_EQ(views_on_x({"a"}, "aten.t.default", {}).str(), "float32[a]");
  OpRun bad = views_on_x({"a", "b", "c"}, "aten.t.default", {});
  EXPECT_EQ(bad.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(bad.error(), "at most 2 dims"));
}

TEST(Movedim, IntAndListsWithNegativeDims) {
  EXPECT_EQ(views_on_x({"a", "b", "c"}, "aten.movedim.int", {I(0), I(-1)}).str(),
            "float32[b, c, a]");
  EXPECT_EQ(
      views_on_x({"a", "b", "c", "d"}, "aten.movedim.intlist", {Ints({0, 1}), Ints({-1, 0})}).str(),
      "float32[b, c, d, a]");
  OpRun r = views_on_x({"a", "b", "c"}, "aten.movedim.int", {I(2), I(0)});
  EXPECT_EQ(r.str(), "float32[c, a, b]");
  EXPECT_EQ(strides_str(r.value()), "[1, b*c, c]");
  OpRun repeated =
      views_on_x({"a", "b", "c"}, "aten.movedim.intlist", {Ints({0, 0}), Ints({1, 2})});
  EXPECT_EQ(repeated.result.status, Propagation::Status::InputError);
  EXPECT_EQ(views_on_x({}, "aten.movedim.int", {I(0), I(-1)}).str(), "float32[]");
  EXPECT_EQ(views_on_x({}, "aten.movedim.int", {I(0), I(1)}).result.status,
            Propagation::Status::InputError);
}

TEST(NumpyT, ReversesAllDims) {
  EXPECT_EQ(views_on_x({"a", "b", "c"}, "aten.numpy_T.default", {}).str(), "float32[c, b, a]");
}

// ---- expand ----

TEST(Expand, NewLeadingDimsAndSizeOneDimsHaveStrideZero) {
  OpRun r = views_on_x({"3", "1"}, "aten.expand.default", {Ints({2, -1, 4})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[2, 3, 4]");
  EXPECT_EQ(strides_str(r.value()), "[0, 1, 0]");
}

TEST(Expand, SymbolicTargetsNeedNoGuardAgainstOne) {
  OpRun r = views_on_x({"batch", "1"}, "aten.expand.default", {List({I(-1), E("seq")})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, seq]");
  EXPECT_TRUE(r.guards().empty());
}

TEST(Expand, DifferentSymbolIsGuardedEqualAndMismatchFails) {
  OpRun r = run_op({tensor("x", {"a", "4"}), tensor("y", {"b", "4"})}, "aten.expand_as.default",
                   {T("x"), T("y")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(joined(r.guards()), "a == b");
  OpRun bad = views_on_x({"a", "3"}, "aten.expand.default", {List({E("a"), I(4)})});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(bad.error(), "cannot expand [a, 3] to [a, 4] at dim 1 (3 != 4)"));
}

TEST(Expand, UnbackedSizeIsSizeOblivious) {
  // u0 (a nonzero count) is not taken for 1: expanding it to 3 asserts u0 == 3 at run time,
  // after which u0 is 3.
  OpRun r =
      run_ops({tensor("m", {"3", "4"})}, {{"nz", "aten.nonzero.default", {T("m")}},
                                          {"e", "aten.expand.default", {T("nz"), Ints({3, 2})}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "int64[3, 2]");
  EXPECT_EQ(joined(r.runtime_asserts()), "u0 == 3");
  EXPECT_TRUE(r.guards().empty());
}

TEST(Expand, BadTargetsAreBadInput) {
  OpRun fewer = views_on_x({"a", "3"}, "aten.expand.default", {Ints({3})});
  EXPECT_EQ(fewer.result.status, Propagation::Status::InputError);
  OpRun leading = views_on_x({"3"}, "aten.expand.default", {Ints({-1, 3})});
  EXPECT_EQ(leading.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(leading.error(), "-1 is not allowed for a new leading dim"));
  OpRun negative = views_on_x({"1"}, "aten.expand.default", {Ints({-2})});
  EXPECT_EQ(negative.result.status, Propagation::Status::InputError);
}

// ---- squeeze / unsqueeze / flatten / unflatten ----

TEST(Squeeze, AllDimsKeepsSymbolicDimsWithoutGuards) {
  OpRun r = views_on_x({"1", "batch", "1"}, "aten.squeeze.default", {});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch]");
  EXPECT_TRUE(r.guards().empty());
}

TEST(Squeeze, DimAndDims) {
  EXPECT_EQ(views_on_x({"1", "batch", "1"}, "aten.squeeze.dim", {I(-1)}).str(),
            "float32[1, batch]");
  OpRun kept = views_on_x({"1", "batch", "1"}, "aten.squeeze.dim", {I(1)});
  EXPECT_EQ(kept.str(), "float32[1, batch, 1]");
  EXPECT_TRUE(kept.guards().empty());
  EXPECT_EQ(views_on_x({"1", "batch", "1"}, "aten.squeeze.dims", {Ints({0, 2})}).str(),
            "float32[batch]");
  EXPECT_EQ(views_on_x({"1", "batch", "1"}, "aten.squeeze.dims", {Ints({})}).str(),
            "float32[1, batch, 1]");
  EXPECT_EQ(views_on_x({}, "aten.squeeze.dim", {I(0)}).str(), "float32[]");
  OpRun bad = views_on_x({"1", "batch"}, "aten.squeeze.dim", {I(2)});
  EXPECT_EQ(bad.result.status, Propagation::Status::InputError);
}

TEST(Squeeze, DimThatMayBeOneIsGuarded) {
  // n - 1 ranges over [1, inf]: whether it is 1 is decided on the hint.
  OpRun r = views_on_x({"n - 1", "4"}, "aten.squeeze.dim", {I(0)}, {Dim("n", 5)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[n - 1, 4]");
  EXPECT_EQ(joined(r.guards()), "n - 1 != 1");
  OpRun one = views_on_x({"n - 1", "4"}, "aten.squeeze.dim", {I(0)}, {Dim("n", 2)});
  ASSERT_TRUE(one.ok()) << one.error();
  EXPECT_EQ(one.str(), "float32[4]");
  EXPECT_EQ(joined(one.guards()), "n - 1 == 1");
}

TEST(Unsqueeze, NegativePositionsAndStrides) {
  OpRun last = views_on_x({"a", "b"}, "aten.unsqueeze.default", {I(-1)});
  EXPECT_EQ(last.str(), "float32[a, b, 1]");
  EXPECT_EQ(strides_str(last.value()), "[b, 1, 1]");
  OpRun first = views_on_x({"a", "b"}, "aten.unsqueeze.default", {I(-3)});
  EXPECT_EQ(first.str(), "float32[1, a, b]");
  EXPECT_EQ(strides_str(first.value()), "[a*b, b, 1]");
  EXPECT_EQ(views_on_x({"a", "b"}, "aten.unsqueeze.default", {I(1)}).str(), "float32[a, 1, b]");
  EXPECT_EQ(views_on_x({}, "aten.unsqueeze.default", {I(0)}).str(), "float32[1]");
  OpRun bad = views_on_x({"a", "b"}, "aten.unsqueeze.default", {I(3)});
  EXPECT_EQ(bad.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(bad.error(), "dim 3 is out of range"));
}

TEST(Flatten, RangesOfDims) {
  EXPECT_EQ(views_on_x({"a", "b", "c", "d"}, "aten.flatten.using_ints", {I(1), I(2)}).str(),
            "float32[a, b*c, d]");
  EXPECT_EQ(views_on_x({"a", "b", "c"}, "aten.flatten.using_ints", {}).str(), "float32[a*b*c]");
  EXPECT_EQ(views_on_x({"a", "b", "c"}, "aten.flatten.using_ints", {I(-2)}).str(),
            "float32[a, b*c]");
  EXPECT_EQ(views_on_x({}, "aten.flatten.using_ints", {}).str(), "float32[1]");
  OpRun bad = views_on_x({"a", "b", "c"}, "aten.flatten.using_ints", {I(2), I(1)});
  EXPECT_EQ(bad.result.status, Propagation::Status::InputError);
}

TEST(Flatten, IsAReshape) {
  // Merging transposed dims copies; flattening a single dim returns the tensor as it is.
  std::vector<Call> merge = {{"t", "aten.t.default", {T("x")}},
                             {"f", "aten.flatten.using_ints", {T("t")}}};
  OpRun copied = run_ops({tensor("x", {"a", "b"})}, merge);
  EXPECT_EQ(copied.str(), "float32[a*b]");
  EXPECT_EQ(strides_str(copied.value()), "[1]");
  std::vector<Call> one = {{"t", "aten.t.default", {T("x")}},
                           {"f", "aten.flatten.using_ints", {T("t"), I(1), I(1)}}};
  OpRun same = run_ops({tensor("x", {"a", "b"})}, one);
  EXPECT_EQ(same.str(), "float32[b, a]");
  EXPECT_EQ(strides_str(same.value()), "[1, b]");
}

TEST(Unflatten, WithInferredSize) {
  EXPECT_EQ(views_on_x({"a", "12"}, "aten.unflatten.int", {I(1), Ints({3, -1})}).str(),
            "float32[a, 3, 4]");
  OpRun r = views_on_x({"a", "12"}, "aten.unflatten.int", {I(0), Ints({-1, 2})}, {Dim("a", 8)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[a//2, 2, 12]");
  EXPECT_EQ(joined(r.guards()), "a % 2 == 0");
  OpRun bad = views_on_x({"a", "12"}, "aten.unflatten.int", {I(-1), Ints({5, -1})});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  OpRun scalar = views_on_x({}, "aten.unflatten.int", {I(0), Ints({1})});
  EXPECT_EQ(scalar.result.status, Propagation::Status::InputError);
  EXPECT_EQ(views_on_x({"a", "12"}, "aten.unflatten.int", {I(1), Ints({})}).result.status,
            Propagation::Status::InputError);
}

TEST(Unflatten, SplitsTheDimsStride) {
  OpRun r = run_ops({tensor("x", {"6", "b"})},
                    {{"t", "aten.t.default", {T("x")}},
                     {"u", "aten.unflatten.int", {T("t"), I(1), Ints({2, 3})}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[b, 2, 3]");
  EXPECT_EQ(strides_str(r.value()), "[1, 3*b, b]");
}

// ---- slice / narrow / select ----

TEST(Slice, ConcreteBoundsClampLikePython) {
  const std::vector<std::string> x = {"batch", "16"};
  EXPECT_EQ(views_on_x(x, "aten.slice.Tensor", {I(1), I(2), I(10)}).str(), "float32[batch, 8]");
  EXPECT_EQ(views_on_x(x, "aten.slice.Tensor", {I(1), I(4), I(100)}).str(), "float32[batch, 12]");
  EXPECT_EQ(views_on_x(x, "aten.slice.Tensor", {I(1), I(-4)}).str(), "float32[batch, 4]");
  EXPECT_EQ(views_on_x(x, "aten.slice.Tensor", {I(1), I(-100), I(5)}).str(), "float32[batch, 5]");
  EXPECT_EQ(views_on_x(x, "aten.slice.Tensor", {I(1), I(10), I(5)}).str(), "float32[batch, 0]");
  EXPECT_EQ(views_on_x(x, "aten.slice.Tensor", {I(1), I(20), I(30)}).str(), "float32[batch, 0]");
  EXPECT_EQ(views_on_x(x, "aten.slice.Tensor", {I(1), I(-3), I(-1)}).str(), "float32[batch, 2]");
}

TEST(Slice, DefaultEndIsSysMaxsize) {
  OpRun r = views_on_x({"batch", "16"}, "aten.slice.Tensor",
                       {I(0), I(1), Arg::of_int(Expr(*parse_int("9223372036854775807")))});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch - 1, 16]");
  EXPECT_TRUE(r.guards().empty());
  EXPECT_EQ(views_on_x({"batch", "16"}, "aten.slice.Tensor", {}).str(), "float32[batch, 16]");
  OpRun from_min = views_on_x({"batch", "16"}, "aten.slice.Tensor",
                              {I(0), Arg::of_int(Expr(*parse_int("-9223372036854775807"))), I(2)});
  EXPECT_EQ(from_min.str(), "float32[2, 16]");
  EXPECT_TRUE(from_min.guards().empty());
}

TEST(Slice, StepScalesTheStride) {
  OpRun r = views_on_x({"batch", "16"}, "aten.slice.Tensor", {I(1), I(0), I(16), I(3)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, 6]");
  EXPECT_EQ(strides_str(r.value()), "[16, 3]");
  OpRun zero = views_on_x({"batch", "16"}, "aten.slice.Tensor", {I(1), I(0), I(16), I(0)});
  EXPECT_EQ(zero.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(zero.error(), "slice step must be positive"));
  OpRun negative = views_on_x({"batch", "16"}, "aten.slice.Tensor", {I(1), I(0), I(16), I(-1)});
  EXPECT_EQ(negative.result.status, Propagation::Status::InputError);
}

TEST(Slice, SymbolicBoundsWithoutGuards) {
  const std::vector<std::string> x = {"batch", "16"};
  OpRun tail = views_on_x(x, "aten.slice.Tensor", {I(0), I(1)});
  EXPECT_EQ(tail.str(), "float32[batch - 1, 16]");
  EXPECT_TRUE(tail.guards().empty());
  OpRun drop_last = views_on_x(x, "aten.slice.Tensor", {I(0), I(0), I(-1)});
  EXPECT_EQ(drop_last.str(), "float32[batch - 1, 16]");
  EXPECT_TRUE(drop_last.guards().empty());
  OpRun symbolic_end = views_on_x(x, "aten.slice.Tensor", {I(0), I(0), E("batch - 1")});
  EXPECT_EQ(symbolic_end.str(), "float32[batch - 1, 16]");
  EXPECT_TRUE(symbolic_end.guards().empty());
  OpRun step_two = views_on_x(x, "aten.slice.Tensor", {I(0), I(0), E("batch"), I(2)});
  EXPECT_EQ(step_two.str(), "float32[(batch + 1)//2, 16]");
  EXPECT_TRUE(step_two.guards().empty());
  OpRun symbolic_step =
      views_on_x(x, "aten.slice.Tensor", {I(1), I(0), I(16), E("k")}, {Dim("k", 4)});
  ASSERT_TRUE(symbolic_step.ok()) << symbolic_step.error();
  EXPECT_EQ(symbolic_step.str(), "float32[batch, 15//k + 1]");
  EXPECT_EQ(strides_str(symbolic_step.value()), "[16, k]");
  EXPECT_TRUE(symbolic_step.guards().empty());
}

TEST(Slice, StartOfUnknownSignIsGuarded) {
  // k ranges over [2, 10], so k - 5 may have either sign: decided on the hint.
  OpRun r = views_on_x({"16"}, "aten.slice.Tensor", {I(0), E("k - 5")}, {Dim("k", 8, 2, 10)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(joined(r.guards()), "k - 5 >= 0");
  EXPECT_EQ(r.str(), "float32[-k + 21]");
  OpRun negative =
      views_on_x({"16"}, "aten.slice.Tensor", {I(0), E("k - 5")}, {Dim("k", 3, 2, 10)});
  ASSERT_TRUE(negative.ok()) << negative.error();
  EXPECT_EQ(joined(negative.guards()), "k - 5 < 0");
  EXPECT_EQ(negative.str(), "float32[-k + 5]");
  EXPECT_EQ(views_on_x({}, "aten.slice.Tensor", {}).result.status, Propagation::Status::InputError);
}

TEST(Narrow, BoundsAndNegativeStart) {
  const std::vector<std::string> x = {"batch", "16"};
  OpRun r = views_on_x(x, "aten.narrow.default", {I(1), I(2), I(4)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, 4]");
  EXPECT_EQ(strides_str(r.value()), "[16, 1]");
  EXPECT_EQ(views_on_x(x, "aten.narrow.default", {I(1), I(-4), I(4)}).str(), "float32[batch, 4]");
  OpRun past = views_on_x(x, "aten.narrow.default", {I(1), I(14), I(4)});
  EXPECT_EQ(past.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(past.error(), "exceeds"));
  OpRun symbolic = views_on_x(x, "aten.narrow.default", {I(0), I(1), E("batch - 1")});
  ASSERT_TRUE(symbolic.ok()) << symbolic.error();
  EXPECT_EQ(symbolic.str(), "float32[batch - 1, 16]");
  EXPECT_TRUE(symbolic.guards().empty());
  EXPECT_EQ(views_on_x({}, "aten.narrow.default", {I(0), I(0), I(1)}).result.status,
            Propagation::Status::InputError);
  EXPECT_EQ(views_on_x(x, "aten.narrow.default", {I(1), I(0), I(-1)}).result.status,
            Propagation::Status::InputError);
}

TEST(Select, NegativeIndexAndOutOfRange) {
  OpRun r = views_on_x({"batch", "16"}, "aten.select.int", {I(1), I(-1)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch]");
  EXPECT_EQ(strides_str(r.value()), "[16]");
  OpRun symbolic = views_on_x({"batch", "16"}, "aten.select.int", {I(0), I(-1)});
  EXPECT_EQ(symbolic.str(), "float32[16]");
  EXPECT_TRUE(symbolic.guards().empty());
  OpRun past = views_on_x({"batch", "16"}, "aten.select.int", {I(1), I(16)});
  EXPECT_FALSE(past.ok());
  EXPECT_TRUE(Contains(past.error(), "index 16 is out of range for dim 1 of size 16"));
  EXPECT_FALSE(views_on_x({"batch", "16"}, "aten.select.int", {I(1), I(-17)}).ok());
  EXPECT_EQ(views_on_x({}, "aten.select.int", {I(0), I(0)}).result.status,
            Propagation::Status::InputError);
}

// ---- split / chunk / unbind ----

TEST(Split, ConcreteLastPieceIsShorter) {
  OpRun r = views_on_x({"10", "4"}, "aten.split.Tensor", {I(3)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(item_shapes(r), "[3, 4] [3, 4] [3, 4] [1, 4]");
  EXPECT_EQ(item_shapes(views_on_x({"4", "10"}, "aten.split.Tensor", {I(5), I(-1)})),
            "[4, 5] [4, 5]");
  EXPECT_EQ(item_shapes(views_on_x({"0", "4"}, "aten.split.Tensor", {I(3)})), "[0, 4]");
}

TEST(Split, SymbolicSizeGuardsTheCount) {
  OpRun r = views_on_x({"batch", "4"}, "aten.split.Tensor", {I(3)}, {Dim("batch", 8)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(item_shapes(r), "[3, 4] [3, 4] [batch - 6, 4]");
  EXPECT_EQ(r.guards().size(), 1u);
}

TEST(Split, BadSplitSizes) {
  EXPECT_EQ(views_on_x({"10"}, "aten.split.Tensor", {I(-1)}).result.status,
            Propagation::Status::InputError);
  EXPECT_EQ(views_on_x({}, "aten.split.Tensor", {I(1)}).result.status,
            Propagation::Status::InputError);
}

TEST(SplitWithSizes, SymbolicSizesAddUp) {
  OpRun r =
      views_on_x({"batch", "4"}, "aten.split_with_sizes.default", {List({I(2), E("batch - 2")})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(item_shapes(r), "[2, 4] [batch - 2, 4]");
  EXPECT_TRUE(r.guards().empty());
  OpRun dim1 = views_on_x({"batch", "10"}, "aten.split.sizes", {Ints({3, 7}), I(1)});
  ASSERT_TRUE(dim1.ok()) << dim1.error();
  EXPECT_EQ(item_shapes(dim1), "[batch, 3] [batch, 7]");
  OpRun bad = views_on_x({"batch", "10"}, "aten.split_with_sizes.default", {Ints({3, 4}), I(1)});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(bad.error(), "split sizes [3, 4] do not add up to dim 1 of size 10"));
  OpRun negative = views_on_x({"10"}, "aten.split_with_sizes.default", {Ints({12, -2})});
  EXPECT_EQ(negative.result.status, Propagation::Status::InputError);
  EXPECT_EQ(views_on_x({}, "aten.split_with_sizes.default", {Ints({1})}).result.status,
            Propagation::Status::InputError);
}

TEST(Chunk, ConcreteAndEmptyDims) {
  EXPECT_EQ(item_shapes(views_on_x({"10", "4"}, "aten.chunk.default", {I(3)})),
            "[4, 4] [4, 4] [2, 4]");
  EXPECT_EQ(item_shapes(views_on_x({"4", "6"}, "aten.chunk.default", {I(4), I(1)})),
            "[4, 2] [4, 2] [4, 2]");
  // An empty dim still gives `chunks` pieces, as PyTorch does.
  EXPECT_EQ(item_shapes(views_on_x({"0", "4"}, "aten.chunk.default", {I(3)})),
            "[0, 4] [0, 4] [0, 4]");
  EXPECT_EQ(views_on_x({"10"}, "aten.chunk.default", {I(0)}).result.status,
            Propagation::Status::InputError);
}

TEST(Chunk, SymbolicSizeGuardsTheCount) {
  OpRun r = views_on_x({"batch", "4"}, "aten.chunk.default", {I(2)}, {Dim("batch", 8)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().items.size(), 2u);
  EXPECT_EQ(item_shapes(r), "[(batch + 1)//2, 4] [batch - (batch + 1)//2, 4]");
}

TEST(Unbind, ConcreteAndSymbolicCounts) {
  OpRun r = views_on_x({"3", "batch"}, "aten.unbind.int", {});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(item_shapes(r), "[batch] [batch] [batch]");
  EXPECT_TRUE(r.guards().empty());
  OpRun symbolic = views_on_x({"3", "batch"}, "aten.unbind.int", {I(-1)}, {Dim("batch", 4)});
  ASSERT_TRUE(symbolic.ok()) << symbolic.error();
  EXPECT_EQ(item_shapes(symbolic), "[3] [3] [3] [3]");
  EXPECT_EQ(joined(symbolic.guards()), "batch == 4");
}

// ---- cat / stack ----

TEST(Cat, SumsTheCatDimAndPromotesDtypes) {
  OpRun r = run_op({tensor("x", {"batch", "4"}, DType::Float16), tensor("y", {"batch", "5"})},
                   "aten.cat.default", {List({T("x"), T("y")}), I(-1)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, 9]");
  OpRun symbolic =
      run_op({tensor("x", {"a", "4"}, DType::Int32), tensor("y", {"b", "4"}, DType::Int64)},
             "aten.cat.default", {List({T("x"), T("y")})});
  ASSERT_TRUE(symbolic.ok()) << symbolic.error();
  EXPECT_EQ(symbolic.str(), "int64[a + b, 4]");
  EXPECT_TRUE(symbolic.guards().empty());
}

TEST(Cat, OtherDimsMustMatch) {
  OpRun guarded = run_op({tensor("x", {"a", "4"}), tensor("y", {"b", "4"})}, "aten.cat.default",
                         {List({T("x"), T("y")}), I(1)});
  ASSERT_TRUE(guarded.ok()) << guarded.error();
  EXPECT_EQ(joined(guarded.guards()), "a == b");
  EXPECT_EQ(guarded.str(), "float32[a, 8]");
  OpRun bad = run_op({tensor("x", {"s0", "4"}), tensor("y", {"s0", "5"})}, "aten.cat.default",
                     {List({T("x"), T("y")})});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_EQ(bad.error(),
            "node op (aten.cat.default): Sizes of tensors must match except in dimension 0: "
            "expected size 4 but got size 5 for tensor number 1 in the list ([s0, 4] and [s0, 5])");
  OpRun rank = run_op({tensor("x", {"2", "4"}), tensor("y", {"4"})}, "aten.cat.default",
                      {List({T("x"), T("y")})});
  EXPECT_EQ(rank.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(rank.error(), "tensor 1 has rank 1 but tensor 0 has rank 2"));
}

TEST(Cat, LegacyEmptyOneDimTensorsAreSkippedButStillPromote) {
  OpRun r = run_op({tensor("x", {"batch", "4"}), tensor("e", {"0"}, DType::Float64)},
                   "aten.cat.default", {List({T("x"), T("e")}), I(1)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float64[batch, 4]");
  OpRun all_empty = run_op({tensor("e", {"0"}), tensor("f", {"0"})}, "aten.cat.default",
                           {List({T("e"), T("f")})});
  EXPECT_EQ(all_empty.str(), "float32[0]");
}

TEST(Cat, BadInputs) {
  EXPECT_EQ(run_op({}, "aten.cat.default", {List({})}).result.status,
            Propagation::Status::InputError);
  OpRun scalars =
      run_op({tensor("x", {}), tensor("y", {})}, "aten.cat.default", {List({T("x"), T("y")})});
  EXPECT_EQ(scalars.result.status, Propagation::Status::InputError);
  OpRun dim = run_op({tensor("x", {"2"})}, "aten.cat.default", {List({T("x")}), I(1)});
  EXPECT_EQ(dim.result.status, Propagation::Status::InputError);
}

TEST(Stack, InsertsTheCountAtDim) {
  std::vector<Input> in = {tensor("x", {"a", "4"}), tensor("y", {"a", "4"}),
                           tensor("z", {"a", "4"})};
  EXPECT_EQ(run_op(in, "aten.stack.default", {List({T("x"), T("y"), T("z")}), I(1)}).str(),
            "float32[a, 3, 4]");
  EXPECT_EQ(run_op(in, "aten.stack.default", {List({T("x"), T("y")}), I(-1)}).str(),
            "float32[a, 4, 2]");
  EXPECT_EQ(run_op(in, "aten.stack.default", {List({T("x")})}).str(), "float32[1, a, 4]");
  OpRun bad = run_op({tensor("x", {"a", "4"}), tensor("y", {"a", "5"})}, "aten.stack.default",
                     {List({T("x"), T("y")})});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(bad.error(), "stack: sizes [a, 4] and [a, 5] differ"));
  EXPECT_EQ(
      run_op({tensor("x", {"2"})}, "aten.stack.default", {List({T("x")}), I(3)}).result.status,
      Propagation::Status::InputError);
}

// ---- repeat / tile / roll / flip / padding ----

TEST(Repeat, LeadingRepeatsAddDims) {
  EXPECT_EQ(views_on_x({"a", "3"}, "aten.repeat.default", {Ints({2, 1, 2})}).str(),
            "float32[2, a, 6]");
  EXPECT_EQ(
      views_on_x({"a", "3"}, "aten.repeat.default", {List({E("b"), I(1)})}, {Dim("b", 3)}).str(),
      "float32[a*b, 3]");
  OpRun fewer = views_on_x({"a", "3"}, "aten.repeat.default", {Ints({2})});
  EXPECT_EQ(fewer.result.status, Propagation::Status::InputError);
  EXPECT_EQ(views_on_x({"3"}, "aten.repeat.default", {Ints({-1})}).result.status,
            Propagation::Status::InputError);
}

TEST(Tile, PadsRepeatsWithOnes) {
  EXPECT_EQ(views_on_x({"a", "3"}, "aten.tile.default", {Ints({2})}).str(), "float32[a, 6]");
  EXPECT_EQ(views_on_x({"a", "3"}, "aten.tile.default", {Ints({2, 1, 1})}).str(),
            "float32[2, a, 3]");
}

TEST(RollFlip, KeepTheShape) {
  OpRun roll = views_on_x({"a", "3"}, "aten.roll.default", {Ints({1}), Ints({0})});
  EXPECT_EQ(roll.str(), "float32[a, 3]");
  EXPECT_EQ(views_on_x({"a", "3"}, "aten.flip.default", {Ints({0, -1})}).str(), "float32[a, 3]");
  EXPECT_EQ(views_on_x({"a", "3"}, "aten.flip.default", {Ints({2})}).result.status,
            Propagation::Status::InputError);
}

TEST(ConstantPadNd, PositiveAndNegativePadding) {
  EXPECT_EQ(views_on_x({"a", "8"}, "aten.constant_pad_nd.default", {Ints({1, 2})}).str(),
            "float32[a, 11]");
  EXPECT_EQ(views_on_x({"a", "8"}, "aten.constant_pad_nd.default", {Ints({-1, -1, 2, 0})}).str(),
            "float32[a + 2, 6]");
  OpRun symbolic = views_on_x({"a", "8"}, "aten.constant_pad_nd.default", {Ints({0, 0, -1, -1})});
  EXPECT_EQ(symbolic.str(), "float32[a - 2, 8]");
  EXPECT_TRUE(symbolic.guards().empty());
  OpRun negative = views_on_x({"a", "8"}, "aten.constant_pad_nd.default", {Ints({-5, -4})});
  EXPECT_EQ(negative.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(negative.error(), "negative"));
  EXPECT_EQ(views_on_x({"a", "8"}, "aten.constant_pad_nd.default", {Ints({1, 2, 3})}).result.status,
            Propagation::Status::InputError);
  EXPECT_EQ(views_on_x({"8"}, "aten.constant_pad_nd.default", {Ints({1, 2, 3, 4})}).result.status,
            Propagation::Status::InputError);
}

// ---- pixel shuffle ----

TEST(PixelShuffle, MovesChannelsIntoSpace) {
  EXPECT_EQ(views_on_x({"n", "8", "h", "w"}, "aten.pixel_shuffle.default", {I(2)}).str(),
            "float32[n, 2, 2*h, 2*w]");
  OpRun symbolic =
      views_on_x({"n", "c", "h", "w"}, "aten.pixel_shuffle.default", {I(2)}, {Dim("c", 8)});
  ASSERT_TRUE(symbolic.ok()) << symbolic.error();
  EXPECT_EQ(symbolic.str(), "float32[n, c//4, 2*h, 2*w]");
  EXPECT_EQ(joined(symbolic.guards()), "c % 4 == 0");
  OpRun bad = views_on_x({"1", "6", "4", "4"}, "aten.pixel_shuffle.default", {I(2)});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_EQ(views_on_x({"4", "4"}, "aten.pixel_shuffle.default", {I(2)}).result.status,
            Propagation::Status::InputError);
  EXPECT_EQ(views_on_x({"1", "4", "4", "4"}, "aten.pixel_shuffle.default", {I(0)}).result.status,
            Propagation::Status::InputError);
}

TEST(PixelUnshuffle, MovesSpaceIntoChannels) {
  EXPECT_EQ(views_on_x({"n", "2", "4", "6"}, "aten.pixel_unshuffle.default", {I(2)}).str(),
            "float32[n, 8, 2, 3]");
  OpRun bad = views_on_x({"1", "1", "3", "4"}, "aten.pixel_unshuffle.default", {I(2)});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
}

// ---- as_strided / view.dtype ----

TEST(AsStrided, TakesSizesAndStrides) {
  OpRun r = views_on_x({"4", "4"}, "aten.as_strided.default", {Ints({2, 2}), Ints({1, 2})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[2, 2]");
  EXPECT_EQ(strides_str(r.value()), "[1, 2]");
  EXPECT_EQ(views_on_x({"4"}, "aten.as_strided.default", {Ints({2, 2}), Ints({1})}).result.status,
            Propagation::Status::InputError);
  EXPECT_EQ(views_on_x({"4"}, "aten.as_strided.default", {Ints({-2}), Ints({1})}).result.status,
            Propagation::Status::InputError);
}

TEST(ViewDtype, ScalesTheLastDim) {
  EXPECT_EQ(views_on_x({"a", "8"}, "aten.view.dtype", {D(DType::Float16)}).str(), "float16[a, 16]");
  EXPECT_EQ(views_on_x({"a", "8"}, "aten.view.dtype", {D(DType::Int64)}).str(), "int64[a, 4]");
  EXPECT_EQ(views_on_x({"a", "8"}, "aten.view.dtype", {D(DType::Int32)}).str(), "int32[a, 8]");
  OpRun symbolic = views_on_x({"a", "b"}, "aten.view.dtype", {D(DType::Complex64)}, {Dim("b", 8)});
  ASSERT_TRUE(symbolic.ok()) << symbolic.error();
  EXPECT_EQ(symbolic.str(), "complex64[a, b//2]");
  EXPECT_EQ(joined(symbolic.guards()), "b % 2 == 0");
  EXPECT_EQ(views_on_x({"a", "3"}, "aten.view.dtype", {D(DType::Float64)}).result.status,
            Propagation::Status::ShapeError);
  EXPECT_FALSE(views_on_x({}, "aten.view.dtype", {D(DType::Float64)}).ok());
}

TEST(ViewDtype, SameItemSizeKeepsStrides) {
  OpRun r = run_ops(
      {tensor("x", {"a", "b"})},
      {{"t", "aten.t.default", {T("x")}}, {"v", "aten.view.dtype", {T("t"), D(DType::Int32)}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "int32[b, a]");
  EXPECT_EQ(strides_str(r.value()), "[1, b]");
}

}  // namespace
}  // namespace symshape::testing
