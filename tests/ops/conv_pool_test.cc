// Shape rules of convolutions and pooling.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace symshape::testing {
namespace {

const Input kImage = tensor("x", {"batch", "3", "h", "w"});

// conv2d(x, weight, bias=None, stride, padding, dilation, groups).
OpRun conv2d(const Input& x, std::vector<std::string> weight, std::vector<Arg> params,
             std::vector<std::pair<std::string, DimDecl>> dims = {}) {
  std::vector<Arg> args = {T(x.name), T("wt"), None()};
  bool padding_string = false;  // conv2d.padding takes "same" / "valid" where conv2d takes ints
  for (Arg& a : params) {
    padding_string |= a.kind == Arg::Kind::String;
    args.push_back(std::move(a));
  }
  return run_op({x, tensor("wt", std::move(weight))},
                padding_string ? "aten.conv2d.padding" : "aten.conv2d.default", std::move(args), {},
                std::move(dims));
}

// ---- convolution ----

TEST(Conv2d, SymbolicSpatialSizesStrideTwo) {
  OpRun r = conv2d(kImage, {"16", "3", "3", "3"}, {Ints({2}), Ints({1})});
  ASSERT_TRUE(r.ok()) << r.error();
  // (h + 2*1 - 1*(3 - 1) - 1)//2 + 1, which the simplifier writes as (h + 1)//2.
  EXPECT_EQ(r.str(), "float32[batch, 16, (h + 1)//2, (w + 1)//2]");
  EXPECT_TRUE(r.guards().empty());
}

TEST(Conv2d, SymbolicSizesWithoutPadding) {
  OpRun r = conv2d(kImage, {"8", "3", "5", "3"}, {Ints({3, 1}), Ints({0})});
  ASSERT_TRUE(r.ok()) << r.error();
  // (h - 5)//3 + 1, in the simplifier's form.
  EXPECT_EQ(r.str(), "float32[batch, 8, (h - 2)//3, w - 2]");
  // The kernel must fit: h >= 5 is not known from h's range [2, inf], so it is guarded.
  EXPECT_EQ(r.guards(), (std::vector<std::string>{"h >= 5", "w >= 3"}));
}

TEST(Conv2d, ConcreteResNetStem) {
  OpRun r = conv2d(tensor("x", {"1", "3", "224", "224"}), {"64", "3", "7", "7"},
                   {Ints({2, 2}), Ints({3, 3}), Ints({1, 1}), I(1)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[1, 64, 112, 112]");
}

TEST(Conv2d, DilationAndBias) {
  OpRun r = run_op(
      {tensor("x", {"2", "4", "32", "32"}), tensor("wt", {"6", "4", "3", "3"}), tensor("b", {"6"})},
      "aten.conv2d.default", {T("x"), T("wt"), T("b"), I(1), I(2), I(2)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[2, 6, 32, 32]");
  OpRun bad = run_op(
      {tensor("x", {"2", "4", "32", "32"}), tensor("wt", {"6", "4", "3", "3"}), tensor("b", {"5"})},
      "aten.conv2d.default", {T("x"), T("wt"), T("b")});
  EXPECT_EQ(bad.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(bad.error(),
                       "expected bias to be 1-dimensional with 6 elements, but got "
                       "bias of size [5] instead"));
}

TEST(Conv2d, UnbatchedInput) {
  OpRun r = conv2d(tensor("x", {"3", "h", "w"}), {"16", "3", "3", "3"}, {Ints({1}), Ints({1})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[16, h, w]");
  OpRun bad = conv2d(tensor("x", {"h", "w"}), {"16", "3", "3", "3"}, {});
  EXPECT_EQ(bad.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(bad.error(), "conv2d: expected 3-D (unbatched) or 4-D (batched) input"));
}

TEST(Conv2d, PaddingStrings) {
  OpRun same = conv2d(kImage, {"16", "3", "5", "5"}, {I(1), S("same")});
  ASSERT_TRUE(same.ok()) << same.error();
  EXPECT_EQ(same.str(), "float32[batch, 16, h, w]");
  OpRun valid = conv2d(kImage, {"16", "3", "3", "3"}, {I(1), S("valid")});
  ASSERT_TRUE(valid.ok()) << valid.error();
  EXPECT_EQ(valid.str(), "float32[batch, 16, h - 2, w - 2]");
  OpRun strided = conv2d(kImage, {"16", "3", "3", "3"}, {I(2), S("same")});
  EXPECT_EQ(strided.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(strided.error(), "padding='same' is not supported for strided"));
  EXPECT_EQ(conv2d(kImage, {"16", "3", "3", "3"}, {I(1), S("full")}).result.status,
            Propagation::Status::InputError);
}

TEST(Conv2d, GroupsMismatchNamesTheNodeAndShapes) {
  OpRun r = conv2d(kImage, {"16", "3", "3", "3"}, {I(1), I(0), I(1), I(2)});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_EQ(r.error(),
            "node op (aten.conv2d.default): conv2d: given groups=2, weight of size [16, 3, 3, 3], "
            "expected input [batch, 3, h, w] to have 6 channels, but got 3 channels instead");
}

TEST(Conv2d, GroupedAndDepthwise) {
  OpRun grouped =
      conv2d(tensor("x", {"n", "32", "h", "w"}), {"64", "8", "3", "3"}, {I(1), I(1), I(1), I(4)});
  ASSERT_TRUE(grouped.ok()) << grouped.error();
  EXPECT_EQ(grouped.str(), "float32[n, 64, h, w]");
  OpRun depthwise =
      conv2d(tensor("x", {"n", "32", "h", "w"}), {"32", "1", "3", "3"}, {I(2), I(1), I(1), I(32)});
  EXPECT_EQ(depthwise.str(), "float32[n, 32, (h + 1)//2, (w + 1)//2]");
  OpRun indivisible =
      conv2d(tensor("x", {"n", "30", "h", "w"}), {"20", "10", "3", "3"}, {I(1), I(1), I(1), I(3)});
  EXPECT_EQ(indivisible.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(indivisible.error(),
                       "expected weight to be divisible by 3 at dimension 0, but got weight of "
                       "size [20, 10, 3, 3] instead"));
}

TEST(Conv2d, ChannelsOfSymbolicInputAreGuarded) {
  OpRun r =
      conv2d(tensor("x", {"n", "c", "h", "w"}), {"16", "3", "3", "3"}, {I(1), I(1)}, {Dim("c", 3)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.guards(), std::vector<std::string>{"c == 3"});
}

TEST(Conv2d, KernelLargerThanPaddedInputIsAShapeError) {
  OpRun r = conv2d(tensor("x", {"1", "3", "4", "4"}), {"8", "3", "7", "7"}, {I(1), I(1)});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(),
                       "conv2d: calculated padded input size per channel: (6 x 6). "
                       "Kernel size: (7 x 7). Kernel size can't be greater than actual "
                       "input size"));
}

TEST(Conv2d, BadParametersAreBadInput) {
  EXPECT_TRUE(Contains(conv2d(kImage, {"16", "3", "3", "3"}, {I(0)}).error(),
                       "non-positive stride is not supported"));
  EXPECT_TRUE(Contains(conv2d(kImage, {"16", "3", "3", "3"}, {I(1), I(-1)}).error(),
                       "negative padding is not supported"));
  EXPECT_TRUE(Contains(conv2d(kImage, {"16", "3", "3", "3"}, {I(1), I(0), I(1), I(0)}).error(),
                       "non-positive groups is not supported"));
  EXPECT_TRUE(Contains(conv2d(kImage, {"16", "3", "3", "3"}, {Ints({1, 1, 1})}).error(),
                       "stride must be a single int or 2 ints, got [1, 1, 1]"));
  EXPECT_EQ(conv2d(kImage, {"16", "3", "3"}, {}).result.status, Propagation::Status::InputError);
  OpRun dtypes = run_op({kImage, tensor("wt", {"16", "3", "3", "3"}, DType::Float16)},
                        "aten.conv2d.default", {T("x"), T("wt")});
  EXPECT_TRUE(Contains(dtypes.error(), "input type (float32) and weight type (float16) should be"));
}

TEST(Conv1dAnd3d, SpatialRanks) {
  OpRun c1 = run_op({tensor("x", {"n", "4", "t"}), tensor("wt", {"8", "4", "3"})},
                    "aten.conv1d.default", {T("x"), T("wt"), None(), I(1), I(1)});
  ASSERT_TRUE(c1.ok()) << c1.error();
  EXPECT_EQ(c1.str(), "float32[n, 8, t]");
  OpRun c3 =
      run_op({tensor("x", {"n", "2", "d", "8", "8"}), tensor("wt", {"4", "2", "3", "3", "3"})},
             "aten.conv3d.default", {T("x"), T("wt"), None(), I(2)});
  ASSERT_TRUE(c3.ok()) << c3.error();
  EXPECT_EQ(c3.str(), "float32[n, 4, (d - 1)//2, 3, 3]");
}

TEST(Convolution, TransposedDoublesTheSize) {
  // (h - 1)*2 - 2*1 + 1*(4 - 1) + 0 + 1 == 2*h
  OpRun r = run_op({tensor("x", {"b", "16", "h", "w"}), tensor("wt", {"16", "8", "4", "4"})},
                   "aten.convolution.default",
                   {T("x"), T("wt"), None(), Ints({2, 2}), Ints({1, 1}), Ints({1, 1}), B(true),
                    Ints({0, 0}), I(1)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[b, 8, 2*h, 2*w]");
}

TEST(Convolution, TransposedWithOutputPaddingAndGroups) {
  OpRun r =
      run_op({tensor("x", {"b", "16", "h", "7"}), tensor("wt", {"16", "4", "3", "3"})},
             "aten.conv_transpose2d.input", {T("x"), T("wt"), None(), I(2), I(1), I(1), I(2)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[b, 8, 2*h, 14]");
  OpRun bad_padding =
      run_op({tensor("x", {"b", "16", "h", "7"}), tensor("wt", {"16", "4", "3", "3"})},
             "aten.conv_transpose2d.input", {T("x"), T("wt"), None(), I(1), I(0), I(1)});
  EXPECT_EQ(bad_padding.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(bad_padding.error(),
                       "output padding must be smaller than either stride or dilation"));
  OpRun channels = run_op({tensor("x", {"b", "8", "h", "7"}), tensor("wt", {"16", "4", "3", "3"})},
                          "aten.conv_transpose2d.input", {T("x"), T("wt")});
  EXPECT_TRUE(Contains(channels.error(),
                       "given transposed=1, weight of size [16, 4, 3, 3], "
                       "expected input [b, 8, h, 7] to have 16 channels, but "
                       "got 8 channels instead"));
}

TEST(Convolution, LowLevelOpNeedsABatch) {
  OpRun r = run_op({tensor("x", {"3", "8", "8"}), tensor("wt", {"4", "3", "3", "3"})},
                   "aten.convolution.default",
                   {T("x"), T("wt"), None(), Ints({1, 1}), Ints({0, 0}), Ints({1, 1}), B(false),
                    Ints({0, 0}), I(1)});
  EXPECT_EQ(r.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(r.error(), "expected 4-D (batched) input for weight [4, 3, 3, 3]"));
}

TEST(Convolution, BackwardHonoursTheOutputMask) {
  OpRun r = run_op({tensor("g", {"b", "8", "h", "w"}), tensor("x", {"b", "3", "h", "w"}),
                    tensor("wt", {"8", "3", "3", "3"})},
                   "aten.convolution_backward.default",
                   {T("g"), T("x"), T("wt"), Ints({8}), Ints({1, 1}), Ints({1, 1}), Ints({1, 1}),
                    B(false), Ints({0, 0}), I(1), List({B(true), B(false), B(true)})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float32[b, 3, h, w], None, float32[8])");
}

// ---- pooling ----

OpRun pool(const std::string& target, const Input& x, std::vector<Arg> params,
           std::vector<std::pair<std::string, DimDecl>> dims = {}) {
  std::vector<Arg> args = {T(x.name)};
  for (Arg& a : params) args.push_back(std::move(a));
  return run_op({x}, target, std::move(args), {}, std::move(dims));
}

TEST(MaxPool2d, SymbolicSizes) {
  OpRun r = pool("aten.max_pool2d.default", kImage, {I(3), I(2), I(1)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, 3, (h + 1)//2, (w + 1)//2]");
  EXPECT_TRUE(r.guards().empty());
}

TEST(MaxPool2d, StrideDefaultsToTheKernel) {
  EXPECT_EQ(pool("aten.max_pool2d.default", kImage, {Ints({2, 2}), Ints({})}).str(),
            "float32[batch, 3, h//2, w//2]");
  EXPECT_EQ(pool("aten.max_pool2d.default", kImage, {I(2)}).str(), "float32[batch, 3, h//2, w//2]");
}

TEST(MaxPool2d, CeilModeConcrete) {
  const Input x = tensor("x", {"1", "1", "6", "5"});
  // Height: ceil((6 - 3)/2) + 1 = 3 where floor gives 2. Width with padding 1, kernel 2:
  // ceil((5 + 2 - 2)/2) + 1 = 4, but the last window would start at 6 >= 5 + 1: 3.
  EXPECT_EQ(pool("aten.max_pool2d.default", x, {I(3), I(2), I(0), I(1), B(false)}).str(),
            "float32[1, 1, 2, 2]");
  EXPECT_EQ(pool("aten.max_pool2d.default", x, {I(3), I(2), I(0), I(1), B(true)}).str(),
            "float32[1, 1, 3, 2]");
  EXPECT_EQ(
      pool("aten.max_pool2d.default", x, {Ints({2, 2}), I(2), Ints({0, 1}), I(1), B(true)}).str(),
      "float32[1, 1, 3, 3]");
}

TEST(MaxPool2d, CeilModeSymbolic) {
  // Kernel 3, stride 2: ceil((h - 3)/2) + 1, i.e. h//2 (no adjustment can apply without padding
  // when kernel >= stride, which the engine proves).
  OpRun r = pool("aten.max_pool2d.default", kImage, {I(3), I(2), I(0), I(1), B(true)},
                 {Dim("h", 9), Dim("w", 9)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, 3, h//2, w//2]");
  for (const std::string& g : r.guards()) EXPECT_FALSE(Contains(g, "//")) << g;
}

TEST(MaxPool2d, CeilModeAdjustmentIsDecidedOnTheHint) {
  // Kernel 1, stride 2: out = ceil((h - 1)/2) + 1, and the last window, starting at
  // (out - 1)*2, lies outside the input exactly when h is even. That depends on h's parity,
  // so the rule decides on the hint and guards it.
  auto run = [](long hint) {
    return pool("aten.max_pool2d.default", tensor("x", {"1", "1", "h", "4"}),
                {I(1), I(2), I(0), I(1), B(true)}, {Dim("h", hint)});
  };
  OpRun odd = run(7);
  ASSERT_TRUE(odd.ok()) << odd.error();
  EXPECT_EQ(odd.str(), "float32[1, 1, h//2 + 1, 2]");
  EXPECT_EQ(odd.guards(), std::vector<std::string>{"2*(h//2) < h"});
  OpRun even = run(8);
  ASSERT_TRUE(even.ok()) << even.error();
  EXPECT_EQ(even.str(), "float32[1, 1, h//2, 2]");
  EXPECT_EQ(even.guards(), std::vector<std::string>{"2*(h//2) >= h"});
}

TEST(MaxPool2d, CeilModeWithPaddingSymbolic) {
  // Kernel 2, stride 2, padding 1: ceil(h/2) + 1 windows, the last dropped when h is odd.
  auto run = [](long hint) {
    return pool("aten.max_pool2d.default", tensor("x", {"1", "1", "h", "4"}),
                {I(2), I(2), I(1), I(1), B(true)}, {Dim("h", hint)});
  };
  OpRun odd = run(7);
  EXPECT_EQ(odd.str(), "float32[1, 1, (h + 1)//2, 3]");
  EXPECT_EQ(odd.guards(), std::vector<std::string>{"2*((h + 1)//2) >= h + 1"});
  OpRun even = run(8);
  EXPECT_EQ(even.str(), "float32[1, 1, (h + 3)//2, 3]");
  EXPECT_EQ(even.guards(), std::vector<std::string>{"2*((h + 1)//2) < h + 1"});
}

TEST(MaxPool2d, WithIndicesGivesInt64Indices) {
  OpRun r = pool("aten.max_pool2d_with_indices.default", kImage, {I(2), I(2)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "(float32[batch, 3, h//2, w//2], int64[batch, 3, h//2, w//2])");
}

TEST(MaxPool, OneAndThreeDimsAndUnbatched) {
  EXPECT_EQ(pool("aten.max_pool1d.default", tensor("x", {"n", "c", "t"}), {I(2)}).str(),
            "float32[n, c, t//2]");
  EXPECT_EQ(pool("aten.max_pool3d.default", tensor("x", {"c", "8", "8", "8"}), {I(2)}).str(),
            "float32[c, 4, 4, 4]");
  EXPECT_EQ(pool("aten.max_pool2d.default", tensor("x", {"3", "h", "w"}), {I(2)}).str(),
            "float32[3, h//2, w//2]");
}

TEST(MaxPool2d, DilatedWindow) {
  // Effective kernel 1 + 2*(3 - 1) = 5.
  EXPECT_EQ(
      pool("aten.max_pool2d.default", tensor("x", {"1", "1", "9", "9"}), {I(3), I(1), I(0), I(2)})
          .str(),
      "float32[1, 1, 5, 5]");
}

TEST(MaxPool2d, BadArguments) {
  OpRun pad = pool("aten.max_pool2d.default", kImage, {I(3), I(1), I(2)});
  EXPECT_EQ(pad.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(pad.error(), "pad should be at most half of kernel size"));
  EXPECT_EQ(pool("aten.max_pool2d.default", kImage, {I(0)}).result.status,
            Propagation::Status::InputError);
  EXPECT_EQ(pool("aten.max_pool2d.default", kImage, {I(2), I(0)}).result.status,
            Propagation::Status::InputError);
  EXPECT_EQ(pool("aten.max_pool2d.default", tensor("x", {"h", "w"}), {I(2)}).result.status,
            Propagation::Status::InputError);
  EXPECT_EQ(pool("aten.max_pool2d.default", kImage, {Ints({2, 2, 2})}).result.status,
            Propagation::Status::InputError);
}

TEST(MaxPool2d, OutputTooSmallIsAShapeError) {
  OpRun r = pool("aten.max_pool2d.default", tensor("x", {"1", "3", "2", "2"}), {I(3)});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(r.error(),
                       "max_pool2d: given input size: (3x2x2). Calculated output size: "
                       "(3x0x0). Output size is too small"));
  OpRun empty = pool("aten.max_pool2d.default", tensor("x", {"1", "0", "4", "4"}), {I(2)});
  EXPECT_EQ(empty.result.status, Propagation::Status::ShapeError);
}

TEST(AvgPool, CeilModeAndCountIncludePad) {
  EXPECT_EQ(pool("aten.avg_pool2d.default", tensor("x", {"1", "1", "6", "6"}),
                 {I(3), I(2), I(0), B(true), B(false)})
                .str(),
            "float32[1, 1, 3, 3]");
  EXPECT_EQ(pool("aten.avg_pool2d.default", kImage, {I(3), I(2), I(1)}).str(),
            "float32[batch, 3, (h + 1)//2, (w + 1)//2]");
  EXPECT_EQ(pool("aten.avg_pool1d.default", tensor("x", {"n", "c", "t"}), {I(4), I(4)}).str(),
            "float32[n, c, t//4]");
  EXPECT_EQ(pool("aten.avg_pool3d.default", tensor("x", {"n", "c", "4", "4", "4"}), {I(2)}).str(),
            "float32[n, c, 2, 2, 2]");
  OpRun divisor =
      pool("aten.avg_pool2d.default", kImage, {I(2), I(2), I(0), B(false), B(true), I(0)});
  EXPECT_EQ(divisor.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(divisor.error(), "divisor must be not zero"));
}

TEST(AdaptivePool, OutputSizeReplacesTheSpatialDims) {
  EXPECT_EQ(pool("aten.adaptive_avg_pool2d.default", kImage, {Ints({7, 7})}).str(),
            "float32[batch, 3, 7, 7]");
  EXPECT_EQ(pool("aten._adaptive_avg_pool2d.default", kImage, {Ints({1, 1})}).str(),
            "float32[batch, 3, 1, 1]");
  EXPECT_EQ(
      pool("aten.adaptive_avg_pool1d.default", tensor("x", {"n", "c", "t"}), {Ints({5})}).str(),
      "float32[n, c, 5]");
  EXPECT_EQ(pool("aten.adaptive_max_pool2d.default", kImage, {Ints({2, 3})}).str(),
            "(float32[batch, 3, 2, 3], int64[batch, 3, 2, 3])");
  EXPECT_EQ(
      pool("aten.adaptive_avg_pool3d.default", tensor("x", {"c", "d", "h", "w"}), {Ints({1, 2, 3})})
          .str(),
      "float32[c, 1, 2, 3]");
}

TEST(AdaptivePool, BadOutputSize) {
  OpRun r = pool("aten.adaptive_avg_pool2d.default", kImage, {Ints({7})});
  EXPECT_EQ(r.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(r.error(), "output_size must have 2 elements, got [7]"));
  EXPECT_EQ(pool("aten.adaptive_avg_pool2d.default", kImage, {Ints({7, -1})}).result.status,
            Propagation::Status::InputError);
}

TEST(PoolBackward, ShapeOfTheInput) {
  const std::vector<Input> inputs = {tensor("g", {"b", "3", "4", "4"}),
                                     tensor("x", {"b", "3", "8", "8"}),
                                     tensor("i", {"b", "3", "4", "4"}, DType::Int64)};
  OpRun r = run_op(inputs, "aten.max_pool2d_with_indices_backward.default",
                   {T("g"), T("x"), I(2), I(2), I(0), I(1), B(false), T("i")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[b, 3, 8, 8]");
  // The indices are integers shaped like grad_output, as the kernel reads them.
  OpRun float_indices = run_op(inputs, "aten.max_pool2d_with_indices_backward.default",
                               {T("g"), T("x"), I(2), I(2), I(0), I(1), B(false), T("g")});
  EXPECT_TRUE(Contains(float_indices.error(), "expected integer indices of grad_output's size"))
      << float_indices.error();
  OpRun adaptive =
      run_op(inputs, "aten.adaptive_max_pool2d_backward.default", {T("g"), T("x"), T("i")});
  ASSERT_TRUE(adaptive.ok()) << adaptive.error();
  OpRun wrong_channels =
      run_op({tensor("g", {"b", "4", "4", "4"}), tensor("x", {"b", "3", "8", "8"}),
              tensor("i", {"b", "4", "4", "4"}, DType::Int64)},
             "aten.adaptive_max_pool2d_backward.default", {T("g"), T("x"), T("i")});
  EXPECT_TRUE(Contains(wrong_channels.error(), "does not match self [b, 3, 8, 8]"))
      << wrong_channels.error();
}

}  // namespace
}  // namespace symshape::testing
