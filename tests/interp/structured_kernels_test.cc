// Kernel tests and property-test cases: structured ops (tril / triu, diagonals, unfold,
// as_strided_scatter, one_hot, bucketize / searchsorted, cdist). Expected values are derived by
// hand or are PyTorch's documented examples.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/interp/kernel_call.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {

namespace {

using Sizes = std::vector<int64_t>;

// ---- tril / triu ----

TEST(TriangleKernel, KeepsTheElementsOnAndBelowOrAboveTheDiagonal) {
  Tensor x = iota({3, 3});  // [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
  EXPECT_EQ(ints_of(on_x(x, "aten.tril.default", {})), (Sizes{0, 0, 0, 3, 4, 0, 6, 7, 8}));
  EXPECT_EQ(ints_of(on_x(x, "aten.tril.default", {I(-1)})), (Sizes{0, 0, 0, 3, 0, 0, 6, 7, 0}));
  EXPECT_EQ(ints_of(on_x(x, "aten.triu.default", {I(1)})), (Sizes{0, 1, 2, 0, 0, 5, 0, 0, 0}));
  // A batch of 2x3 matrices: each is masked alone.
  Tensor b = iota({2, 2, 3});
  EXPECT_EQ(ints_of(on_x(b, "aten.triu.default", {})),
            (Sizes{0, 1, 2, 0, 4, 5, 6, 7, 8, 0, 10, 11}));
  // Huge diagonals keep everything or nothing.
  EXPECT_EQ(ints_of(on_x(x, "aten.tril.default", {I(100)})), ints_of(x));
  EXPECT_EQ(ints_of(on_x(x, "aten.triu.default", {I(100)})), (Sizes(9, 0)));
  EXPECT_TRUE(Contains(error_on_x(iota({3}), "aten.tril.default", {}),
                       "tril: input tensor must have at least 2 dimensions"));
}

// ---- diagonals ----

TEST(DiagonalKernel, IsAViewOfTheDiagonalAtAnOffset) {
  Tensor x = iota({3, 4});
  Tensor d = on_x(x, "aten.diagonal.default", {I(1)});  // (0,1), (1,2), (2,3)
  EXPECT_EQ(ints_of(d), (Sizes{1, 6, 11}));
  EXPECT_EQ(d.strides(), (Sizes{5}));
  EXPECT_TRUE(d.shares_storage(x));
  EXPECT_EQ(ints_of(on_x(x, "aten.diagonal.default", {I(-1)})), (Sizes{4, 9}));
  EXPECT_EQ(on_x(x, "aten.diagonal.default", {I(5)}).sizes(), (Sizes{0}));
  EXPECT_EQ(on_x(x, "aten.diagonal.default", {I(-7)}).sizes(), (Sizes{0}));
  // The other dims come first: x[b, i, i] of a [2, 3, 4].
  Tensor y = iota({2, 3, 4});
  Tensor e = on_x(y, "aten.diagonal.default", {I(0), I(1), I(2)});
  EXPECT_EQ(e.sizes(), (Sizes{2, 3}));
  EXPECT_EQ(ints_of(e), (Sizes{0, 5, 10, 12, 17, 22}));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.diagonal.default", {I(0), I(1), I(-1)}),
                       "diagonal dimensions cannot be identical"));
}

TEST(DiagKernel, BuildsAMatrixFromAVectorAndReadsAMatrixsDiagonal) {
  Tensor v = int_tensor({3}, {1, 2, 3});
  Tensor m = on_x(v, "aten.diag.default", {I(1)});
  EXPECT_EQ(m.sizes(), (Sizes{4, 4}));
  EXPECT_EQ(ints_of(m), (Sizes{0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0}));
  EXPECT_EQ(ints_of(on_x(v, "aten.diag.default", {I(-1)})),
            (Sizes{0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0}));
  Tensor x = iota({3, 3});
  EXPECT_EQ(ints_of(on_x(x, "aten.diag.default", {})), (Sizes{0, 4, 8}));
  EXPECT_EQ(ints_of(on_x(x, "aten.diag.default", {I(-1)})), (Sizes{3, 7}));
  EXPECT_TRUE(Contains(error_on_x(iota({2, 2, 2}), "aten.diag.default", {}), "supports 1D or 2D"));
}

TEST(DiagEmbedKernel, PutsTheLastDimOnTheDiagonalOfNewDims) {
  Tensor x = int_tensor({2, 2}, {1, 2, 3, 4});
  Tensor e = on_x(x, "aten.diag_embed.default", {});
  EXPECT_EQ(e.sizes(), (Sizes{2, 2, 2}));
  EXPECT_EQ(ints_of(e), (Sizes{1, 0, 0, 2, 3, 0, 0, 4}));
  Tensor f = on_x(int_tensor({2}, {1, 2}), "aten.diag_embed.default", {I(1)});
  EXPECT_EQ(ints_of(f), (Sizes{0, 1, 0, 0, 0, 2, 0, 0, 0}));
  // dim1 = 0, dim2 = 2: out[i, b, j] holds x[b, i] when j == i.
  Tensor g = on_x(x, "aten.diag_embed.default", {I(0), I(0), I(2)});
  EXPECT_EQ(ints_of(g), (Sizes{1, 0, 3, 0, 0, 2, 0, 4}));
}

TEST(DiagonalScatterKernel, ReplacesTheDiagonalOfACopy) {
  Tensor x = Tensor::zeros(DType::Int64, {2, 3});
  Tensor s = int_tensor({2}, {5, 6});
  Tensor out =
      call_tensor("aten.diagonal_scatter.default", {{"x", x}, {"s", s}}, {T("x"), T("s"), I(1)});
  EXPECT_EQ(ints_of(out), (Sizes{0, 5, 0, 0, 0, 6}));
  EXPECT_EQ(ints_of(x), (Sizes(6, 0)));  // self is not changed
  std::string error = run_error([&] {
    call_tensor("aten.diagonal_scatter.default", {{"x", x}, {"s", int_tensor({3}, {1, 2, 3})}},
                {T("x"), T("s"), I(1)});
  });
  EXPECT_TRUE(Contains(error, "must have the shape of the view [2]"));
}

// ---- unfold and as_strided_scatter ----

TEST(UnfoldKernel, WindowsOfSizeEveryStepAsANewLastDim) {
  // PyTorch's documented example, shifted to start at 0: arange(7).unfold(0, 2, 2).
  Tensor x = iota({7});
  Tensor u = on_x(x, "aten.unfold.default", {I(0), I(2), I(2)});
  EXPECT_EQ(u.sizes(), (Sizes{3, 2}));
  EXPECT_EQ(ints_of(u), (Sizes{0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(u.shares_storage(x));
  EXPECT_EQ(on_x(x, "aten.unfold.default", {I(0), I(2), I(1)}).sizes(), (Sizes{6, 2}));
  Tensor y = iota({2, 5});
  Tensor w = on_x(y, "aten.unfold.default", {I(1), I(3), I(2)});
  EXPECT_EQ(w.sizes(), (Sizes{2, 2, 3}));
  EXPECT_EQ(ints_of(w), (Sizes{0, 1, 2, 2, 3, 4, 5, 6, 7, 7, 8, 9}));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.unfold.default", {I(0), I(8), I(1)}),
                       "maximum size for tensor at dimension 0 is 7 but size is 8"));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.unfold.default", {I(0), I(2), I(0)}),
                       "step is 0 but must be > 0"));
}

TEST(AsStridedScatterKernel, WritesSrcThroughTheStridedViewOfACopy) {
  Tensor x = iota({2, 3});
  Tensor s = int_tensor({2, 2}, {10, 20, 30, 40});
  // The view's (i, j) is element 1 + i + 2j of the copy.
  Tensor out = call_tensor("aten.as_strided_scatter.default", {{"x", x}, {"s", s}},
                           {T("x"), T("s"), Ints({2, 2}), Ints({1, 2}), I(1)});
  EXPECT_EQ(out.sizes(), (Sizes{2, 3}));
  EXPECT_EQ(ints_of(out), (Sizes{0, 10, 30, 20, 40, 5}));
  std::string error = run_error([&] {
    call_tensor("aten.as_strided_scatter.default", {{"x", x}, {"s", s}},
                {T("x"), T("s"), Ints({2, 2}), Ints({3, 3})});
  });
  EXPECT_TRUE(Contains(error, "out of bounds"));
}

// ---- one_hot ----

TEST(OneHotKernel, PyTorchsDocumentedExamples) {
  // F.one_hot(torch.arange(0, 5) % 3)
  Tensor x = int_tensor({5}, {0, 1, 2, 0, 1});
  Tensor h = on_x(x, "aten.one_hot.default", {});
  EXPECT_EQ(h.sizes(), (Sizes{5, 3}));
  EXPECT_EQ(ints_of(h), (Sizes{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0}));
  Tensor five = on_x(x, "aten.one_hot.default", {I(5)});
  EXPECT_EQ(five.sizes(), (Sizes{5, 5}));
  EXPECT_EQ(ints_of(five)[5 + 1], 1);
  EXPECT_TRUE(Contains(error_on_x(x, "aten.one_hot.default", {I(2)}), "smaller than num_classes"));
  EXPECT_TRUE(Contains(error_on_x(Tensor::zeros(DType::Int64, {0}), "aten.one_hot.default", {}),
                       "cannot infer the number of classes"));
  EXPECT_TRUE(
      Contains(error_on_x(real_tensor({1}, {0.0}), "aten.one_hot.default", {I(2)}), "type int64"));
}

// ---- bucketize / searchsorted (PyTorch's documented examples) ----

TEST(SearchKernel, BucketizeFindsTheBucketOfEachValue) {
  Tensor boundaries = int_tensor({5}, {1, 3, 5, 7, 9});
  Tensor v = int_tensor({2, 3}, {3, 6, 9, 3, 6, 9});
  auto bucketize = [&](bool right) {
    return call_tensor("aten.bucketize.Tensor", {{"v", v}, {"b", boundaries}}, {T("v"), T("b")},
                       {{"right", B(right)}});
  };
  EXPECT_EQ(ints_of(bucketize(false)), (Sizes{1, 3, 4, 1, 3, 4}));
  EXPECT_EQ(ints_of(bucketize(true)), (Sizes{2, 3, 5, 2, 3, 5}));
  Tensor i32 = call_tensor("aten.bucketize.Tensor", {{"v", v}, {"b", boundaries}}, {T("v"), T("b")},
                           {{"out_int32", B(true)}});
  EXPECT_EQ(i32.dtype(), DType::Int32);
  Tensor one = call_tensor("aten.bucketize.Scalar", {{"b", boundaries}}, {I(6), T("b")});
  EXPECT_EQ(one.rank(), 0u);
  EXPECT_EQ(ints_of(one), (Sizes{3}));
}

TEST(SearchKernel, SearchsortedPerRowOrOneSequenceWithSideAndSorter) {
  Tensor seq = int_tensor({2, 5}, {1, 3, 5, 7, 9, 2, 4, 6, 8, 10});
  Tensor v = int_tensor({2, 3}, {3, 6, 9, 3, 6, 9});
  auto search = [&](const Tensor& s, Kwargs kwargs) {
    return ints_of(call_tensor("aten.searchsorted.Tensor", {{"s", s}, {"v", v}}, {T("s"), T("v")},
                               std::move(kwargs)));
  };
  EXPECT_EQ(search(seq, {}), (Sizes{1, 3, 4, 1, 2, 4}));
  EXPECT_EQ(search(seq, {{"right", B(true)}}), (Sizes{2, 3, 5, 1, 3, 4}));
  EXPECT_EQ(search(seq, {{"side", S("right")}}), (Sizes{2, 3, 5, 1, 3, 4}));
  Tensor seq1 = int_tensor({5}, {1, 3, 5, 7, 9});
  EXPECT_EQ(search(seq1, {}), (Sizes{1, 3, 4, 1, 3, 4}));
  // An unsorted sequence with the permutation that sorts it.
  Tensor unsorted = int_tensor({5}, {1, 9, 3, 7, 5});
  Tensor sorter = int_tensor({5}, {0, 2, 4, 3, 1});
  Tensor with_sorter =
      call_tensor("aten.searchsorted.Tensor", {{"s", unsorted}, {"v", v}, {"o", sorter}},
                  {T("s"), T("v")}, {{"sorter", T("o")}});
  EXPECT_EQ(ints_of(with_sorter), (Sizes{1, 3, 4, 1, 3, 4}));
  std::string error = run_error([&] { search(seq, {{"right", B(true)}, {"side", S("left")}}); });
  EXPECT_TRUE(Contains(error, "side and right can't be set to opposites"));
  std::string rows = run_error([&] {
    search(int_tensor({3, 5}, std::vector<int64_t>(15, 0)), {});
  });
  EXPECT_TRUE(Contains(rows, "must be 1-d or have the leading dims of the input [2, 3]"));
}

// ---- cdist ----

TEST(CdistKernel, PNormDistancesBetweenRows) {
  Tensor a = real_tensor({2, 2}, {0, 0, 1, 1});
  Tensor b = real_tensor({2, 2}, {3, 4, 0, 1});
  auto cdist = [&](double p) {
    return reals_of(
        call_tensor("aten.cdist.default", {{"a", a}, {"b", b}}, {T("a"), T("b"), F(p)}));
  };
  auto near = [](const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  };
  near(cdist(2), {5, 1, std::sqrt(13.0), 1});
  near(cdist(1), {7, 1, 5, 1});
  near(cdist(0), {2, 1, 2, 1});
  near(cdist(INFINITY), {4, 1, 3, 1});
  near(cdist(3), {std::cbrt(91.0), 1, std::cbrt(35.0), 1});
  // Batch dims broadcast: [2, 1, 2] against [2, 2] gives [2, 1, 2].
  Tensor batched =
      call_tensor("aten.cdist.default", {{"a", real_tensor({2, 1, 2}, {0, 0, 1, 1})}, {"b", b}},
                  {T("a"), T("b")});
  EXPECT_EQ(batched.sizes(), (Sizes{2, 1, 2}));
  near(reals_of(batched), {5, 1, std::sqrt(13.0), 1});
  std::string error = run_error([&] {
    call_tensor("aten.cdist.default", {{"a", a}, {"b", real_tensor({1, 3}, {0, 0, 0})}},
                {T("a"), T("b")});
  });
  EXPECT_TRUE(Contains(error, "must have the same number of columns"));
  std::string ints = run_error([&] {
    call_tensor("aten.cdist.default", {{"a", iota({2, 2})}, {"b", b}}, {T("a"), T("b")});
  });
  EXPECT_TRUE(Contains(ints, "floating-point"));
}

// ---- reflection / replication / circular padding (PyTorch's documented examples) ----

TEST(PadKernel, Reflection1dMirrorsWithoutRepeatingTheEdge) {
  Tensor x = iota({1, 2, 4});
  EXPECT_EQ(ints_of(on_x(x, "aten.reflection_pad1d.default", {Ints({2, 2})})),
            (Sizes{2, 1, 0, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 7, 6, 5}));
  EXPECT_EQ(ints_of(on_x(x, "aten.reflection_pad1d.default", {Ints({3, 1})})),
            (Sizes{3, 2, 1, 0, 1, 2, 3, 2, 7, 6, 5, 4, 5, 6, 7, 6}));
  // A negative pad crops.
  EXPECT_EQ(ints_of(on_x(iota({1, 4}), "aten.reflection_pad1d.default", {Ints({-1, 1})})),
            (Sizes{1, 2, 3, 2}));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.reflection_pad1d.default", {Ints({4, 0})}),
                       "padding size should be less than the corresponding input dimension"));
  EXPECT_TRUE(Contains(error_on_x(iota({4}), "aten.reflection_pad1d.default", {Ints({1, 1})}),
                       "expected a 2D or 3D (batch mode) input"));
}

TEST(PadKernel, Reflection2dPyTorchsExample) {
  Tensor x = iota({1, 1, 3, 3});
  Tensor out = on_x(x, "aten.reflection_pad2d.default", {Ints({2, 2, 2, 2})});
  EXPECT_EQ(out.sizes(), (Sizes{1, 1, 7, 7}));
  EXPECT_EQ(ints_of(out),
            (Sizes{8, 7, 6, 7, 8, 7, 6, 5, 4, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2, 1, 0, 5, 4, 3, 4,
                   5, 4, 3, 8, 7, 6, 7, 8, 7, 6, 5, 4, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2, 1, 0}));
}

TEST(PadKernel, ReplicationRepeatsTheEdge) {
  Tensor x = iota({1, 2, 4});
  EXPECT_EQ(ints_of(on_x(x, "aten.replication_pad1d.default", {Ints({2, 2})})),
            (Sizes{0, 0, 0, 1, 2, 3, 3, 3, 4, 4, 4, 5, 6, 7, 7, 7}));
  // ReplicationPad2d((1, 1, 2, 0)) of arange(9).reshape(1, 1, 3, 3).
  Tensor y = on_x(iota({1, 1, 3, 3}), "aten.replication_pad2d.default", {Ints({1, 1, 2, 0})});
  EXPECT_EQ(y.sizes(), (Sizes{1, 1, 5, 5}));
  EXPECT_EQ(ints_of(y),
            (Sizes{0, 0, 1, 2, 2, 0, 0, 1, 2, 2, 0, 0, 1, 2, 2, 3, 3, 4, 5, 5, 6, 6, 7, 8, 8}));
  Tensor z =
      on_x(iota({1, 1, 1, 1, 2}), "aten.replication_pad3d.default", {Ints({1, 0, 0, 0, 0, 1})});
  EXPECT_EQ(z.sizes(), (Sizes{1, 1, 2, 1, 3}));
  EXPECT_EQ(ints_of(z), (Sizes{0, 0, 1, 0, 0, 1}));
  EXPECT_TRUE(
      Contains(error_on_x(x, "aten.replication_pad1d.default", {Ints({-2, -2})}), "too small"));
  EXPECT_TRUE(
      Contains(error_on_x(iota({1, 0, 4}), "aten.replication_pad1d.default", {Ints({1, 1})}),
               "other non-zero dimensions"));
}

TEST(PadKernel, CircularWrapsAroundOnce) {
  Tensor x = iota({1, 2, 4});
  EXPECT_EQ(ints_of(on_x(x, "aten._pad_circular.default", {Ints({1, 2})})),
            (Sizes{3, 0, 1, 2, 3, 0, 1, 7, 4, 5, 6, 7, 4, 5}));
  EXPECT_EQ(ints_of(on_x(x, "aten.pad.default", {Ints({1, 2}), S("circular")})),
            (Sizes{3, 0, 1, 2, 3, 0, 1, 7, 4, 5, 6, 7, 4, 5}));
  EXPECT_TRUE(Contains(error_on_x(x, "aten._pad_circular.default", {Ints({5, 0})}),
                       "wrapping around more than once"));
}

TEST(PadKernel, PadDispatchesOnTheMode) {
  Tensor x = iota({1, 2, 4});
  EXPECT_EQ(ints_of(on_x(x, "aten.pad.default", {Ints({2, 2}), S("reflect")})),
            (Sizes{2, 1, 0, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 7, 6, 5}));
  EXPECT_EQ(ints_of(on_x(x, "aten.pad.default", {Ints({2, 2}), S("replicate")})),
            (Sizes{0, 0, 0, 1, 2, 3, 3, 3, 4, 4, 4, 5, 6, 7, 7, 7}));
  EXPECT_EQ(ints_of(on_x(iota({2, 2}), "aten.pad.default", {Ints({1, 0}), S("constant"), F(9)})),
            (Sizes{9, 0, 1, 9, 2, 3}));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.pad.default", {Ints({1, 1}), S("reflect"), F(1)}),
                       "doesn't take in value argument"));
  EXPECT_TRUE(
      Contains(error_on_x(x, "aten.pad.default", {Ints({1, 1}), S("wrap")}), "padding mode"));
}

// ---- upsampling (PyTorch's documented examples, and values derived by hand) ----

TEST(UpsampleKernel, NearestRepeatsOrPicksTheFloorOfTheScaledIndex) {
  Tensor x = real_tensor({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor up = on_x(x, "aten.upsample_nearest2d.default", {Ints({4, 4})});
  EXPECT_EQ(reals_of(up), (std::vector<double>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  // Two to three: the index is floor(dst * 2/3).
  Tensor v = real_tensor({1, 1, 2}, {1, 2});
  EXPECT_EQ(reals_of(on_x(v, "aten.upsample_nearest1d.default", {Ints({3})})),
            (std::vector<double>{1, 1, 2}));
  // nearest-exact: floor((dst + 0.5) * 2/3): 0, 1, 1.
  EXPECT_EQ(reals_of(on_x(v, "aten._upsample_nearest_exact1d.default", {Ints({3})})),
            (std::vector<double>{1, 2, 2}));
  // Scale factors: floor(2 * 1.5) = 3 rows, 3 * 2 = 6 columns.
  Tensor s = on_x(iota({1, 1, 2, 3}, kF32), "aten.upsample_nearest2d.vec",
                  {None(), List({F(1.5), F(2.0)})});
  EXPECT_EQ(s.sizes(), (Sizes{1, 1, 3, 6}));
  EXPECT_EQ(reals_of(s),
            (std::vector<double>{0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}));
  EXPECT_TRUE(
      Contains(error_on_x(x, "aten.upsample_nearest2d.vec", {Ints({4, 4}), List({F(2.0), F(2.0)})}),
               "exactly one of output_size and scale_factors"));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.upsample_nearest2d.default", {Ints({0, 4})}),
                       "sizes should be greater than 0"));
}

void expect_all_near(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << i;
}

TEST(UpsampleKernel, BilinearPyTorchsDocumentedExamples) {
  Tensor x = real_tensor({1, 1, 2, 2}, {1, 2, 3, 4});
  expect_all_near(
      reals_of(on_x(x, "aten.upsample_bilinear2d.vec", {None(), B(false), List({F(2.0), F(2.0)})})),
      {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4}, 1e-6);
  const double t = 1.0 / 3, u = 2.0 / 3;
  expect_all_near(
      reals_of(on_x(x, "aten.upsample_bilinear2d.default", {Ints({4, 4}), B(true)})),
      {1, 1 + t, 1 + u, 2, 1 + u, 2, 2 + t, 2 + u, 2 + t, 2 + u, 3, 3 + t, 3, 3 + t, 3 + u, 4},
      1e-6);
}

TEST(UpsampleKernel, BicubicWeightsOfTheCubicConvolution) {
  // [0, 1] to four columns (the row is kept): source x = (dst + 0.5) / 2 - 0.5 and the weights
  // of A = -0.75 at t = 0.25 / 0.75, with indices clamped at the border.
  Tensor x = real_tensor({1, 1, 1, 2}, {0, 1});
  expect_all_near(reals_of(on_x(x, "aten.upsample_bicubic2d.default", {Ints({1, 4}), B(false)})),
                  {-0.10546875, 0.2265625, 0.7734375, 1.10546875}, 1e-6);
  // A constant stays constant; the same size is a copy.
  Tensor c = real_tensor({1, 1, 2, 2}, {5, 5, 5, 5});
  expect_all_near(reals_of(on_x(c, "aten.upsample_bicubic2d.default", {Ints({3, 5}), B(true)})),
                  std::vector<double>(15, 5), 1e-5);
  Tensor y = real_tensor({1, 1, 2, 2}, {1, 2, 3, 4});
  expect_all_near(reals_of(on_x(y, "aten.upsample_bicubic2d.default", {Ints({2, 2}), B(false)})),
                  {1, 2, 3, 4}, 0);
}

// ---- im2col / col2im (F.unfold / F.fold) ----

TEST(Im2colKernel, SlidingBlocksAsColumnsAndBackAsSums) {
  Tensor x = iota({1, 1, 3, 3}, kF32);
  Tensor cols =
      on_x(x, "aten.im2col.default", {Ints({2, 2}), Ints({1, 1}), Ints({0, 0}), Ints({1, 1})});
  EXPECT_EQ(cols.sizes(), (Sizes{1, 4, 4}));
  EXPECT_EQ(reals_of(cols), (std::vector<double>{0, 1, 3, 4, 1, 2, 4, 5, 3, 4, 6, 7, 4, 5, 7, 8}));
  // Folding back sums every block's copy: each element times the blocks that cover it.
  Tensor back =
      call_tensor("aten.col2im.default", {{"c", cols}},
                  {T("c"), Ints({3, 3}), Ints({2, 2}), Ints({1, 1}), Ints({0, 0}), Ints({1, 1})});
  EXPECT_EQ(back.sizes(), (Sizes{1, 1, 3, 3}));
  EXPECT_EQ(reals_of(back), (std::vector<double>{0, 2, 2, 6, 16, 10, 6, 14, 8}));
  // Padding reads zeros: one 3x3 block at (-1, -1) of a 2x2 image.
  Tensor padded = on_x(iota({1, 1, 2, 2}, kF32), "aten.im2col.default",
                       {Ints({3, 3}), Ints({1, 1}), Ints({1, 1}), Ints({2, 2})});
  EXPECT_EQ(padded.sizes(), (Sizes{1, 9, 1}));
  EXPECT_EQ(reals_of(padded), (std::vector<double>{0, 0, 0, 0, 0, 1, 0, 2, 3}));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.im2col.default",
                                  {Ints({4, 4}), Ints({1, 1}), Ints({0, 0}), Ints({1, 1})}),
                       "must be at least one"));
  std::string blocks = run_error([&] {
    call_tensor("aten.col2im.default", {{"c", cols}},
                {T("c"), Ints({4, 4}), Ints({2, 2}), Ints({1, 1}), Ints({0, 0}), Ints({1, 1})});
  });
  EXPECT_TRUE(Contains(blocks, "calculated number of sliding blocks 3 * 3"));
}

// ---- grid_sampler_2d ----

TEST(GridSamplerKernel, BilinearAndNearestWithZerosOrBorderPadding) {
  Tensor x = real_tensor({1, 1, 2, 2}, {1, 2, 3, 4});
  auto sample = [&](const Tensor& grid, long interpolation, long padding, bool align) {
    return reals_of(call_tensor("aten.grid_sampler_2d.default", {{"x", x}, {"g", grid}},
                                {T("x"), T("g"), I(interpolation), I(padding), B(align)}));
  };
  // The corners, with align_corners: the corner pixels' centers.
  Tensor corners = real_tensor({1, 2, 2, 2}, {-1, -1, 1, -1, -1, 1, 1, 1});
  expect_all_near(sample(corners, 0, 0, true), {1, 2, 3, 4}, 1e-6);
  // The center is the mean either way.
  Tensor center = real_tensor({1, 1, 1, 2}, {0, 0});
  expect_all_near(sample(center, 0, 0, true), {2.5}, 1e-6);
  expect_all_near(sample(center, 0, 0, false), {2.5}, 1e-6);
  // Without align_corners, (-1, -1) is the corner of the image, half a pixel outside the first
  // center: zeros padding weighs in three zeros, border padding clamps to the first pixel.
  Tensor corner = real_tensor({1, 1, 1, 2}, {-1, -1});
  expect_all_near(sample(corner, 0, 0, false), {0.25}, 1e-6);
  expect_all_near(sample(corner, 0, 1, false), {1}, 1e-6);
  // Nearest: x = 1.3 / 2 = 0.65 rounds to column 1, y = -1 is row 0.
  Tensor near = real_tensor({1, 1, 1, 2}, {0.3, -1});
  expect_all_near(sample(near, 1, 0, true), {2}, 0);
  std::string error = run_error([&] { sample(corner, 2, 0, true); });
  EXPECT_TRUE(Contains(error, "bicubic is not yet"));
}

// ---- _native_multi_head_attention ----

TEST(MultiHeadAttentionKernel, IdentityProjectionsByHand) {
  // D = 2, identity q/k/v and output projections, zero biases: softmax(x x^T / sqrt(dh)) x.
  Tensor x = real_tensor({1, 2, 2}, {1, 0, 0, 1});
  Tensor w = real_tensor({6, 2}, {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1});
  Tensor b = Tensor::zeros(kF32, {6});
  Tensor pw = real_tensor({2, 2}, {1, 0, 0, 1});
  Tensor pb = Tensor::zeros(kF32, {2});
  auto mha = [&](long heads, bool average) {
    return call_kernel("aten._native_multi_head_attention.default",
                       {{"x", x}, {"w", w}, {"b", b}, {"pw", pw}, {"pb", pb}},
                       {T("x"), T("x"), T("x"), I(2), I(heads), T("w"), T("b"), T("pw"), T("pb"),
                        None(), B(true), B(average)});
  };
  // One head: scores [[s, 0], [0, s]] with s = 1/sqrt(2); p = e^s / (e^s + 1).
  const double p = std::exp(1 / std::sqrt(2.0)) / (std::exp(1 / std::sqrt(2.0)) + 1);
  RValue one = mha(1, true);
  ASSERT_EQ(one.items.size(), 2u);
  expect_all_near(reals_of(one.items[0].tensor), {p, 1 - p, 1 - p, p}, 1e-6);
  EXPECT_EQ(one.items[1].tensor.sizes(), (Sizes{1, 2, 2}));
  expect_all_near(reals_of(one.items[1].tensor), {p, 1 - p, 1 - p, p}, 1e-6);
  // Two heads of one dim each (scale 1): q = e / (e + 1).
  const double e = std::exp(1.0) / (std::exp(1.0) + 1);
  RValue two = mha(2, false);
  expect_all_near(reals_of(two.items[0].tensor), {e, 0.5, 0.5, e}, 1e-6);
  EXPECT_EQ(two.items[1].tensor.sizes(), (Sizes{1, 2, 2, 2}));
  expect_all_near(reals_of(two.items[1].tensor), {e, 1 - e, 0.5, 0.5, 0.5, 0.5, 1 - e, e}, 1e-6);
  std::string error = run_error([&] { mha(3, true); });
  EXPECT_TRUE(Contains(error, "must divide evenly by num_head 3"));
}

// ---- _transformer_encoder_layer_fwd ----

TEST(TransformerEncoderLayerKernel, ZeroWeightsLeaveTheNormalizedInput) {
  // With every projection zero, attention and the feed-forward block add only their (zero)
  // biases, so the layer is two layer norms of src (post-norm) or src itself plus nothing
  // (pre-norm: src + 0 + 0).
  Tensor src = real_tensor({1, 2, 2}, {1, 3, 5, 9});
  std::vector<std::pair<std::string, Tensor>> inputs = {{"src", src},
                                                        {"w", Tensor::zeros(kF32, {6, 2})},
                                                        {"b", Tensor::zeros(kF32, {6})},
                                                        {"pw", Tensor::zeros(kF32, {2, 2})},
                                                        {"zero", Tensor::zeros(kF32, {2})},
                                                        {"one", real_tensor({2}, {1, 1})},
                                                        {"f1", Tensor::zeros(kF32, {3, 2})},
                                                        {"fb1", Tensor::zeros(kF32, {3})},
                                                        {"f2", Tensor::zeros(kF32, {2, 3})}};
  auto layer = [&](bool norm_first) {
    return call_tensor(
        "aten._transformer_encoder_layer_fwd.default", inputs,
        {T("src"), I(2), I(1), T("w"), T("b"), T("pw"), T("zero"), B(true), B(norm_first), F(1e-5),
         T("one"), T("zero"), T("one"), T("zero"), T("f1"), T("fb1"), T("f2"), T("zero")});
  };
  // Each row [a, b] normalizes to [-1, 1] (up to eps), twice.
  expect_all_near(reals_of(layer(false)), {-1, 1, -1, 1}, 1e-4);
  expect_all_near(reals_of(layer(true)), {1, 3, 5, 9}, 1e-6);
  EXPECT_EQ(layer(true).sizes(), (Sizes{1, 2, 2}));
}

// ---- property-test cases ----

}  // namespace

std::vector<OpCase> structured_cases() {
  return {
      case_on("tril", {"a", "b"}, "aten.tril.default", {I(1)}),
      case_on("triu.batched", {"c", "a", "b"}, "aten.triu.default", {I(-1)}),
      case_on("tril_", {"a", "b"}, "aten.tril_.default", {}),
      case_on("diagonal.offset", {"a", "b"}, "aten.diagonal.default", {I(1)}),
      case_on("diagonal.dims", {"a", "b", "c"}, "aten.diagonal.default", {I(-1), I(2), I(0)}),
      case_on("diagonal_copy", {"a", "b"}, "aten.diagonal_copy.default", {I(-2)}),
      case_on("linalg_diagonal", {"c", "a", "b"}, "aten.linalg_diagonal.default", {}),
      case_on("diag.vector", {"a"}, "aten.diag.default", {I(-2)}),
      case_on("diag.matrix", {"a", "b"}, "aten.diag.default", {I(1)}),
      case_on("diag_embed", {"a", "b"}, "aten.diag_embed.default", {I(1), I(0), I(2)}),
      case_on("diag_embed.default", {"a"}, "aten.diag_embed.default", {}),
      {"diagonal_scatter",
       {in("x", {"a", "a"}), in("s", {"a"})},
       {{"op", "aten.diagonal_scatter.default", {T("x"), T("s")}}}},
      {"diagonal_scatter.offset",
       {in("x", {"b", "a", "a + 1"}), in("s", {"b", "a"})},
       {{"op", "aten.diagonal_scatter.default", {T("x"), T("s"), I(1), I(1), I(2)}}}},
      {"as_strided_scatter",
       {in("x", {"a", "4"}), in("s", {"a", "2"})},
       {{"op",
         "aten.as_strided_scatter.default",
         {T("x"), T("s"), List({E("a"), I(2)}), Ints({4, 1}), I(1)}}}},
      case_on("unfold", {"a", "7"}, "aten.unfold.default", {I(1), I(3), I(2)}),
      case_on("unfold.symbolic", {"a", "b"}, "aten.unfold.default", {I(0), I(2), I(1)}),
      case_on("unfold_copy", {"a", "b"}, "aten.unfold_copy.default", {I(-1), I(1), I(3)}),
      case_on("one_hot", {"a", "b"}, "aten.one_hot.default", {I(3)}, {}, DType::Int64),
      case_on("one_hot.inferred", {"a"}, "aten.one_hot.default", {}, {}, DType::Int64),
      {"bucketize",
       {in("x", {"a", "b"}), in("bounds", {"c"})},
       {{"op", "aten.bucketize.Tensor", {T("x"), T("bounds")}, {{"out_int32", B(true)}}}}},
      {"bucketize.scalar",
       {in("bounds", {"c"})},
       {{"op", "aten.bucketize.Scalar", {F(0.25), T("bounds")}, {{"right", B(true)}}}}},
      {"searchsorted.rows",
       {in("seq", {"a", "c"}), in("x", {"a", "b"})},
       {{"op", "aten.searchsorted.Tensor", {T("seq"), T("x")}, {{"right", B(true)}}}}},
      {"searchsorted.side",
       {in("seq", {"c"}), in("x", {"a", "b"})},
       {{"op", "aten.searchsorted.Tensor", {T("seq"), T("x")}, {{"side", S("right")}}}}},
      {"searchsorted.scalar",
       {in("seq", {"c"})},
       {{"op", "aten.searchsorted.Scalar", {T("seq"), F(0.5)}}}},
      {"cdist",
       {in("x1", {"b", "p", "m"}), in("x2", {"r", "m"})},
       {{"op", "aten.cdist.default", {T("x1"), T("x2")}}}},
      {"cdist.p",
       {in("x1", {"b", "1", "p", "m"}), in("x2", {"a", "r", "m"})},
       {{"op", "aten.cdist.default", {T("x1"), T("x2"), F(1.5)}}}},
      {"_cdist_forward",
       {in("x1", {"p", "m"}), in("x2", {"r", "m"})},
       {{"op", "aten._cdist_forward.default", {T("x1"), T("x2"), F(0.0), None()}}}},
      case_on("reflection_pad1d", {"a", "b", "c"}, "aten.reflection_pad1d.default", {Ints({1, 2})}),
      case_on("reflection_pad1d.crop", {"b", "c"}, "aten.reflection_pad1d.default",
              {Ints({-1, 1})}),
      case_on("reflection_pad2d", {"a", "b", "c"}, "aten.reflection_pad2d.default",
              {Ints({1, 1, 0, 1})}),
      case_on("reflection_pad3d", {"a", "b", "c", "d", "e"}, "aten.reflection_pad3d.default",
              {Ints({1, 0, 0, 1, 1, 1})}),
      case_on("replication_pad1d", {"b", "c"}, "aten.replication_pad1d.default", {Ints({2, 3})}),
      case_on("replication_pad2d", {"a", "b", "c", "d"}, "aten.replication_pad2d.default",
              {Ints({1, -1, 2, 0})}),
      case_on("replication_pad3d", {"b", "c", "d", "e"}, "aten.replication_pad3d.default",
              {Ints({1, 1, 1, 1, 1, 1})}),
      case_on("_pad_circular", {"a", "b", "c"}, "aten._pad_circular.default", {Ints({1, 2})}),
      case_on("_pad_circular.2d", {"a", "b", "c", "d"}, "aten._pad_circular.default",
              {Ints({1, 1, 2, -1})}),
      case_on("pad.reflect", {"a", "b", "c"}, "aten.pad.default", {Ints({2, 1}), S("reflect")}),
      case_on("pad.replicate", {"a", "b", "c", "d"}, "aten.pad.default",
              {Ints({2, 1, 0, 3}), S("replicate")}),
      case_on("pad.circular", {"a", "b", "c"}, "aten.pad.default", {Ints({2, 1}), S("circular")}),
      case_on("pad.constant", {"a", "b"}, "aten.pad.default",
              {Ints({2, -1}), S("constant"), F(1.5)}),
      case_on("upsample_nearest1d", {"a", "b", "c"}, "aten.upsample_nearest1d.default",
              {List({E("2*c")})}),
      case_on("upsample_nearest1d.vec.inexact", {"a", "b", "c"}, "aten.upsample_nearest1d.vec",
              {None(), List({F(1.3)})}),
      case_on("upsample_nearest2d", {"a", "b", "h", "w"}, "aten.upsample_nearest2d.default",
              {List({E("h + 1"), I(3)})}),
      case_on("upsample_nearest2d.vec", {"a", "b", "h", "w"}, "aten.upsample_nearest2d.vec",
              {None(), List({F(2.0), F(0.5)})}),
      case_on("upsample_nearest3d.vec", {"a", "b", "d", "h", "w"}, "aten.upsample_nearest3d.vec",
              {None(), List({F(1.5), F(1.0), F(0.75)})}),
      case_on("_upsample_nearest_exact1d", {"a", "b", "c"},
              "aten._upsample_nearest_exact1d.default", {List({E("c + 2")})}),
      case_on("_upsample_nearest_exact2d.vec", {"a", "b", "h", "w"},
              "aten._upsample_nearest_exact2d.vec", {None(), List({F(2.5), F(2.0)})}),
      case_on("_upsample_nearest_exact3d", {"a", "b", "d", "h", "w"},
              "aten._upsample_nearest_exact3d.default", {List({E("d"), E("2*h"), I(3)})}),
      case_on("upsample_bilinear2d", {"a", "b", "h", "w"}, "aten.upsample_bilinear2d.default",
              {List({E("2*h"), E("w + 3")}), B(false)}),
      case_on("upsample_bilinear2d.vec.align", {"a", "b", "h", "w"}, "aten.upsample_bilinear2d.vec",
              {None(), B(true), List({F(2.0), F(1.25)})}),
      case_on("upsample_bicubic2d", {"a", "b", "h", "w"}, "aten.upsample_bicubic2d.default",
              {List({E("h + 2"), E("w")}), B(true)}),
      case_on("upsample_bicubic2d.vec", {"a", "b", "h", "w"}, "aten.upsample_bicubic2d.vec",
              {None(), B(false), List({F(0.5), F(3.0)})}),
      case_on("im2col", {"a", "b", "h", "w"}, "aten.im2col.default",
              {Ints({2, 2}), Ints({1, 1}), Ints({0, 0}), Ints({1, 1})}),
      case_on("im2col.unbatched", {"b", "h", "w"}, "aten.im2col.default",
              {Ints({3, 2}), Ints({1, 2}), Ints({1, 0}), Ints({2, 1})}),
      case_on(
          "col2im", {"a", "4*b", "h*w"}, "aten.col2im.default",
          {List({E("h + 1"), E("w + 1")}), Ints({2, 2}), Ints({1, 1}), Ints({0, 0}), Ints({1, 1})}),
      case_on("col2im.strided", {"6", "h*w"}, "aten.col2im.default",
              {List({E("2*h"), E("2*w")}), Ints({1, 2}), Ints({1, 1}), Ints({0, 0}), Ints({2, 2})}),
      {"grid_sampler_2d",
       {in("x", {"a", "b", "h", "w"}), in("g", {"a", "c", "d", "2"})},
       {{"op", "aten.grid_sampler_2d.default", {T("x"), T("g"), I(0), I(0), B(false)}}}},
      {"grid_sampler_2d.nearest_border",
       {in("x", {"a", "b", "h", "w"}), in("g", {"a", "c", "d", "2"})},
       {{"op", "aten.grid_sampler_2d.default", {T("x"), T("g"), I(1), I(1), B(true)}}}},
      {"_native_multi_head_attention",
       {in("x", {"a", "s", "4"}), in("w", {"12", "4"}), in("b", {"12"}), in("pw", {"4", "4"}),
        in("pb", {"4"})},
       {{"op",
         "aten._native_multi_head_attention.default",
         {T("x"), T("x"), T("x"), I(4), I(2), T("w"), T("b"), T("pw"), T("pb"), None(), B(true),
          B(false)}}}},
      {"_native_multi_head_attention.no_weights",
       {in("q", {"a", "s", "6"}), in("k", {"a", "s", "6"}), in("v", {"a", "s", "6"}),
        in("w", {"18", "6"}), in("b", {"18"}), in("pw", {"6", "6"}), in("pb", {"6"})},
       {{"mha",
         "aten._native_multi_head_attention.default",
         {T("q"), T("k"), T("v"), I(6), I(3), T("w"), T("b"), T("pw"), T("pb"), None(), B(false)}},
        {"op", "_operator.getitem", {T("mha"), I(0)}}}},
      {"_transformer_encoder_layer_fwd",
       {in("x", {"a", "s", "4"}), in("w", {"12", "4"}), in("b", {"12"}), in("pw", {"4", "4"}),
        in("d", {"4"}), in("f1", {"8", "4"}), in("fb", {"8"}), in("f2", {"4", "8"})},
       {{"op",
         "aten._transformer_encoder_layer_fwd.default",
         {T("x"), I(4), I(2), T("w"), T("b"), T("pw"), T("d"), B(true), B(false), F(1e-5), T("d"),
          T("d"), T("d"), T("d"), T("f1"), T("fb"), T("f2"), T("d")}}}},
      {"_transformer_encoder_layer_fwd.norm_first",
       {in("x", {"a", "s", "6"}), in("w", {"18", "6"}), in("b", {"18"}), in("pw", {"6", "6"}),
        in("d", {"6"}), in("f1", {"5", "6"}), in("fb", {"5"}), in("f2", {"6", "5"})},
       {{"op",
         "aten._transformer_encoder_layer_fwd.default",
         {T("x"), I(6), I(3), T("w"), T("b"), T("pw"), T("d"), B(false), B(true), F(1e-5), T("d"),
          T("d"), T("d"), T("d"), T("f1"), T("fb"), T("f2"), T("d")}}}},
  };
}

}  // namespace symshape::testing
