// Kernel tests and property-test cases: views and shape ops. Views must share their input's
// storage with PyTorch's strides; slicing clamps like Python.
#include <gtest/gtest.h>

#include <limits>

#include "tests/interp/kernel_call.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {

namespace {

using Sizes = std::vector<int64_t>;

// x[start:end:step] of a 1-d x as aten.slice.Tensor(x, 0, start, end, step).
std::vector<int64_t> sliced(const Tensor& x, Arg start, Arg end, long step = 1) {
  return ints_of(on_x(x, "aten.slice.Tensor", {I(0), std::move(start), std::move(end), I(step)}));
}

// ---- slicing ----

TEST(SliceKernel, NegativeAndOutOfRangeBoundsClampLikePython) {
  Tensor x = iota({10});
  EXPECT_EQ(sliced(x, I(-10), I(3)), (Sizes{0, 1, 2}));                        // x[-10:3]
  EXPECT_EQ(sliced(x, I(2), I(100)), (Sizes{2, 3, 4, 5, 6, 7, 8, 9}));         // x[2:100]
  EXPECT_EQ(sliced(x, I(-3), None()), (Sizes{7, 8, 9}));                       // x[-3:]
  EXPECT_EQ(sliced(x, I(-100), I(-8)), (Sizes{0, 1}));                         // x[-100:-8]
  EXPECT_EQ(sliced(x, I(-2), I(-1)), (Sizes{8}));                              // x[-2:-1]
  EXPECT_EQ(sliced(x, I(5), I(2)), (Sizes{}));                                 // x[5:2]: empty
  EXPECT_EQ(sliced(x, I(100), I(200)), (Sizes{}));                             // x[100:200]: empty
  EXPECT_EQ(sliced(x, I(-100), I(-50)), (Sizes{}));                            // x[-100:-50]: empty
  EXPECT_EQ(sliced(x, I(0), I(kMax)), (Sizes{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));  // x[0:]
}

TEST(SliceKernel, StepsCountEveryStepthElementFromStart) {
  Tensor x = iota({10});
  EXPECT_EQ(sliced(x, I(1), I(8), 2), (Sizes{1, 3, 5, 7}));     // x[1:8:2]
  EXPECT_EQ(sliced(x, I(1), I(9), 2), (Sizes{1, 3, 5, 7}));     // x[1:9:2]
  EXPECT_EQ(sliced(x, I(0), I(kMax), 3), (Sizes{0, 3, 6, 9}));  // x[::3]
  EXPECT_EQ(sliced(x, I(-4), I(kMax), 2), (Sizes{6, 8}));       // x[-4::2]
  EXPECT_EQ(sliced(x, I(0), I(10), kMax), (Sizes{0}));          // a huge step: one element
  EXPECT_TRUE(Contains(error_on_x(x, "aten.slice.Tensor", {I(0), I(0), I(5), I(0)}),
                       "slice step must be positive"));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.slice.Tensor", {I(0), I(0), I(5), I(-1)}),
                       "slice step must be positive"));
}

TEST(SliceKernel, IsAStridedViewOfTheSameStorage) {
  Tensor x = iota({3, 4});
  // x[:, 1::2]: columns 1 and 3, stride 2 along dim 1, starting at element 1.
  Tensor v = on_x(x, "aten.slice.Tensor", {I(1), I(1), I(kMax), I(2)});
  EXPECT_EQ(v.sizes(), (Sizes{3, 2}));
  EXPECT_EQ(v.strides(), (Sizes{4, 2}));
  EXPECT_EQ(v.offset(), 1);
  EXPECT_TRUE(v.shares_storage(x));
  EXPECT_EQ(ints_of(v), (Sizes{1, 3, 5, 7, 9, 11}));
  // Writing through the view changes the base.
  v.set(Sizes{2, 1}, Scalar::of_int(-5));
  EXPECT_EQ(x.at(Sizes{2, 3}).as_int(), -5);
  // Rows 1.. of dim 0 with the default start: x[1:].
  Tensor rows = on_x(x, "aten.slice.Tensor", {I(0), I(1)});
  EXPECT_EQ(rows.sizes(), (Sizes{2, 4}));
  EXPECT_EQ(rows.offset(), 4);
}

TEST(NarrowKernel, NegativeStartWrapsOnceAndBoundsAreChecked) {
  Tensor x = iota({6});
  EXPECT_EQ(ints_of(on_x(x, "aten.narrow.default", {I(0), I(-4), I(2)})), (Sizes{2, 3}));
  Tensor v = on_x(x, "aten.narrow.default", {I(0), I(6), I(0)});
  EXPECT_EQ(v.sizes(), (Sizes{0}));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.narrow.default", {I(0), I(-7), I(1)}),
                       "start out of range (expected to be in range of [-6, 6], but got -7)"));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.narrow.default", {I(0), I(4), I(3)}),
                       "start (4) + length (3) exceeds dimension size (6)"));
}

TEST(SelectKernel, NegativeIndexWrapsAndOutOfRangeNamesIndexAndSize) {
  Tensor x = iota({2, 3});
  Tensor last_col = on_x(x, "aten.select.int", {I(1), I(-1)});
  EXPECT_EQ(ints_of(last_col), (Sizes{2, 5}));
  EXPECT_EQ(last_col.strides(), (Sizes{3}));
  EXPECT_EQ(last_col.offset(), 2);
  EXPECT_TRUE(last_col.shares_storage(x));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.select.int", {I(0), I(2)}),
                       "index 2 out of range for tensor of size [2, 3] at dimension 0"));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.select.int", {I(1), I(-4)}), "index -4 out of range"));
}

// ---- slice_scatter and select_scatter: a copy with a view replaced ----

TEST(ScatterIntoViewKernels, ReplaceTheViewInACopyOfSelf) {
  Tensor x = iota({2, 4});  // [[0, 1, 2, 3], [4, 5, 6, 7]]
  Tensor src = Tensor::zeros(DType::Int64, {2, 2});
  // x[:, 1::2] = 0
  Tensor a = call_tensor("aten.slice_scatter.default", {{"x", x}, {"s", src}},
                         {T("x"), T("s"), I(1), I(1), None(), I(2)});
  EXPECT_EQ(ints_of(a), (Sizes{0, 0, 2, 0, 4, 0, 6, 0}));
  EXPECT_FALSE(a.shares_storage(x));
  EXPECT_EQ(ints_of(x), (Sizes{0, 1, 2, 3, 4, 5, 6, 7}));  // self is not written
  // x[-1] = [10, 11, 12, 13]
  Tensor row = iota({4});
  for (int64_t i = 0; i < 4; ++i) row.set_flat(i, Scalar::of_int(10 + i));
  Tensor b = call_tensor("aten.select_scatter.default", {{"x", x}, {"r", row}},
                         {T("x"), T("r"), I(0), I(-1)});
  EXPECT_EQ(ints_of(b), (Sizes{0, 1, 2, 3, 10, 11, 12, 13}));
  // src must have the view's shape.
  EXPECT_TRUE(Contains(run_error([&] {
                         call_tensor("aten.select_scatter.default", {{"x", x}, {"s", src}},
                                     {T("x"), T("s"), I(0), I(0)});
                       }),
                       "must have the shape of the view [4]"));
}

// ---- view and reshape ----

TEST(ViewKernel, ContiguousViewSharesStorageAndInfersMinusOne) {
  Tensor x = iota({2, 3, 4});
  Tensor v = on_x(x, "aten.view.default", {Ints({-1, 4})});
  EXPECT_EQ(v.sizes(), (Sizes{6, 4}));
  EXPECT_EQ(v.strides(), (Sizes{4, 1}));
  EXPECT_TRUE(v.shares_storage(x));
  v.set(Sizes{5, 3}, Scalar::of_int(100));
  EXPECT_EQ(x.at(Sizes{1, 2, 3}).as_int(), 100);
  EXPECT_TRUE(Contains(error_on_x(x, "aten.view.default", {Ints({-1, 5})}),
                       "shape '[-1, 5]' is invalid for input of size 24"));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.view.default", {Ints({-1, -1})}),
                       "only one dimension can be inferred"));
  EXPECT_TRUE(
      Contains(error_on_x(iota({0, 2}), "aten.view.default", {Ints({0, -1})}), "ambiguous"));
}

TEST(ViewKernel, NonContiguousViewSplitsWithinAChunkOrFails) {
  Tensor x = iota({2, 3, 4});
  Tensor p = on_x(x, "aten.permute.default", {Ints({1, 0, 2})});  // [3, 2, 4], strides [4, 12, 1]
  ASSERT_EQ(p.strides(), (Sizes{4, 12, 1}));
  // Splitting the last dim stays a view: strides [4, 12, 2, 1].
  Tensor v = on_x(p, "aten.view.default", {Ints({3, 2, 2, 2})});
  EXPECT_EQ(v.strides(), (Sizes{4, 12, 2, 1}));
  EXPECT_TRUE(v.shares_storage(x));
  // Merging dims 0 and 1 (not laid out together) is impossible for view ...
  EXPECT_TRUE(Contains(error_on_x(p, "aten.view.default", {Ints({6, 4})}),
                       "view size is not compatible with input tensor's size and stride"));
  // ... and reshape copies instead: the values in p's row-major order.
  Tensor r = on_x(p, "aten.reshape.default", {Ints({6, 4})});
  EXPECT_FALSE(r.shares_storage(x));
  EXPECT_EQ(r.strides(), (Sizes{4, 1}));
  EXPECT_EQ(ints_of(r), ints_of(p));
  EXPECT_EQ(ints_of(r)[4], 12);  // p[0, 1, 0] = x[1, 0, 0]
  // A reshape that can view does.
  EXPECT_TRUE(on_x(x, "aten.reshape.default", {Ints({4, 6})}).shares_storage(x));
  // view_copy never shares.
  Tensor c = on_x(x, "aten.view_copy.default", {Ints({4, 6})});
  EXPECT_FALSE(c.shares_storage(x));
  EXPECT_EQ(ints_of(c), ints_of(x));
}

TEST(ViewKernel, MergingAcrossASizeOneDimIgnoresItsStride) {
  // [2, 1, 3] with an odd stride on the size-1 dim still merges into [6].
  Tensor base = iota({6});
  Tensor x = base.as_strided({2, 1, 3}, {3, 100, 1}, 0);
  Tensor v = on_x(x, "aten.view.default", {Ints({6})});
  EXPECT_EQ(v.strides(), (Sizes{1}));
  EXPECT_EQ(ints_of(v), (Sizes{0, 1, 2, 3, 4, 5}));
}

TEST(ViewKernel, FlattenAndUnflatten) {
  Tensor x = iota({2, 3, 4});
  Tensor f = on_x(x, "aten.flatten.using_ints", {I(1), I(2)});
  EXPECT_EQ(f.sizes(), (Sizes{2, 12}));
  EXPECT_TRUE(f.shares_storage(x));
  // A 0-dim tensor flattens to [1].
  EXPECT_EQ(on_x(Tensor::scalar(kF32, Scalar::of_float(2)), "aten.flatten.using_ints", {}).sizes(),
            (Sizes{1}));
  // unflatten of a transposed dim: the parts take strides within the old stride (3).
  Tensor t = on_x(iota({3, 4}), "aten.t.default", {});  // [4, 3], strides [1, 4]
  Tensor u = on_x(t, "aten.unflatten.int", {I(0), Ints({2, -1})});
  EXPECT_EQ(u.sizes(), (Sizes{2, 2, 3}));
  EXPECT_EQ(u.strides(), (Sizes{2, 1, 4}));
  EXPECT_EQ(ints_of(u), ints_of(t));
}

TEST(ViewKernel, DtypeViewReinterpretsTheBytes) {
  Tensor one = real_tensor({1}, {1.0});
  EXPECT_EQ(ints_of(on_x(one, "aten.view.dtype", {D(DType::Int32)})), (Sizes{0x3f800000}));
  // float32 1.0 = 0x3f800000: two halves 0x0000 and 0x3f80 = 1.875 (little-endian).
  Tensor halves = on_x(one, "aten.view.dtype", {D(DType::Float16)});
  EXPECT_EQ(halves.sizes(), (Sizes{2}));
  EXPECT_EQ(reals_of(halves), (std::vector<double>{0.0, 1.875}));
  // int16 [1, -1] = bytes 01 00 ff ff = int32 0xffff0001.
  Tensor pair = int_tensor({1, 2}, {1, -1}, DType::Int16);
  Tensor wide = on_x(pair, "aten.view.dtype", {D(DType::Int32)});
  EXPECT_EQ(wide.sizes(), (Sizes{1, 1}));
  EXPECT_EQ(ints_of(wide), (Sizes{static_cast<int32_t>(0xffff0001u)}));
  // float16 1.0 is 0x3c00; -2.0 is 0xc000.
  Tensor h = real_tensor({2}, {1.0, -2.0}, DType::Float16);
  EXPECT_EQ(ints_of(on_x(h, "aten.view.dtype", {D(DType::Int16)})),
            (Sizes{0x3c00, static_cast<int16_t>(0xc000)}));
  EXPECT_TRUE(Contains(
      error_on_x(int_tensor({3}, {1, 2, 3}, DType::Int16), "aten.view.dtype", {D(DType::Int32)}),
      "self.size(-1) must be divisible by 2"));
}

// ---- permutations, expand, squeeze ----

TEST(PermuteKernel, StridesFollowTheDims) {
  Tensor x = iota({2, 3, 4});
  Tensor p = on_x(x, "aten.permute.default", {Ints({2, 0, 1})});
  EXPECT_EQ(p.sizes(), (Sizes{4, 2, 3}));
  EXPECT_EQ(p.strides(), (Sizes{1, 12, 4}));
  EXPECT_EQ(p.at(Sizes{3, 1, 2}).as_int(), 1 * 12 + 2 * 4 + 3);
  // A view of a view still writes into the base: p[1:, 0, 2] covers x[0, 2, 1..3].
  Tensor row = on_x(on_x(p, "aten.select.int", {I(1), I(0)}), "aten.select.int", {I(1), I(2)});
  Tensor tail = on_x(row, "aten.slice.Tensor", {I(0), I(1)});
  EXPECT_EQ(ints_of(tail), (Sizes{9, 10, 11}));
  tail.set(Sizes{0}, Scalar::of_int(-1));
  EXPECT_EQ(x.at(Sizes{0, 2, 1}).as_int(), -1);
  Tensor t = on_x(x, "aten.transpose.int", {I(0), I(-1)});
  EXPECT_EQ(t.strides(), (Sizes{1, 4, 12}));
  EXPECT_EQ(on_x(x, "aten.swapaxes.default", {I(0), I(-1)}).strides(), (Sizes{1, 4, 12}));
  EXPECT_EQ(on_x(x, "aten.numpy_T.default", {}).strides(), (Sizes{1, 4, 12}));
  // movedim(0 -> 2): [3, 4, 2] with strides [4, 1, 12].
  Tensor m = on_x(x, "aten.movedim.int", {I(0), I(2)});
  EXPECT_EQ(m.sizes(), (Sizes{3, 4, 2}));
  EXPECT_EQ(m.strides(), (Sizes{4, 1, 12}));
  EXPECT_TRUE(m.shares_storage(x));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.t.default", {}), "t() expects a tensor with <= 2"));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.permute.default", {Ints({0, 0, 1})}), "repeated dim"));
}

TEST(ExpandKernel, StretchedAndNewDimsHaveStrideZero) {
  Tensor x = iota({3, 1});
  Tensor e = on_x(x, "aten.expand.default", {Ints({2, -1, 4})});
  EXPECT_EQ(e.sizes(), (Sizes{2, 3, 4}));
  EXPECT_EQ(e.strides(), (Sizes{0, 1, 0}));
  EXPECT_TRUE(e.shares_storage(x));
  EXPECT_EQ(e.at(Sizes{1, 2, 3}).as_int(), 2);
  EXPECT_TRUE(Contains(error_on_x(x, "aten.expand.default", {Ints({2, 4})}),
                       "The expanded size of the tensor (2) must match the existing size (3) at "
                       "non-singleton dimension 0"));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.expand.default", {Ints({-1, 3, 1})}), "-1"));
}

TEST(SqueezeKernel, DropsOnlySizeOneDims) {
  Tensor x = iota({2, 1, 3, 1});
  EXPECT_EQ(on_x(x, "aten.squeeze.default", {}).sizes(), (Sizes{2, 3}));
  EXPECT_EQ(on_x(x, "aten.squeeze.dim", {I(0)}).sizes(), (Sizes{2, 1, 3, 1}));
  EXPECT_EQ(on_x(x, "aten.squeeze.dims", {Ints({1, -1})}).sizes(), (Sizes{2, 3}));
  Tensor u = on_x(iota({2, 3}), "aten.unsqueeze.default", {I(1)});
  EXPECT_EQ(u.sizes(), (Sizes{2, 1, 3}));
  EXPECT_EQ(u.strides(), (Sizes{3, 3, 1}));
  EXPECT_EQ(on_x(iota({2, 3}), "aten.unsqueeze.default", {I(-1)}).strides(), (Sizes{3, 1, 1}));
}

TEST(AsStridedKernel, SlidingWindowsOverlap) {
  Tensor x = iota({6});
  Tensor w = on_x(x, "aten.as_strided.default", {Ints({3, 3}), Ints({1, 1}), I(1)});
  EXPECT_EQ(ints_of(w), (Sizes{1, 2, 3, 2, 3, 4, 3, 4, 5}));
  EXPECT_TRUE(w.shares_storage(x));
  EXPECT_FALSE(error_on_x(x, "aten.as_strided.default", {Ints({3}), Ints({3})}).empty());
  Tensor a = on_x(x, "aten._reshape_alias.default", {Ints({3, 2}), Ints({1, 3})});
  EXPECT_EQ(ints_of(a), (Sizes{0, 3, 1, 4, 2, 5}));
}

// ---- split, chunk, unbind ----

std::vector<Sizes> piece_values(const RValue& v, const Tensor& base) {
  std::vector<Sizes> out;
  for (const RValue& item : v.items) {
    EXPECT_TRUE(item.tensor.shares_storage(base));
    out.push_back(ints_of(item.tensor));
  }
  return out;
}

TEST(SplitKernel, PiecesAreViewsWithAShorterLastOne) {
  Tensor x = iota({5});
  EXPECT_EQ(piece_values(call_kernel("aten.split.Tensor", {{"x", x}}, {T("x"), I(2)}), x),
            (std::vector<Sizes>{{0, 1}, {2, 3}, {4}}));
  EXPECT_EQ(
      piece_values(
          call_kernel("aten.split_with_sizes.default", {{"x", x}}, {T("x"), Ints({1, 0, 4})}), x),
      (std::vector<Sizes>{{0}, {}, {1, 2, 3, 4}}));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.split_with_sizes.default", {Ints({1, 2})}),
                       "split_sizes to sum exactly to 5"));
  // chunk(5, 3): pieces of ceil(5/3) = 2; chunk(6, 4): ceil = 2 gives only 3 pieces.
  EXPECT_EQ(piece_values(call_kernel("aten.chunk.default", {{"x", x}}, {T("x"), I(3)}), x),
            (std::vector<Sizes>{{0, 1}, {2, 3}, {4}}));
  Tensor y = iota({6});
  EXPECT_EQ(call_kernel("aten.chunk.default", {{"x", y}}, {T("x"), I(4)}).items.size(), 3u);
  Tensor m = iota({2, 3});
  RValue cols = call_kernel("aten.unbind.int", {{"x", m}}, {T("x"), I(1)});
  EXPECT_EQ(piece_values(cols, m), (std::vector<Sizes>{{0, 3}, {1, 4}, {2, 5}}));
}

// ---- cat, stack, repeat, flip, roll, pad, pixel shuffle ----

TEST(CatKernel, ConcatenatesPromotesAndSkipsEmptyVectors) {
  Tensor a = iota({2, 2}), b = int_tensor({1, 2}, {7, 8}, DType::Int32);
  Tensor c = call_tensor("aten.cat.default", {{"a", a}, {"b", b}}, {List({T("a"), T("b")})});
  EXPECT_EQ(c.sizes(), (Sizes{3, 2}));
  EXPECT_EQ(c.dtype(), DType::Int64);
  EXPECT_EQ(ints_of(c), (Sizes{0, 1, 2, 3, 7, 8}));
  Tensor f = real_tensor({2, 1}, {0.5, 1.5});
  Tensor d = call_tensor("aten.cat.default", {{"a", a}, {"f", f}}, {List({T("a"), T("f")}), I(-1)});
  EXPECT_EQ(d.dtype(), kF32);
  EXPECT_EQ(reals_of(d), (std::vector<double>{0, 1, 0.5, 2, 3, 1.5}));
  Tensor empty = Tensor::zeros(DType::Int64, {0});
  Tensor e =
      call_tensor("aten.cat.default", {{"a", a}, {"e", empty}}, {List({T("e"), T("a")}), I(1)});
  EXPECT_EQ(e.sizes(), (Sizes{2, 2}));
  EXPECT_TRUE(Contains(
      run_error([&] {
        call_tensor("aten.cat.default", {{"a", a}, {"b", iota({2, 3})}}, {List({T("a"), T("b")})});
      }),
      "Sizes of tensors must match except in dimension 0"));
}

TEST(StackKernel, InsertsTheNewDim) {
  Tensor a = iota({2}), b = int_tensor({2}, {5, 6});
  Tensor s =
      call_tensor("aten.stack.default", {{"a", a}, {"b", b}}, {List({T("a"), T("b")}), I(1)});
  EXPECT_EQ(s.sizes(), (Sizes{2, 2}));
  EXPECT_EQ(ints_of(s), (Sizes{0, 5, 1, 6}));
}

TEST(RepeatKernel, RepeatTileAndInterleave) {
  Tensor x = int_tensor({2}, {1, 2});
  Tensor r = on_x(x, "aten.repeat.default", {Ints({2, 3})});
  EXPECT_EQ(r.sizes(), (Sizes{2, 6}));
  EXPECT_EQ(ints_of(r), (Sizes{1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2}));
  Tensor m = iota({2, 2});
  EXPECT_EQ(ints_of(on_x(m, "aten.tile.default", {Ints({2})})), (Sizes{0, 1, 0, 1, 2, 3, 2, 3}));
  EXPECT_EQ(ints_of(on_x(m, "aten.repeat_interleave.self_int", {I(2)})),
            (Sizes{0, 0, 1, 1, 2, 2, 3, 3}));
  Tensor rows = on_x(m, "aten.repeat_interleave.self_int", {I(2), I(0)});
  EXPECT_EQ(rows.sizes(), (Sizes{4, 2}));
  EXPECT_EQ(ints_of(rows), (Sizes{0, 1, 0, 1, 2, 3, 2, 3}));
}

TEST(FlipRollKernel, IndicesMoveAsPyTorchMovesThem) {
  Tensor x = iota({5});
  EXPECT_EQ(ints_of(on_x(x, "aten.roll.default", {Ints({2})})), (Sizes{3, 4, 0, 1, 2}));
  EXPECT_EQ(ints_of(on_x(x, "aten.roll.default", {Ints({-1}), Ints({0})})), (Sizes{1, 2, 3, 4, 0}));
  EXPECT_EQ(ints_of(on_x(x, "aten.roll.default", {Ints({12}), Ints({0})})), (Sizes{3, 4, 0, 1, 2}));
  Tensor m = iota({2, 3});
  // Rolling without dims rolls the flattened tensor.
  EXPECT_EQ(ints_of(on_x(m, "aten.roll.default", {Ints({1})})), (Sizes{5, 0, 1, 2, 3, 4}));
  EXPECT_EQ(ints_of(on_x(m, "aten.roll.default", {Ints({1, 1}), Ints({0, 1})})),
            (Sizes{5, 3, 4, 2, 0, 1}));
  EXPECT_EQ(ints_of(on_x(m, "aten.flip.default", {Ints({1})})), (Sizes{2, 1, 0, 5, 4, 3}));
  EXPECT_EQ(ints_of(on_x(m, "aten.flip.default", {Ints({0, 1})})), (Sizes{5, 4, 3, 2, 1, 0}));
}

TEST(PadKernel, ConstantPadAndNegativePadCrops) {
  Tensor x = int_tensor({2}, {1, 2});
  EXPECT_EQ(ints_of(on_x(x, "aten.constant_pad_nd.default", {Ints({1, 2}), I(9)})),
            (Sizes{9, 1, 2, 9, 9}));
  Tensor m = iota({2, 3});
  // pad (left -1, right 1) on the last dim, (top 1, bottom 0) on the first.
  Tensor p = on_x(m, "aten.constant_pad_nd.default", {Ints({-1, 1, 1, 0})});
  EXPECT_EQ(p.sizes(), (Sizes{3, 3}));
  EXPECT_EQ(ints_of(p), (Sizes{0, 0, 0, 1, 2, 0, 4, 5, 0}));
  EXPECT_TRUE(Contains(error_on_x(x, "aten.constant_pad_nd.default", {Ints({-2, -1})}),
                       "negative output size"));
}

TEST(PixelShuffleKernel, MovesChannelsIntoSpace) {
  Tensor x = iota({1, 4, 1, 2});
  Tensor s = on_x(x, "aten.pixel_shuffle.default", {I(2)});
  EXPECT_EQ(s.sizes(), (Sizes{1, 1, 2, 4}));
  EXPECT_EQ(ints_of(s), (Sizes{0, 2, 1, 3, 4, 6, 5, 7}));
  Tensor back = on_x(s, "aten.pixel_unshuffle.default", {I(2)});
  EXPECT_EQ(back.sizes(), (Sizes{1, 4, 1, 2}));
  EXPECT_EQ(ints_of(back), ints_of(x));
}

// ---- property-test cases ----

// One op on x of `shape`.

// x transposed first (a non-contiguous input), then the op.
OpCase on_transposed(const std::string& name, std::vector<std::string> shape,
                     const std::string& target, std::vector<Arg> args) {
  std::vector<Arg> all = {T("t")};
  all.insert(all.end(), args.begin(), args.end());
  return {name,
          {in("x", std::move(shape))},
          {{"t", "aten.transpose.int", {T("x"), I(0), I(1)}}, {"op", target, std::move(all)}}};
}

}  // namespace

std::vector<OpCase> views_cases() {
  return {
      case_on("view.merge", {"a", "b", "4"}, "aten.view.default", {List({E("a*b"), I(4)})}),
      case_on("view.infer", {"a", "b"}, "aten.view.default", {Ints({-1})}),
      case_on("view.split", {"a*b"}, "aten.view.default", {List({E("a"), E("b")})}),
      on_transposed("view.of_transposed", {"a", "b", "4"}, "aten.view.default",
                    {List({E("b"), E("a"), I(2), I(2)})}),
      case_on("reshape.infer", {"a", "6"}, "aten.reshape.default", {Ints({3, -1})}),
      on_transposed("reshape.copy", {"a", "b"}, "aten.reshape.default", {Ints({-1})}),
      case_on("_unsafe_view", {"a", "4"}, "aten._unsafe_view.default", {Ints({-1})}),
      on_transposed("view_copy", {"a", "b"}, "aten.view_copy.default", {List({E("a"), E("b")})}),
      case_on("_reshape_alias", {"a", "3"}, "aten._reshape_alias.default",
              {List({I(3), E("a")}), List({I(1), I(3)})}),
      // Layouts PyTorch gives a non-view result (TensorIterator keeps its input's order; a
      // channels_last clone stays channels_last), read through explicit strides and views.
      {"layout.mul_of_transposed.reshape_alias",
       {in("x", {"a", "b"})},
       {{"t", "aten.t.default", {T("x")}},
        {"m", "aten.mul.Tensor", {T("t"), F(2.0)}},
        {"op",
         "aten._reshape_alias.default",
         {T("m"), List({E("b"), E("a")}), List({I(1), E("b")})}}}},
      {"layout.add_of_permuted.view",
       {in("x", {"a", "b", "c"})},
       {{"p", "aten.permute.default", {T("x"), Ints({2, 0, 1})}},
        {"s", "aten.add.Tensor", {T("p"), T("p")}},
        {"op", "aten.view.default", {T("s"), List({E("c"), E("a*b")})}}}},
      {"layout.channels_last.relu.view",
       {in("x", {"a", "b", "c", "d"})},
       {{"cl", "aten.clone.default", {T("x")}, {{"memory_format", MemoryFormat("channels_last")}}},
        {"r", "aten.relu.default", {T("cl")}},
        {"op", "aten.view.default", {T("r"), List({E("a"), E("b"), E("c*d")})}}}},
      {"layout.inplace_through_strided_view",
       {in("x", {"a", "b"})},
       {{"t", "aten.t.default", {T("x")}},
        {"m", "aten.mul.Tensor", {T("t"), F(3.0)}},
        {"s", "aten.slice.Tensor", {T("m"), I(1), I(0), E("a"), I(2)}},
        {"op", "aten.add_.Tensor", {T("s"), F(1.0)}}}},
      case_on("view.dtype.int32", {"a", "4"}, "aten.view.dtype", {D(DType::Int32)}),
      case_on("view.dtype.narrower", {"a", "b"}, "aten.view.dtype", {D(DType::Float16)}),
      {"view.dtype.wider",
       {in("x", {"a", "4"}, DType::Int16)},
       {{"op", "aten.view.dtype", {T("x"), D(DType::Int32)}}}},
      {"reshape_as",
       {in("x", {"a", "b"}), in("y", {"a*b"})},
       {{"op", "aten.reshape_as.default", {T("x"), T("y")}}}},
      {"view_as",
       {in("x", {"a*b"}), in("y", {"a", "b"})},
       {{"op", "aten.view_as.default", {T("x"), T("y")}}}},
      case_on("permute", {"a", "b", "c"}, "aten.permute.default", {Ints({2, 0, 1})}),
      case_on("transpose", {"a", "b", "c"}, "aten.transpose.int", {I(0), I(-1)}),
      case_on("swapaxes", {"a", "b"}, "aten.swapaxes.default", {I(0), I(1)}),
      case_on("t", {"a", "b"}, "aten.t.default", {}),
      case_on("t.vector", {"a"}, "aten.t.default", {}),
      case_on("numpy_T", {"a", "b", "c"}, "aten.numpy_T.default", {}),
      case_on("movedim", {"a", "b", "c"}, "aten.movedim.int", {I(0), I(-1)}),
      case_on("expand", {"a", "1"}, "aten.expand.default", {List({E("c"), I(-1), E("b")})}),
      {"expand_as",
       {in("x", {"1", "b"}), in("y", {"a", "b"})},
       {{"op", "aten.expand_as.default", {T("x"), T("y")}}}},
      case_on("squeeze.dim", {"a", "1", "b"}, "aten.squeeze.dim", {I(1)}),
      case_on("squeeze.all", {"1", "a", "1"}, "aten.squeeze.default", {}),
      case_on("squeeze.dims", {"a", "1", "b", "1"}, "aten.squeeze.dims", {Ints({1, 3})}),
      case_on("unsqueeze", {"a", "b"}, "aten.unsqueeze.default", {I(-1)}),
      case_on("flatten", {"a", "b", "c"}, "aten.flatten.using_ints", {I(1), I(2)}),
      on_transposed("flatten.copy", {"a", "b", "c"}, "aten.flatten.using_ints", {}),
      case_on("unflatten", {"4*a"}, "aten.unflatten.int", {I(0), Ints({-1, 4})}),
      case_on("slice.symbolic_end", {"a", "b"}, "aten.slice.Tensor", {I(0), I(0), E("a - 1")}),
      case_on("slice.negative_start_step", {"a", "b"}, "aten.slice.Tensor",
              {I(1), I(-2), None(), I(2)}),
      case_on("slice.out_of_range", {"a", "4"}, "aten.slice.Tensor", {I(1), I(-10), I(100)}),
      case_on("slice.default_end", {"a", "b"}, "aten.slice.Tensor",
              {I(0), I(1), I(std::numeric_limits<int64_t>::max())}),
      case_on("narrow", {"a", "b"}, "aten.narrow.default", {I(0), I(1), E("a - 1")}),
      case_on("narrow.negative_start", {"a", "6"}, "aten.narrow.default", {I(1), I(-4), I(3)}),
      case_on("select", {"a", "b"}, "aten.select.int", {I(1), I(-1)}),
      {"slice_scatter",
       {in("x", {"a", "b"}), in("s", {"a - 1", "b"})},
       {{"op", "aten.slice_scatter.default", {T("x"), T("s"), I(0), I(1)}}}},
      {"slice_scatter.step",
       {in("x", {"a", "6"}), in("s", {"a", "2"})},
       {{"op", "aten.slice_scatter.default", {T("x"), T("s"), I(-1), I(1), None(), I(3)}}}},
      {"select_scatter",
       {in("x", {"a", "b"}), in("s", {"a"})},
       {{"op", "aten.select_scatter.default", {T("x"), T("s"), I(1), I(-1)}}}},
      case_on("split", {"6", "a"}, "aten.split.Tensor", {I(4)}),
      case_on("split.sizes", {"a+b", "3"}, "aten.split.sizes", {List({E("a"), E("b")})}),
      case_on("split_with_sizes", {"3", "a+2"}, "aten.split_with_sizes.default",
              {List({E("a"), I(2)}), I(1)}),
      case_on("chunk", {"8", "a"}, "aten.chunk.default", {I(3)}),
      case_on("unbind", {"3", "a"}, "aten.unbind.int", {I(0)}),
      {"cat",
       {in("x", {"a", "4"}), in("y", {"b", "4"})},
       {{"op", "aten.cat.default", {List({T("x"), T("y")})}}}},
      {"cat.promote",
       {in("x", {"a", "b"}, DType::Int32), in("y", {"a", "c"})},
       {{"op", "aten.cat.default", {List({T("x"), T("y")}), I(-1)}}}},
      {"concat",
       {in("x", {"a", "b"}), in("y", {"c", "b"})},
       {{"op", "aten.concat.default", {List({T("x"), T("y")})}}}},
      {"concatenate",
       {in("x", {"a", "b"}), in("y", {"a", "c"})},
       {{"op", "aten.concatenate.default", {List({T("x"), T("y")}), I(1)}}}},
      {"stack",
       {in("x", {"a", "b"}), in("y", {"a", "b"})},
       {{"op", "aten.stack.default", {List({T("x"), T("y")}), I(1)}}}},
      case_on("repeat", {"a", "b"}, "aten.repeat.default", {Ints({2, 1, 3})}),
      case_on("tile", {"a", "b"}, "aten.tile.default", {Ints({2})}),
      case_on("repeat_interleave.dim", {"a", "b"}, "aten.repeat_interleave.self_int", {I(2), I(1)}),
      case_on("repeat_interleave.flat", {"a", "b"}, "aten.repeat_interleave.self_int", {I(3)}),
      case_on("roll", {"a", "b"}, "aten.roll.default", {Ints({1, -2}), Ints({0, 1})}),
      case_on("roll.flat", {"a", "b"}, "aten.roll.default", {Ints({3})}),
      case_on("flip", {"a", "b", "c"}, "aten.flip.default", {Ints({0, -1})}),
      case_on("constant_pad_nd", {"a", "b"}, "aten.constant_pad_nd.default",
              {Ints({1, 2, 0, 1}), F(0.5)}),
      case_on("constant_pad_nd.crop", {"a", "5"}, "aten.constant_pad_nd.default", {Ints({-1, 2})}),
      case_on("pixel_shuffle", {"a", "8", "b", "c"}, "aten.pixel_shuffle.default", {I(2)}),
      case_on("pixel_unshuffle", {"a", "2", "2*b", "2*c"}, "aten.pixel_unshuffle.default", {I(2)}),
      case_on("as_strided", {"a", "4"}, "aten.as_strided.default",
              {List({E("a"), I(2)}), List({I(4), I(2)})}),
  };
}

}  // namespace symshape::testing
