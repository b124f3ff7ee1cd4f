// Kernel tests and property-test cases: convolution (padding, stride, dilation, groups,
// transposed, "same" padding) and pooling (ceil_mode, padding with dilation, count_include_pad,
// divisor_override, adaptive windows, indices), and their backward ops. The expected values were
// computed with plain Python loops over the same small integer-valued inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "tests/interp/kernel_call.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {

namespace {

using Sizes = std::vector<int64_t>;
using Reals = std::vector<double>;

// (i % mod) + offset for i = 0, 1, ... (mod 0: no modulo), with the given sizes.
Tensor pattern(Sizes sizes, int64_t offset, int64_t mod, DType dtype) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back((mod ? i % mod : i) + offset);
  return int_tensor(std::move(sizes), v, dtype);
}

// The 5x5 image (i * 7) % 11 - 5 as [1, 1, 5, 5].
Tensor image(DType dtype = kF32) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < 25; ++i) v.push_back((i * 7) % 11 - 5);
  return int_tensor({1, 1, 5, 5}, v, dtype);
}

void expect_near_1e6(const Reals& got, const Reals& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "at " << i;
}

// sum(a * b) over the elements of two same-shaped tensors.
double inner(const Tensor& a, const Tensor& b) {
  Reals x = reals_of(a), y = reals_of(b);
  EXPECT_EQ(x.size(), y.size());
  double s = 0;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) s += x[i] * y[i];
  return s;
}

// ---- convolution ----

TEST(ConvKernel, Conv2dWithPaddingStrideDilationAndGroups) {
  // x [1, 4, 5, 5], weight [4, 2, 2, 2] in 2 groups, stride (2, 1), padding (1, 0),
  // dilation (1, 2).
  Tensor x = pattern({1, 4, 5, 5}, -3, 7, kF32), w = pattern({4, 2, 2, 2}, -2, 5, kF32);
  Tensor b = int_tensor({4}, {1, -1, 2, -2}, kF32);
  Tensor out =
      call_tensor("aten.conv2d.default", {{"x", x}, {"w", w}, {"b", b}},
                  {T("x"), T("w"), T("b"), Ints({2, 1}), Ints({1, 0}), Ints({1, 2}), I(2)});
  EXPECT_EQ(out.sizes(), (Sizes{1, 4, 3, 3}));
  EXPECT_EQ(out.dtype(), kF32);
  EXPECT_EQ(ints_of(out),
            (Sizes{-1, -1, -1, 1, -2, 2, 13, 10, -7, 2,  13, 10, -10, -9, -8,  -14, 1,   16,
                   -3, 1,  5,  4, -3, 4, -3, 4,  4,  -1, -5, 5,  15,  0,  -15, -9,  -10, -11}));
  // The low-level convolution op computes the same.
  Tensor low = call_tensor("aten.convolution.default", {{"x", x}, {"w", w}, {"b", b}},
                           {T("x"), T("w"), T("b"), Ints({2, 1}), Ints({1, 0}), Ints({1, 2}),
                            B(false), Ints({0, 0}), I(2)});
  EXPECT_EQ(ints_of(low), ints_of(out));
  // Unbatched input: the same values without the batch dim.
  Tensor x3 = x.as_strided({4, 5, 5}, {25, 5, 1}, 0);
  Tensor un = call_tensor("aten.conv2d.default", {{"x", x3}, {"w", w}, {"b", b}},
                          {T("x"), T("w"), T("b"), Ints({2, 1}), Ints({1, 0}), Ints({1, 2}), I(2)});
  EXPECT_EQ(un.sizes(), (Sizes{4, 3, 3}));
  EXPECT_EQ(ints_of(un), ints_of(out));
}

TEST(ConvKernel, TransposedWithOutputPaddingAndGroups) {
  // x [1, 2, 2, 3], weight [2, 1, 3, 2] (2 groups: 2 output channels), stride 2, padding 1,
  // output_padding 1: output [1, 2, 4, 5].
  Tensor x = pattern({1, 2, 2, 3}, -2, 0, kF64), w = pattern({2, 1, 3, 2}, -1, 4, kF64);
  Tensor b = int_tensor({2}, {10, -10}, kF64);
  Tensor out = call_tensor("aten.conv_transpose2d.input", {{"x", x}, {"w", w}, {"b", b}},
                           {T("x"), T("w"), T("b"), I(2), I(1), I(1), I(2)});
  EXPECT_EQ(out.sizes(), (Sizes{1, 2, 4, 5}));
  EXPECT_EQ(ints_of(out), (Sizes{6,  9,  8,   10,  10,  10,  9,   10,  7,   10,  12,  12, 14, 13,
                                 16, 10, 8,   10,  7,   10,  -10, -15, -10, -16, -10, 12, 3,  16,
                                 5,  20, -10, -18, -10, -19, -10, 4,   -2,  6,   -1,  8}));
  Tensor low = call_tensor("aten.convolution.default", {{"x", x}, {"w", w}, {"b", b}},
                           {T("x"), T("w"), T("b"), I(2), I(1), I(1), B(true), I(1), I(2)});
  EXPECT_EQ(ints_of(low), ints_of(out));
}

TEST(ConvKernel, SamePaddingPutsTheOddExtraOnTheRight) {
  // Kernel 4: total padding 3, 1 on the left and 2 on the right.
  Tensor x = int_tensor({1, 1, 5}, {1, 2, 3, 4, 5}, kF32);
  Tensor w = int_tensor({1, 1, 4}, {1, 0, -1, 2}, kF32);
  Tensor out = call_tensor("aten.conv1d.padding", {{"x", x}, {"w", w}},
                           {T("x"), T("w"), None(), I(1), S("same")});
  EXPECT_EQ(out.sizes(), (Sizes{1, 1, 5}));
  EXPECT_EQ(ints_of(out), (Sizes{4, 6, 8, -2, 4}));
  Tensor valid = call_tensor("aten.conv1d.padding", {{"x", x}, {"w", w}},
                             {T("x"), T("w"), None(), I(1), S("valid")});
  EXPECT_EQ(ints_of(valid), (Sizes{6, 8}));  // 1 - 3 + 8, 2 - 4 + 10 (out[1], out[2] above)
  std::string e = run_error([&] {
    call_tensor("aten.conv1d.padding", {{"x", x}, {"w", w}},
                {T("x"), T("w"), None(), I(2), S("same")});
  });
  EXPECT_TRUE(Contains(e, "padding='same' is not supported for strided convolutions")) << e;
}

TEST(ConvKernel, ArgumentErrors) {
  Tensor x = pattern({1, 4, 5, 5}, 0, 0, kF32), w = pattern({4, 3, 2, 2}, 0, 0, kF32);
  std::string e = run_error([&] {
    call_tensor("aten.conv2d.default", {{"x", x}, {"w", w}}, {T("x"), T("w")});
  });
  EXPECT_TRUE(Contains(e, "expected input [1, 4, 5, 5] to have 3 channels, but got 4")) << e;
  Tensor big = pattern({4, 4, 7, 7}, 0, 0, kF32);
  e = run_error([&] {
    call_tensor("aten.conv2d.default", {{"x", x}, {"w", big}}, {T("x"), T("w")});
  });
  EXPECT_TRUE(Contains(e, "Kernel size can't be greater than actual input size")) << e;
  e = run_error([&] {
    call_tensor("aten.conv2d.default", {{"x", x}, {"w", pattern({4, 4, 2, 2}, 0, 0, kF32)}},
                {T("x"), T("w"), None(), I(0)});
  });
  EXPECT_TRUE(Contains(e, "non-positive stride")) << e;
  e = run_error([&] {
    call_tensor("aten.conv_transpose2d.input", {{"x", x}, {"w", pattern({4, 1, 2, 2}, 0, 0, kF32)}},
                {T("x"), T("w"), None(), I(1), I(0), I(1)});
  });
  EXPECT_TRUE(Contains(e, "output padding must be smaller than either stride or dilation")) << e;
}

// convolution_backward agrees with the forward op: the convolution is linear in x and in w, so
// <gy, conv(x, w)> = <gx, x> = <gw, w>; the bias grad sums gy per channel.
void check_conv_backward(const Tensor& x, const Tensor& w, Sizes stride, Sizes padding,
                         Sizes dilation, bool transposed, Sizes output_padding, int64_t groups) {
  std::vector<std::pair<std::string, Tensor>> in = {{"x", x}, {"w", w}};
  Tensor y = call_tensor(
      "aten.convolution.default", in,
      {T("x"), T("w"), None(), Ints(std::vector<long>(stride.begin(), stride.end())),
       Ints(std::vector<long>(padding.begin(), padding.end())),
       Ints(std::vector<long>(dilation.begin(), dilation.end())), B(transposed),
       Ints(std::vector<long>(output_padding.begin(), output_padding.end())), I(groups)});
  Tensor gy = pattern(y.sizes(), -4, 9, x.dtype());
  in.push_back({"gy", gy});
  RValue grads =
      call_kernel("aten.convolution_backward.default", in,
                  {T("gy"), T("x"), T("w"), Ints({y.size(1)}),
                   Ints(std::vector<long>(stride.begin(), stride.end())),
                   Ints(std::vector<long>(padding.begin(), padding.end())),
                   Ints(std::vector<long>(dilation.begin(), dilation.end())), B(transposed),
                   Ints(std::vector<long>(output_padding.begin(), output_padding.end())), I(groups),
                   List({B(true), B(true), B(true)})});
  ASSERT_EQ(grads.items.size(), 3u);
  const Tensor& gx = grads.items[0].tensor;
  const Tensor& gw = grads.items[1].tensor;
  const Tensor& gb = grads.items[2].tensor;
  EXPECT_EQ(gx.sizes(), x.sizes());
  EXPECT_EQ(gw.sizes(), w.sizes());
  const double target = inner(gy, y);
  EXPECT_NE(target, 0);
  EXPECT_EQ(inner(gx, x), target);
  EXPECT_EQ(inner(gw, w), target);
  Reals g = reals_of(gy), sums(static_cast<size_t>(y.size(1)), 0);
  const int64_t per_channel = y.numel() / (y.size(0) * y.size(1));
  for (size_t i = 0; i < g.size(); ++i) sums[(i / per_channel) % sums.size()] += g[i];
  EXPECT_EQ(reals_of(gb), sums);
}

TEST(ConvKernel, BackwardMatchesTheForwardOp) {
  check_conv_backward(pattern({2, 4, 5, 6}, -3, 7, kI64), pattern({6, 2, 3, 2}, -2, 5, kI64),
                      {2, 1}, {1, 0}, {1, 2}, false, {0, 0}, 2);
  check_conv_backward(pattern({1, 2, 3, 4}, -2, 5, kI64), pattern({2, 3, 3, 2}, -1, 4, kI64),
                      {2, 3}, {1, 0}, {1, 1}, true, {1, 2}, 1);
  check_conv_backward(pattern({2, 3, 7}, -3, 8, kI64), pattern({3, 1, 3}, -1, 3, kI64), {2}, {2},
                      {2}, false, {0}, 3);
}

TEST(ConvKernel, BackwardHonoursTheOutputMask) {
  Tensor x = pattern({1, 2, 4, 4}, 0, 0, kF32), w = pattern({3, 2, 3, 3}, 0, 0, kF32);
  Tensor gy = pattern({1, 3, 2, 2}, 0, 0, kF32);
  RValue r =
      call_kernel("aten.convolution_backward.default", {{"gy", gy}, {"x", x}, {"w", w}},
                  {T("gy"), T("x"), T("w"), Ints({3}), Ints({1, 1}), Ints({0, 0}), Ints({1, 1}),
                   B(false), Ints({0, 0}), I(1), List({B(false), B(true), B(false)})});
  EXPECT_EQ(r.str(), "(None, float32[3, 2, 3, 3], None)");
  std::string e = run_error([&] {
    call_kernel("aten.convolution_backward.default", {{"gy", x}, {"x", x}, {"w", w}},
                {T("gy"), T("x"), T("w"), Ints({3}), Ints({1, 1}), Ints({0, 0}), Ints({1, 1}),
                 B(false), Ints({0, 0}), I(1)});
  });
  EXPECT_TRUE(Contains(e, "expected grad_output of size [1, 3, 2, 2]")) << e;
}

// ---- pooling ----

TEST(PoolKernel, MaxPoolCeilModeAddsAPartialWindow) {
  RValue ceil = call_kernel("aten.max_pool2d_with_indices.default", {{"x", image()}},
                            {T("x"), I(2), I(2), I(0), I(1), B(true)});
  ASSERT_EQ(ceil.items.size(), 2u);
  EXPECT_EQ(ceil.items[0].tensor.sizes(), (Sizes{1, 1, 3, 3}));
  EXPECT_EQ(ints_of(ceil.items[0].tensor), (Sizes{4, 5, 3, 1, 4, 5, 3, 2, -2}));
  EXPECT_EQ(ceil.items[1].tensor.dtype(), kI64);
  EXPECT_EQ(ints_of(ceil.items[1].tensor), (Sizes{6, 3, 9, 15, 17, 14, 20, 23, 24}));
  Tensor floor = call_tensor("aten.max_pool2d.default", {{"x", image()}}, {T("x"), I(2), I(2)});
  EXPECT_EQ(floor.sizes(), (Sizes{1, 1, 2, 2}));
  EXPECT_EQ(ints_of(floor), (Sizes{4, 5, 1, 4}));
  // Padding with dilation: kernel 3, stride 2, padding 1, dilation (2, 1).
  RValue dil = call_kernel("aten.max_pool2d_with_indices.default", {{"x", image()}},
                           {T("x"), I(3), I(2), I(1), Ints({2, 1}), B(true)});
  EXPECT_EQ(dil.items[0].tensor.sizes(), (Sizes{1, 1, 2, 3}));
  EXPECT_EQ(ints_of(dil.items[0].tensor), (Sizes{4, 4, 3, 4, 4, 3}));
  EXPECT_EQ(ints_of(dil.items[1].tensor), (Sizes{6, 6, 9, 6, 6, 9}));
}

TEST(PoolKernel, MaxPoolPropagatesNaNAndHandlesIntegers) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = real_tensor({1, 4}, {1, nan, 3, 2});
  RValue r = call_kernel("aten.max_pool1d_with_indices.default", {{"x", x}}, {T("x"), I(2)});
  Reals v = reals_of(r.items[0].tensor);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 3);
  EXPECT_EQ(ints_of(r.items[1].tensor), (Sizes{1, 2}));
  // int64 values beyond 2^53 compare exactly.
  const int64_t big = (int64_t{1} << 60) + 1;
  Tensor ints = int_tensor({1, 2}, {big, big - 1});
  EXPECT_EQ(ints_of(call_tensor("aten.max_pool1d.default", {{"x", ints}}, {T("x"), I(2)})),
            (Sizes{big}));
}

TEST(PoolKernel, AvgPoolPaddingDivisors) {
  // kernel 3, stride 2, padding 1 on the 5x5 image: the padded positions count in the divisor
  // with count_include_pad (the default), not without, and divisor_override replaces both.
  Tensor incl =
      call_tensor("aten.avg_pool2d.default", {{"x", image()}}, {T("x"), I(3), I(2), I(1), B(true)});
  EXPECT_EQ(incl.sizes(), (Sizes{1, 1, 3, 3}));
  expect_near_1e6(reals_of(incl), {-2.0 / 9, 5.0 / 9, 5.0 / 9, -7.0 / 9, -4.0 / 9, -2.0 / 9, 0,
                                   -3.0 / 9, -4.0 / 9});
  Tensor excl = call_tensor("aten.avg_pool2d.default", {{"x", image()}},
                            {T("x"), I(3), I(2), I(1), B(true), B(false)});
  expect_near_1e6(reals_of(excl), {-0.5, 5.0 / 6, 1.25, -7.0 / 6, -4.0 / 9, -1.0 / 3, 0, -0.5, -1});
  Tensor div = call_tensor("aten.avg_pool2d.default", {{"x", image()}},
                           {T("x"), I(3), I(2), I(1), B(false), B(true), I(2)});
  expect_near_1e6(reals_of(div), {-1, 2.5, 2.5, -3.5, -2, -1, 0, -1.5, -2});
  // ceil_mode with kernel 2 on 5: the last window holds one column, its divisor is 2 (it is
  // clipped to input + padding, not to the kernel).
  Tensor ceil =
      call_tensor("aten.avg_pool2d.default", {{"x", image()}}, {T("x"), I(2), I(2), I(0), B(true)});
  EXPECT_EQ(ceil.sizes(), (Sizes{1, 1, 3, 3}));
  expect_near_1e6(reals_of(ceil), {-0.5, -0.25, 2, -2, 1, 0.5, 1, -1.5, -2});
  // Integer inputs divide with truncation toward zero: the window sums are -2, -1, -8 and 4.
  Tensor ints = call_tensor("aten.avg_pool2d.default", {{"x", image(kI64)}}, {T("x"), I(2)});
  EXPECT_EQ(ints.dtype(), kI64);
  EXPECT_EQ(ints_of(ints), (Sizes{0, 0, -2, 1}));
  std::string e = run_error([&] {
    call_tensor("aten.avg_pool2d.default", {{"x", image()}},
                {T("x"), I(2), I(2), I(0), B(false), B(true), I(0)});
  });
  EXPECT_TRUE(Contains(e, "divisor must be not zero")) << e;
  e = run_error([&] {
    call_tensor("aten.avg_pool2d.default", {{"x", image()}}, {T("x"), I(2), I(1), I(2)});
  });
  EXPECT_TRUE(Contains(e, "pad should be at most half of kernel size")) << e;
}

TEST(PoolKernel, AdaptivePoolsUseOverlappingWindows) {
  // 5 -> 3 rows: windows [0, 2), [1, 4), [3, 5); 5 -> 2 columns: [0, 3), [2, 5).
  Tensor avg =
      call_tensor("aten.adaptive_avg_pool2d.default", {{"x", image()}}, {T("x"), Ints({3, 2})});
  EXPECT_EQ(avg.sizes(), (Sizes{1, 1, 3, 2}));
  expect_near_1e6(reals_of(avg), {-2.0 / 3, 0.5, -1.0 / 9, 4.0 / 9, -1.0 / 6, -5.0 / 6});
  RValue max =
      call_kernel("aten.adaptive_max_pool2d.default", {{"x", image()}}, {T("x"), Ints({3, 2})});
  EXPECT_EQ(ints_of(max.items[0].tensor), (Sizes{4, 5, 4, 5, 4, 4}));
  EXPECT_EQ(ints_of(max.items[1].tensor), (Sizes{6, 3, 6, 14, 17, 17}));
  // Output size 0 makes an empty result.
  EXPECT_EQ(
      call_tensor("aten._adaptive_avg_pool2d.default", {{"x", image()}}, {T("x"), Ints({0, 2})})
          .sizes(),
      (Sizes{1, 1, 0, 2}));
}

TEST(PoolKernel, HugeKernelAndPaddingDoNotLoopOrOverflow) {
  // kernel 2^40 with padding 2^39 on 3 elements: 4 windows, each covering the whole input.
  const long k = long{1} << 40;
  Tensor x = int_tensor({1, 3}, {1, 5, 2}, kF32);
  Tensor m = call_tensor("aten.max_pool1d.default", {{"x", x}}, {T("x"), I(k), I(1), I(k / 2)});
  EXPECT_EQ(ints_of(m), (Sizes{5, 5, 5, 5}));
  Tensor a = call_tensor("aten.avg_pool1d.default", {{"x", x}},
                         {T("x"), I(k), I(1), I(k / 2), B(false), B(false)});
  expect_near_1e6(reals_of(a), {8.0 / 3, 8.0 / 3, 8.0 / 3, 8.0 / 3});
  // A convolution whose connection table would be huge is refused.
  Tensor big = Tensor::zeros(kF32, {1, 1, 1, int64_t{1} << 20});
  Tensor w = Tensor::zeros(kF32, {1, 1, 1, int64_t{1} << 19});
  std::string e = run_error([&] {
    call_tensor("aten.conv2d.default", {{"x", big}, {"w", w}}, {T("x"), T("w")});
  });
  EXPECT_TRUE(Contains(e, "too much work for the interpreter")) << e;
}

TEST(PoolKernel, BackwardOpsAreTheTransposeOfTheForward) {
  Tensor x = pattern({2, 3, 5, 6}, -4, 9, kF64);
  // max pool: <gy, maxpool(x)> = <gx, x> (the grad goes to the picked elements).
  RValue fwd = call_kernel("aten.max_pool2d_with_indices.default", {{"x", x}},
                           {T("x"), I(3), I(2), I(1), I(1), B(true)});
  const Tensor& y = fwd.items[0].tensor;
  Tensor gy = pattern(y.sizes(), -2, 5, kF64);
  Tensor gx = call_tensor("aten.max_pool2d_with_indices_backward.default",
                          {{"gy", gy}, {"x", x}, {"i", fwd.items[1].tensor}},
                          {T("gy"), T("x"), I(3), I(2), I(1), I(1), B(true), T("i")});
  EXPECT_EQ(gx.sizes(), x.sizes());
  EXPECT_EQ(inner(gx, x), inner(gy, y));
  // avg pool (linear): <gy, avgpool(x)> = <gx, x>.
  std::vector<Arg> params = {I(3), I(2), I(1), B(true), B(false)};
  std::vector<Arg> fargs = {T("x")};
  fargs.insert(fargs.end(), params.begin(), params.end());
  Tensor ya = call_tensor("aten.avg_pool2d.default", {{"x", x}}, fargs);
  Tensor gya = pattern(ya.sizes(), -3, 7, kF64);
  std::vector<Arg> bargs = {T("gy"), T("x")};
  bargs.insert(bargs.end(), params.begin(), params.end());
  Tensor gxa = call_tensor("aten.avg_pool2d_backward.default", {{"gy", gya}, {"x", x}}, bargs);
  EXPECT_NEAR(inner(gxa, x), inner(gya, ya), 1e-9);
  EXPECT_NE(inner(gya, ya), 0);
  // adaptive avg and max.
  Tensor yd = call_tensor("aten.adaptive_avg_pool2d.default", {{"x", x}}, {T("x"), Ints({4, 4})});
  Tensor gyd = pattern(yd.sizes(), -3, 7, kF64);
  Tensor gxd = call_tensor("aten._adaptive_avg_pool2d_backward.default", {{"gy", gyd}, {"x", x}},
                           {T("gy"), T("x")});
  EXPECT_NEAR(inner(gxd, x), inner(gyd, yd), 1e-9);
  RValue ym = call_kernel("aten.adaptive_max_pool2d.default", {{"x", x}}, {T("x"), Ints({4, 4})});
  Tensor gxm =
      call_tensor("aten.adaptive_max_pool2d_backward.default",
                  {{"gy", gyd}, {"x", x}, {"i", ym.items[1].tensor}}, {T("gy"), T("x"), T("i")});
  EXPECT_EQ(inner(gxm, x), inner(gyd, ym.items[0].tensor));
  // Indices out of range are refused.
  Tensor bad = int_tensor(y.sizes(), std::vector<int64_t>(static_cast<size_t>(y.numel()), 30));
  std::string e = run_error([&] {
    call_tensor("aten.max_pool2d_with_indices_backward.default", {{"gy", gy}, {"x", x}, {"i", bad}},
                {T("gy"), T("x"), I(3), I(2), I(1), I(1), B(true), T("i")});
  });
  EXPECT_TRUE(Contains(e, "index 30 is out of range")) << e;
}

// ---- property-test cases ----

// Spatial sizes h, w in [lo, 12] so that every window fits; batch n and channels free.
std::vector<std::pair<std::string, DimDecl>> image_dims(long lo) {
  return {Dim("n", 2, 1, 3), Dim("h", std::max(8L, lo), lo, 12), Dim("w", std::max(7L, lo), lo, 12),
          Dim("d", std::max(5L, lo), lo, 7)};
}

OpCase pool_case(const std::string& name, std::vector<std::string> shape, const std::string& target,
                 std::vector<Arg> params, long lo = 4) {
  std::vector<Arg> args = {T("x")};
  args.insert(args.end(), params.begin(), params.end());
  return {name, {in("x", std::move(shape))}, {{"op", target, std::move(args)}}, image_dims(lo)};
}

OpCase conv_case(const std::string& name, std::vector<std::string> x, std::vector<std::string> w,
                 bool bias, const std::string& target, std::vector<Arg> params, long lo = 4) {
  std::vector<Input> inputs = {in("x", std::move(x)), in("wt", std::move(w))};
  std::vector<Arg> args = {T("x"), T("wt")};
  if (bias) {
    inputs.push_back(in("bias", {"o"}));
    args.push_back(T("bias"));
  } else {
    args.push_back(None());
  }
  args.insert(args.end(), params.begin(), params.end());
  auto dims = image_dims(lo);
  dims.push_back(Dim("o", 4, 1, 6));
  return {name, std::move(inputs), {{"op", target, std::move(args)}}, std::move(dims)};
}

// A forward pool, then its backward op on grad = the forward output.
OpCase pool_backward_case(const std::string& name, const std::string& forward,
                          std::vector<Arg> params, const std::string& backward,
                          std::vector<Arg> backward_params, bool indices) {
  std::vector<Arg> fargs = {T("x")};
  fargs.insert(fargs.end(), params.begin(), params.end());
  std::vector<Call> calls = {{"fwd", forward, fargs}};
  Arg grad = T("fwd");
  if (indices) {
    calls.push_back({"vals", "operator.getitem", {T("fwd"), I(0)}});
    calls.push_back({"idx", "operator.getitem", {T("fwd"), I(1)}});
    grad = T("vals");
  }
  std::vector<Arg> bargs = {grad, T("x")};
  bargs.insert(bargs.end(), backward_params.begin(), backward_params.end());
  if (indices) bargs.push_back(T("idx"));
  calls.push_back({"op", backward, bargs});
  return {name, {in("x", {"n", "3", "h", "w"})}, std::move(calls), image_dims(4)};
}

}  // namespace

std::vector<OpCase> conv_pool_cases() {
  const std::vector<std::string> img = {"n", "3", "h", "w"};
  std::vector<OpCase> cases = {
      conv_case("convolution", img, {"o", "3", "3", "3"}, true, "aten.convolution.default",
                {Ints({2, 1}), Ints({1, 0}), Ints({1, 2}), B(false), Ints({0, 0}), I(1)}, 6),
      conv_case("convolution.transposed", img, {"3", "2", "3", "2"}, false,
                "aten.convolution.default",
                {Ints({2, 3}), Ints({1, 0}), Ints({1, 1}), B(true), Ints({1, 2}), I(3)}),
      conv_case("_convolution", img, {"6", "1", "3", "3"}, false, "aten._convolution.default",
                {Ints({1, 1}), Ints({1, 1}), Ints({1, 1}), B(false), Ints({0, 0}), I(3), B(false),
                 B(false), B(true), B(true)}),
      conv_case("conv1d", {"n", "3", "w"}, {"o", "3", "3"}, true, "aten.conv1d.default",
                {I(2), I(1), I(2)}),
      conv_case("conv1d.unbatched_same", {"3", "w"}, {"o", "3", "4"}, false, "aten.conv1d.padding",
                {I(1), S("same"), I(2)}),
      conv_case("conv2d", img, {"o", "3", "3", "2"}, true, "aten.conv2d.default",
                {Ints({2, 1}), Ints({1, 0}), Ints({1, 2})}, 6),
      conv_case("conv2d.groups", {"n", "6", "h", "w"}, {"6", "2", "3", "3"}, false,
                "aten.conv2d.default", {I(1), I(0), I(1), I(3)}),
      conv_case("conv2d.valid", img, {"o", "3", "2", "2"}, false, "aten.conv2d.padding",
                {I(1), S("valid")}),
      conv_case("conv3d", {"n", "2", "d", "h", "w"}, {"o", "2", "2", "3", "2"}, true,
                "aten.conv3d.default", {I(2), I(1), I(1)}),
      conv_case("conv_transpose1d", {"n", "3", "w"}, {"3", "o", "3"}, true,
                "aten.conv_transpose1d.default", {I(2), I(1), I(1)}),
      conv_case("conv_transpose2d", img, {"3", "2", "3", "2"}, false, "aten.conv_transpose2d.input",
                {Ints({2, 1}), Ints({1, 0}), Ints({1, 0}), I(3), I(2)}),
      conv_case("conv_transpose3d.unbatched", {"2", "d", "h", "w"}, {"2", "o", "2", "2", "2"}, true,
                "aten.conv_transpose3d.input", {I(1), I(0), I(0), I(1), I(1)}),
      {"convolution_backward",
       {in("g", {"n", "8", "h", "w"}), in("x", img), in("wt", {"8", "3", "3", "3"})},
       {{"op",
         "aten.convolution_backward.default",
         {T("g"), T("x"), T("wt"), Ints({8}), Ints({1, 1}), Ints({1, 1}), Ints({1, 1}), B(false),
          Ints({0, 0}), I(1), List({B(true), B(true), B(true)})}}},
       image_dims(4)},
      {"convolution_backward.mask",
       {in("g", {"n", "4", "h", "w"}), in("x", {"n", "2", "h", "w"}),
        in("wt", {"4", "1", "1", "1"})},
       {{"op",
         "aten.convolution_backward.default",
         {T("g"), T("x"), T("wt"), Ints({4}), Ints({1, 1}), Ints({0, 0}), Ints({1, 1}), B(false),
          Ints({0, 0}), I(2), List({B(true), B(false), B(true)})}}},
       image_dims(4)},
      pool_case("max_pool1d", {"n", "3", "w"}, "aten.max_pool1d.default", {I(3), I(2), I(1)}),
      pool_case("max_pool2d", img, "aten.max_pool2d.default", {I(3), I(2), I(1), I(1), B(true)}),
      pool_case("max_pool2d.dilated", {"3", "h", "w"}, "aten.max_pool2d.default",
                {Ints({3, 2}), Ints({2, 1}), Ints({1, 0}), Ints({2, 1}), B(true)}, 6),
      pool_case("max_pool3d", {"n", "2", "d", "h", "w"}, "aten.max_pool3d.default",
                {I(2), Ints({}), I(0), I(1), B(true)}),
      pool_case("max_pool1d_with_indices", {"n", "3", "w"}, "aten.max_pool1d_with_indices.default",
                {I(2), I(3), I(1), I(1), B(true)}),
      pool_case("max_pool2d_with_indices", img, "aten.max_pool2d_with_indices.default",
                {I(2), I(2), I(0), I(1), B(true)}),
      pool_case("max_pool3d_with_indices", {"2", "d", "h", "w"},
                "aten.max_pool3d_with_indices.default", {I(3), I(2), I(1)}),
      pool_case("avg_pool1d", {"n", "3", "w"}, "aten.avg_pool1d.default",
                {I(3), I(2), I(1), B(true), B(false)}),
      pool_case("avg_pool2d", img, "aten.avg_pool2d.default", {I(3), I(2), I(1), B(true)}),
      pool_case("avg_pool2d.divisor", img, "aten.avg_pool2d.default",
                {Ints({2, 3}), Ints({1, 2}), Ints({0, 1}), B(false), B(true), I(5)}),
      pool_case("avg_pool3d", {"n", "2", "d", "h", "w"}, "aten.avg_pool3d.default",
                {I(2), I(2), I(1), B(false), B(false)}),
      pool_case("adaptive_avg_pool1d", {"n", "3", "w"}, "aten.adaptive_avg_pool1d.default",
                {Ints({3})}),
      pool_case("adaptive_avg_pool2d", img, "aten.adaptive_avg_pool2d.default", {Ints({3, 5})}),
      pool_case("adaptive_avg_pool3d", {"n", "2", "d", "h", "w"},
                "aten.adaptive_avg_pool3d.default", {Ints({2, 3, 1})}),
      pool_case("_adaptive_avg_pool2d", img, "aten._adaptive_avg_pool2d.default", {Ints({4, 4})}),
      pool_case("_adaptive_avg_pool3d", {"2", "d", "h", "w"}, "aten._adaptive_avg_pool3d.default",
                {Ints({3, 2, 2})}),
      pool_case("adaptive_max_pool1d", {"n", "3", "w"}, "aten.adaptive_max_pool1d.default",
                {Ints({3})}),
      pool_case("adaptive_max_pool2d", img, "aten.adaptive_max_pool2d.default", {Ints({3, 5})}),
      pool_case("adaptive_max_pool3d", {"n", "2", "d", "h", "w"},
                "aten.adaptive_max_pool3d.default", {Ints({2, 2, 3})}),
  };
  // ATen has pool backward ops for 2-d and 3-d only (its 1-d pools are composite).
  const std::vector<std::pair<std::string, int>> ranks = {{"2d", 2}, {"3d", 3}};
  for (const auto& [d, n] : ranks) {
    // Input [n, 3, *spatial] with the spatial dims of rank n.
    std::vector<std::string> shape = {"n", "3"};
    const std::vector<std::string> spatial = {"d", "h", "w"};
    shape.insert(shape.end(), spatial.end() - n, spatial.end());
    auto with_shape = [&](OpCase c) {
      c.inputs[0].shape = shape;
      return c;
    };
    cases.push_back(with_shape(pool_backward_case(
        "max_pool" + d + "_with_indices_backward", "aten.max_pool" + d + "_with_indices.default",
        {I(3), I(2), I(1), I(1), B(true)}, "aten.max_pool" + d + "_with_indices_backward.default",
        {I(3), I(2), I(1), I(1), B(true)}, true)));
    cases.push_back(with_shape(pool_backward_case(
        "avg_pool" + d + "_backward", "aten.avg_pool" + d + ".default",
        {I(3), I(2), I(1), B(true), B(false)}, "aten.avg_pool" + d + "_backward.default",
        {I(3), I(2), I(1), B(true), B(false), None()}, false)));
    cases.push_back(with_shape(pool_backward_case(
        "_adaptive_avg_pool" + d + "_backward", "aten._adaptive_avg_pool" + d + ".default",
        {Ints(std::vector<long>(static_cast<size_t>(n), 2))},
        "aten._adaptive_avg_pool" + d + "_backward.default", {}, false)));
    cases.push_back(with_shape(pool_backward_case(
        "adaptive_max_pool" + d + "_backward", "aten.adaptive_max_pool" + d + ".default",
        {Ints(std::vector<long>(static_cast<size_t>(n), 3))},
        "aten.adaptive_max_pool" + d + "_backward.default", {}, true)));
  }
  return cases;
}

}  // namespace symshape::testing
