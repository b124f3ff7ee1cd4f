// Kernel tests and property-test cases for the ops that complete the Core ATen opset and the
// fused ops traced models emit (embedding_bag, _fused_rms_norm, the scaled-dot-product attention
// kernels, _pdist_forward, ...). Expected values are derived by hand. The cases use symbolic sizes;
// the shape property test runs each at several sizes against its shape rule.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/interp/kernel_call.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {

namespace {

using Sizes = std::vector<int64_t>;

std::vector<RValue> items_of(const RValue& v) {
  if (v.kind != RValue::Kind::List) throw std::runtime_error("expected a list, got " + v.str());
  return v.items;
}

// ---- embedding_bag ----

// weight rows r = [r, 10 r]; indices pick rows into bags by offsets.
Tensor bag_weight() { return real_tensor({4, 2}, {0, 0, 1, 10, 2, 20, 3, 30}); }

RValue bag(const Tensor& indices, const Tensor& offsets, int64_t mode, Kwargs kwargs = {},
           const std::string& target = "aten._embedding_bag.default") {
  return call_kernel(target, {{"w", bag_weight()}, {"i", indices}, {"o", offsets}},
                     {T("w"), T("i"), T("o"), B(false), I(mode)}, std::move(kwargs));
}

TEST(EmbeddingBagKernel, SumsAveragesAndMaxesEachBag) {
  Tensor idx = int_tensor({5}, {1, 2, 3, 0, 3});
  Tensor off = int_tensor({3}, {0, 2, 2});  // bags {1, 2}, {}, {3, 0, 3}
  auto sum = items_of(bag(idx, off, 0));
  EXPECT_EQ(reals_of(sum[0].tensor), (std::vector<double>{3, 30, 0, 0, 6, 60}));
  EXPECT_EQ(sum[1].tensor.sizes(), (Sizes{0}));  // the CPU fast path leaves offset2bag empty
  EXPECT_EQ(ints_of(sum[2].tensor), (Sizes{2, 0, 3}));
  EXPECT_EQ(sum[3].tensor.sizes(), (Sizes{3}));
  auto mean = items_of(bag(idx, off, 1));
  EXPECT_EQ(reals_of(mean[0].tensor), (std::vector<double>{1.5, 15, 0, 0, 2, 20}));
  EXPECT_EQ(ints_of(mean[1].tensor), (Sizes{0, 0, 2, 2, 2}));
  auto max = items_of(bag(idx, off, 2));
  EXPECT_EQ(reals_of(max[0].tensor), (std::vector<double>{2, 20, 0, 0, 3, 30}));
  EXPECT_EQ(max[3].tensor.sizes(), (Sizes{3, 2}));
  EXPECT_EQ(ints_of(max[3].tensor), (Sizes{2, 2, -1, -1, 3, 3}));
}

TEST(EmbeddingBagKernel, LastOffsetWeightsAndPadding) {
  Tensor idx = int_tensor({4}, {1, 2, 3, 1});
  // include_last_offset: offsets [0, 1, 3] are two bags, {1} and {2, 3}; index 1 is left out.
  auto last = items_of(bag(idx, int_tensor({3}, {0, 1, 3}), 0, {{"include_last_offset", B(true)}}));
  EXPECT_EQ(reals_of(last[0].tensor), (std::vector<double>{1, 10, 5, 50}));
  EXPECT_EQ(ints_of(last[2].tensor), (Sizes{1, 2}));
  // per_sample_weights scale each row (sum mode only).
  Tensor w = real_tensor({4}, {2, 1, 0.5, 1});
  RValue scaled =
      call_kernel("aten._embedding_bag.default",
                  {{"w", bag_weight()}, {"i", idx}, {"o", int_tensor({1}, {0})}, {"p", w}},
                  {T("w"), T("i"), T("o"), B(false), I(0), B(false), T("p")});
  EXPECT_EQ(reals_of(items_of(scaled)[0].tensor), (std::vector<double>{6.5, 65}));
  // padding_idx rows are skipped and not counted by the mean.
  auto padded = items_of(bag(idx, int_tensor({1}, {0}), 1, {{"padding_idx", I(1)}}));
  EXPECT_EQ(reals_of(padded[0].tensor), (std::vector<double>{2.5, 25}));
  EXPECT_EQ(ints_of(padded[2].tensor), (Sizes{2}));
  EXPECT_EQ(padded[1].tensor.sizes(), (Sizes{4}));  // padding disables the fast path
  // A weight without unit stride in dim 1 is off PyTorch's fast path too.
  Tensor transposed =
      real_tensor({2, 4}, {0, 1, 2, 3, 0, 10, 20, 30}).as_strided({4, 2}, {1, 4}, 0);
  auto slow = items_of(call_kernel("aten._embedding_bag.default",
                                   {{"w", transposed}, {"i", idx}, {"o", int_tensor({1}, {0})}},
                                   {T("w"), T("i"), T("o")}));
  EXPECT_EQ(reals_of(slow[0].tensor), (std::vector<double>{7, 70}));
  EXPECT_EQ(ints_of(slow[1].tensor), (Sizes{0, 0, 0, 0}));
  // embedding_bag (without padding_idx) is the same computation.
  auto plain = items_of(bag(idx, int_tensor({2}, {0, 2}), 0, {}, "aten.embedding_bag.default"));
  EXPECT_EQ(reals_of(plain[0].tensor), (std::vector<double>{3, 30, 4, 40}));
}

TEST(EmbeddingBagKernel, RejectsBadOffsetsAndModes) {
  Tensor idx = int_tensor({3}, {0, 1, 2});
  EXPECT_TRUE(Contains(run_error([&] {
                         bag(idx, int_tensor({2}, {1, 2}), 0);
                       }),
                       "offsets[0] must be 0"));
  EXPECT_TRUE(Contains(run_error([&] {
                         bag(idx, int_tensor({3}, {0, 2, 1}), 0);
                       }),
                       "non-decreasing"));
  EXPECT_TRUE(Contains(run_error([&] { bag(idx, int_tensor({2}, {0, 4}), 0); }), "at most"));
  EXPECT_TRUE(Contains(run_error([&] { bag(idx, int_tensor({1}, {0}), 3); }), "mode must be"));
  EXPECT_TRUE(Contains(run_error([&] { bag(int_tensor({1}, {7}), int_tensor({1}, {0}), 0); }),
                       "out of bounds"));
}

// ---- _fused_rms_norm ----

TEST(FusedRmsNormKernel, ReturnsTheOutputAndRstd) {
  Tensor x = real_tensor({2, 2}, {3, 4, 0, 0});
  RValue r =
      call_kernel("aten._fused_rms_norm.default", {{"x", x}}, {T("x"), Ints({2}), None(), F(0.0)});
  auto items = items_of(r);
  // Row 0: rms = sqrt((9 + 16) / 2) = 5 / sqrt(2).
  const double rstd = std::sqrt(2.0) / 5;
  std::vector<double> out = reals_of(items[0].tensor);
  EXPECT_NEAR(out[0], 3 * rstd, 1e-6);
  EXPECT_NEAR(out[1], 4 * rstd, 1e-6);
  EXPECT_EQ(items[1].tensor.sizes(), (Sizes{2, 1}));
  EXPECT_NEAR(reals_of(items[1].tensor)[0], rstd, 1e-6);
}

// ---- attention ----

TEST(AttentionMathKernel, ReturnsTheWeightsWithTheOutput) {
  // One query over two keys with equal scores: weights 1/2 each, the output their mean.
  Tensor q = real_tensor({1, 1, 1}, {0});
  Tensor k = real_tensor({1, 2, 1}, {1, 2});
  Tensor v = real_tensor({1, 2, 2}, {1, 2, 3, 4});
  auto items = items_of(call_kernel("aten._scaled_dot_product_attention_math.default",
                                    {{"q", q}, {"k", k}, {"v", v}}, {T("q"), T("k"), T("v")}));
  EXPECT_EQ(reals_of(items[0].tensor), (std::vector<double>{2, 3}));
  EXPECT_EQ(reals_of(items[1].tensor), (std::vector<double>{0.5, 0.5}));
  // A boolean mask hiding the first key puts all the weight on the second.
  Tensor m = int_tensor({1, 2}, {0, 1}, DType::Bool);
  items = items_of(call_kernel("aten._scaled_dot_product_attention_math.default",
                               {{"q", q}, {"k", k}, {"v", v}, {"m", m}},
                               {T("q"), T("k"), T("v"), T("m")}));
  EXPECT_EQ(reals_of(items[0].tensor), (std::vector<double>{3, 4}));
  EXPECT_EQ(reals_of(items[1].tensor), (std::vector<double>{0, 1}));
}

TEST(CudnnAttentionKernel, MatchesTheCompositeAndShapesItsOutputs) {
  Tensor q = real_tensor({1, 1, 1, 1}, {0});
  Tensor k = real_tensor({1, 1, 2, 1}, {1, 2});
  Tensor v = real_tensor({1, 1, 2, 1}, {1, 3});
  auto items = items_of(call_kernel("aten._scaled_dot_product_cudnn_attention.default",
                                    {{"q", q}, {"k", k}, {"v", v}},
                                    {T("q"), T("k"), T("v"), None(), B(true)}));
  ASSERT_EQ(items.size(), 9u);
  EXPECT_EQ(reals_of(items[0].tensor), (std::vector<double>{2}));
  EXPECT_NEAR(reals_of(items[1].tensor)[0], std::log(2.0), 1e-6);  // logsumexp of two zeros
  EXPECT_EQ(items[4].integer, 1);
  EXPECT_EQ(items[5].integer, 2);
  EXPECT_EQ(items[8].kind, RValue::Kind::None);  // no debug mask, as PyTorch's meta
  // Without compute_log_sumexp the logsumexp is still [B, H, L] (PyTorch's meta allocates it).
  auto no_lse = items_of(call_kernel("aten._scaled_dot_product_cudnn_attention.default",
                                     {{"q", q}, {"k", k}, {"v", v}},
                                     {T("q"), T("k"), T("v"), None(), B(false)}));
  ASSERT_EQ(no_lse.size(), 9u);
  EXPECT_EQ(no_lse[1].tensor.sizes(), (std::vector<int64_t>{1, 1, 1}));
}

TEST(MultiHeadAttentionMaskKernel, MaskedKeysGetNoWeight) {
  // D = 2, one head, identity projections, zero biases (as MultiHeadAttentionKernel's test).
  Tensor x = real_tensor({1, 2, 2}, {1, 0, 0, 1});
  Tensor w = real_tensor({6, 2}, {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1});
  Tensor pw = real_tensor({2, 2}, {1, 0, 0, 1});
  auto mha = [&](const Tensor& mask, long type) {
    return items_of(call_kernel("aten._native_multi_head_attention.default",
                                {{"x", x},
                                 {"w", w},
                                 {"b", Tensor::zeros(kF32, {6})},
                                 {"pw", pw},
                                 {"pb", Tensor::zeros(kF32, {2})},
                                 {"m", mask}},
                                {T("x"), T("x"), T("x"), I(2), I(1), T("w"), T("b"), T("pw"),
                                 T("pb"), T("m"), B(true), B(true), I(type)}));
  };
  // Key padding (type 1) hides key 1: both queries see only key 0, x[0] = [1, 0].
  auto padded = mha(int_tensor({1, 2}, {0, 1}, DType::Bool), 1);
  EXPECT_EQ(reals_of(padded[0].tensor), (std::vector<double>{1, 0, 1, 0}));
  EXPECT_EQ(reals_of(padded[1].tensor), (std::vector<double>{1, 0, 1, 0}));
  // An attention mask (type 0) hiding every key from query 1: its row is all zeros.
  auto hidden = mha(int_tensor({2, 2}, {0, 1, 1, 1}, DType::Bool), 0);
  EXPECT_EQ(reals_of(hidden[0].tensor), (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(reals_of(hidden[1].tensor), (std::vector<double>{1, 0, 0, 0}));
  // A 4-D mask is of type 2 whatever mask_type says, and must match the scores.
  EXPECT_TRUE(Contains(run_error([&] {
                         mha(Tensor::zeros(DType::Bool, {1, 2, 2, 2}), 0);
                       }),
                       "must have shape [1, 1, 2, 2]"));
  EXPECT_TRUE(Contains(run_error([&] {
                         mha(Tensor::zeros(DType::Bool, {2, 1}), 0);
                       }),
                       "mask_type 0 must have shape [2, 2]"));
}

// ---- _pdist_forward ----

TEST(PdistKernel, GivesEveryPairOfRowsOnce) {
  Tensor x = real_tensor({3, 2}, {0, 0, 3, 4, 6, 8});
  EXPECT_EQ(reals_of(call_tensor("aten._pdist_forward.default", {{"x", x}}, {T("x")})),
            (std::vector<double>{5, 10, 5}));
  EXPECT_EQ(reals_of(call_tensor("aten._pdist_forward.default", {{"x", x}}, {T("x"), F(1.0)})),
            (std::vector<double>{7, 14, 7}));
  EXPECT_EQ(
      call_tensor("aten._pdist_forward.default", {{"x", real_tensor({1, 2}, {1, 2})}}, {T("x")})
          .sizes(),
      (Sizes{0}));
}

// Offsets 0, step, 2 step, ... below `end`: valid bag starts for `end` indices.
Call offsets(const std::string& end, long step, bool with_end = false) {
  return {"offsets",
          "aten.arange.start_step",
          {I(0), with_end ? E(end + " + 1") : E(end), I(step)},
          {{"dtype", D(kI64)}}};
}

// Core ATen overloads the family tests reach only through another overload of the same op:
// one case each, called by the overload's own name.
std::vector<OpCase> core_overload_cases() {
  std::vector<OpCase> out;
  auto one = [&](const std::string& target, std::vector<Input> inputs, std::vector<Arg> args,
                 Kwargs kwargs = {}) {
    out.push_back({"core." + target.substr(5),
                   std::move(inputs),
                   {{"op", target, std::move(args), std::move(kwargs)}}});
  };
  const Input x = in("x", {"a", "b"}), y = in("y", {"b"});
  for (const char* op :
       {"acos",    "acosh", "asin", "asinh", "atan",  "atanh", "cos",        "cosh",
        "erf",     "expm1", "log",  "log10", "log1p", "log2",  "reciprocal", "rsqrt",
        "sigmoid", "sin",   "sinh", "sqrt",  "tan",   "tanh"}) {
    one(std::string("aten.") + op + ".default", {x}, {T("x")});
  }
  for (const char* op : {"add", "sub", "mul", "div"}) {
    one(std::string("aten.") + op + ".Scalar", {x}, {T("x"), F(2.5)});
  }
  one("aten.div.Scalar_mode", {in("x", {"a", "b"}, kI64)}, {T("x"), I(2)},
      {{"rounding_mode", S("floor")}});
  for (const char* op : {"eq", "ne", "ge", "gt", "le"}) {
    one(std::string("aten.") + op + ".Scalar", {x}, {T("x"), F(0.25)});
  }
  for (const char* op : {"gt", "le", "lt"}) {
    one(std::string("aten.") + op + ".Tensor", {x, y}, {T("x"), T("y")});
  }
  for (const char* op : {"bitwise_and", "bitwise_or", "bitwise_xor"}) {
    one(std::string("aten.") + op + ".Scalar", {in("x", {"a", "b"}, kI64)}, {T("x"), I(3)});
  }
  one("aten.clamp.Tensor", {x, y, in("hi", {"a", "1"})}, {T("x"), T("y"), T("hi")});
  one("aten.any.dims", {in("x", {"a", "b", "c"}, DType::Bool)}, {T("x"), Ints({0, 2})},
      {{"keepdim", B(true)}});
  out.push_back(
      {"core.randperm.default",
       {in("x", {"n"})},
       {{"n", "aten.sym_size.int", {T("x"), I(0)}}, {"op", "aten.randperm.default", {T("n")}}}});
  for (const char* op : {"sub", "ge", "fmod", "remainder"}) {
    one(std::string("aten.") + op + ".Tensor", {x, y}, {T("x"), T("y")});
  }
  one("aten.fill.Scalar", {x}, {T("x"), F(1.5)});
  one("aten.mean.dim", {x}, {T("x"), Ints({1})}, {{"keepdim", B(true)}});
  one("aten.var.dim", {x}, {T("x"), Ints({0})});
  one("aten.resize_.default", {x}, {T("x"), List({E("b"), E("a + 1")})});
  one("aten.resize.default", {x}, {T("x"), List({E("a - 1")})});
  return out;
}

}  // namespace

std::vector<OpCase> coverage_cases() {
  const Input w = in("w", {"a", "d"}), idx = in("i", {"n"}, kI64);
  std::vector<OpCase> cases = {
      {"_embedding_bag.sum",
       {w, idx},
       {offsets("n", 2), {"op", "aten._embedding_bag.default", {T("w"), T("i"), T("offsets")}}}},
      {"_embedding_bag.mean_last_offset",
       {w, idx},
       {offsets("n", 3, true),
        {"op",
         "aten._embedding_bag.default",
         {T("w"), T("i"), T("offsets"), B(false), I(1)},
         {{"include_last_offset", B(true)}}}}},
      {"_embedding_bag.sum_transposed_weight",  // off PyTorch's fast path: offset2bag is [n]
       {in("wt", {"d", "a"}), idx},
       {{"w", "aten.permute.default", {T("wt"), Ints({1, 0})}},
        offsets("n", 2),
        {"op", "aten._embedding_bag.default", {T("w"), T("i"), T("offsets")}}}},
      {"embedding_bag.max",
       {w, idx},
       {offsets("n", 1),
        {"op", "aten.embedding_bag.default", {T("w"), T("i"), T("offsets"), B(false), I(2)}}}},
      {"embedding_bag.per_sample_weights",
       {w, idx, in("p", {"n"})},
       {offsets("n", 2),
        {"op",
         "aten.embedding_bag.padding_idx",
         {T("w"), T("i"), T("offsets"), B(false), I(0), B(false), T("p"), B(false), None()}}}},
      {"_embedding_bag_forward_only.padding_idx",
       {w, idx},
       {offsets("n", 2),
        {"op",
         "aten._embedding_bag_forward_only.default",
         {T("w"), T("i"), T("offsets"), B(false), I(1), B(false), None(), B(false), I(0)}}}},
      {"_fused_rms_norm",
       {in("x", {"a", "b", "c"}), in("g", {"c"})},
       {{"op", "aten._fused_rms_norm.default", {T("x"), List({E("c")}), T("g"), F(1e-6)}}}},
      {"_fused_rms_norm.two_dims",
       {in("x", {"a", "b", "c"})},
       {{"op", "aten._fused_rms_norm.default", {T("x"), List({E("b"), E("c")}), None(), None()}}}},
      {"_scaled_dot_product_attention_math.mask",
       {in("q", {"b", "h", "l", "e"}), in("k", {"b", "h", "s", "e"}), in("v", {"b", "h", "s", "f"}),
        in("m", {"l", "s"}, DType::Bool)},
       {{"op",
         "aten._scaled_dot_product_attention_math.default",
         {T("q"), T("k"), T("v"), T("m")}}}},
      {"_scaled_dot_product_attention_math.dropout_mask",
       {in("q", {"b", "l", "e"}), in("k", {"b", "s", "e"}), in("v", {"b", "s", "e"}),
        in("dm", {"b", "l", "s"}, DType::Bool)},
       {{"op",
         "aten._scaled_dot_product_attention_math.default",
         {T("q"), T("k"), T("v"), None(), F(0.5), B(true), T("dm")}}}},
      {"_scaled_dot_product_cudnn_attention",
       {in("q", {"b", "h", "l", "e"}), in("k", {"b", "h", "s", "e"}), in("v", {"b", "h", "s", "e"}),
        in("bias", {"b", "h", "l", "s"})},
       {{"op",
         "aten._scaled_dot_product_cudnn_attention.default",
         {T("q"), T("k"), T("v"), T("bias"), B(true)}}}},
      {"_scaled_dot_product_cudnn_attention.no_lse",
       {in("q", {"b", "h", "l", "e"}), in("k", {"b", "h", "s", "e"}),
        in("v", {"b", "h", "s", "f"})},
       {{"op",
         "aten._scaled_dot_product_cudnn_attention.default",
         {T("q"), T("k"), T("v"), None(), B(false), F(0.0), B(true)}}}},
      {"scaled_dot_product_attention.float_mask",
       {in("q", {"b", "h", "l", "e"}), in("k", {"b", "h", "s", "e"}), in("v", {"b", "h", "s", "e"}),
        in("m", {"b", "1", "l", "s"})},
       {{"op", "aten.scaled_dot_product_attention.default", {T("q"), T("k"), T("v"), T("m")}}}},
      {"_pdist_forward", {in("x", {"n", "m"})}, {{"op", "aten._pdist_forward.default", {T("x")}}}},
      {"_pdist_forward.p",
       {in("x", {"n", "m"}, DType::Float64)},
       {{"op", "aten._pdist_forward.default", {T("x"), F(3.0)}}}},
      {"_native_multi_head_attention.attn_mask",
       {in("x", {"a", "s", "4"}), in("w", {"12", "4"}), in("b", {"12"}), in("pw", {"4", "4"}),
        in("pb", {"4"}), in("m", {"s", "s"}, DType::Bool)},
       {{"op",
         "aten._native_multi_head_attention.default",
         {T("x"), T("x"), T("x"), I(4), I(2), T("w"), T("b"), T("pw"), T("pb"), T("m"), B(true),
          B(false), I(0)}}}},
      {"_native_multi_head_attention.key_padding_mask",
       {in("x", {"a", "s", "4"}), in("w", {"12", "4"}), in("b", {"12"}), in("pw", {"4", "4"}),
        in("pb", {"4"}), in("m", {"a", "s"}, DType::Bool)},
       {{"op",
         "aten._native_multi_head_attention.default",
         {T("x"), T("x"), T("x"), I(4), I(2), T("w"), T("b"), T("pw"), T("pb"), T("m"), B(true),
          B(true), I(1)}}}},
      {"_native_multi_head_attention.full_mask",
       {in("x", {"a", "s", "4"}), in("w", {"12", "4"}), in("b", {"12"}), in("pw", {"4", "4"}),
        in("pb", {"4"}), in("m", {"a", "2", "s", "s"})},
       {{"op",
         "aten._native_multi_head_attention.default",
         {T("x"), T("x"), T("x"), I(4), I(2), T("w"), T("b"), T("pw"), T("pb"), T("m"),
          B(false)}}}},
      {"_transformer_encoder_layer_fwd.key_padding_mask",
       {in("x", {"a", "s", "4"}), in("w", {"12", "4"}), in("b", {"12"}), in("pw", {"4", "4"}),
        in("d", {"4"}), in("f1", {"8", "4"}), in("fb", {"8"}), in("f2", {"4", "8"}),
        in("m", {"a", "s"}, DType::Bool)},
       {{"op",
         "aten._transformer_encoder_layer_fwd.default",
         {T("x"), I(4),   I(2),   T("w"), T("b"),  T("pw"), T("d"),  B(false), B(true), F(1e-5),
          T("d"), T("d"), T("d"), T("d"), T("f1"), T("fb"), T("f2"), T("d"),   T("m"),  I(1)}}}},
      {"native_dropout.inference",
       {in("x", {"a", "b"})},
       {{"op", "aten.native_dropout.default", {T("x"), F(0.5), B(false)}}}},
  };
  // The Core ATen ops the opset check found missing: the real FFTs and sym_is_contiguous.
  // (Here rather than in their families' cases, whose order seeds the differential test's
  // mutations.)
  const DType c64 = DType::Complex64, c128 = DType::Complex128;
  cases.push_back({"_fft_r2c",
                   {in("x", {"a", "b"})},
                   {{"op", "aten._fft_r2c.default", {T("x"), Ints({0, 1}), I(0), B(true)}}}});
  cases.push_back({"_fft_r2c.full.f64",
                   {in("x", {"a", "b", "c"}, DType::Float64)},
                   {{"op", "aten._fft_r2c.default", {T("x"), Ints({-1}), I(2), B(false)}}}});
  cases.push_back({"_fft_c2r",
                   {in("x", {"a", "b"}, c64)},
                   {{"op", "aten._fft_c2r.default", {T("x"), Ints({0, 1}), I(2), E("2*b - 1")}}}});
  cases.push_back({"_fft_c2r.c128",
                   {in("x", {"a", "b"}, c128)},
                   {{"op", "aten._fft_c2r.default", {T("x"), Ints({0}), I(1), E("2*a - 2")}}}});
  cases.push_back({"sym_is_contiguous",
                   {in("x", {"a", "b"})},
                   {{"op", "aten.sym_is_contiguous.default", {T("x")}}}});
  cases.push_back(
      {"sym_is_contiguous.transposed",
       {in("x", {"a", "b"})},
       {{"t", "aten.t.default", {T("x")}}, {"op", "aten.sym_is_contiguous.default", {T("t")}}}});
  for (OpCase& c : core_overload_cases()) cases.push_back(std::move(c));
  return cases;
}

}  // namespace symshape::testing
