// Kernel tests and property-test cases: linear algebra (matrix products on every rank case with
// batch broadcasting, addmm and friends with beta / alpha, linear, dot / vdot, einsum). The
// expected values were computed with Python integer arithmetic.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "tests/interp/kernel_call.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {

namespace {

using Sizes = std::vector<int64_t>;
using Reals = std::vector<double>;

// start, start + 1, ... with the given sizes.
Tensor range_tensor(Sizes sizes, int64_t start, DType dtype = kI64) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(start + i);
  return int_tensor(std::move(sizes), v, dtype);
}

Tensor einsum_of(const std::string& equation, const std::vector<Tensor>& ops) {
  std::vector<std::pair<std::string, Tensor>> inputs;
  std::vector<Arg> list;
  for (size_t i = 0; i < ops.size(); ++i) {
    inputs.push_back({"t" + std::to_string(i), ops[i]});
    list.push_back(T("t" + std::to_string(i)));
  }
  return call_tensor("aten.einsum.default", inputs, {S(equation), List(list)});
}

Tensor ternary(const std::string& target, const Tensor& self, const Tensor& a, const Tensor& b,
               Kwargs kwargs = {}) {
  return call_tensor(target, {{"s", self}, {"a", a}, {"b", b}}, {T("s"), T("a"), T("b")},
                     std::move(kwargs));
}

// ---- matmul ----

TEST(MatmulKernel, BatchDimsBroadcast) {
  // [2, 1, 2, 3] @ [3, 3, 2] -> [2, 3, 2, 2]: the batch dims [2, 1] and [3] broadcast to [2, 3].
  Tensor out =
      binary("aten.matmul.default", range_tensor({2, 1, 2, 3}, -5), range_tensor({3, 3, 2}, -7));
  EXPECT_EQ(out.sizes(), (Sizes{2, 3, 2, 2}));
  EXPECT_EQ(out.dtype(), kI64);
  EXPECT_EQ(ints_of(out), (Sizes{64,  52,  19,  16,  -8, -20, 1,  -2, -80, -92, -17, -20,
                                 -26, -20, -71, -56, 10, 16,  19, 34, 46,  52,  109, 124}));
  // The same in float32.
  Tensor f = binary("aten.matmul.default", range_tensor({2, 1, 2, 3}, -5, kF32),
                    range_tensor({3, 3, 2}, -7, kF32));
  EXPECT_EQ(f.dtype(), kF32);
  EXPECT_EQ(ints_of(f), ints_of(out));
}

TEST(MatmulKernel, VectorOperandsDropTheirDim) {
  Tensor v = int_tensor({3}, {1, -2, 3});
  // [3] @ [2, 3, 4]: v acts as [1, 3], broadcast over the batch; the 1 is dropped.
  Tensor vb = binary("aten.matmul.default", v, range_tensor({2, 3, 4}, -10));
  EXPECT_EQ(vb.sizes(), (Sizes{2, 4}));
  EXPECT_EQ(ints_of(vb), (Sizes{-4, -2, 0, 2, 20, 22, 24, 26}));
  // [2, 3] @ [3]
  Tensor mv = binary("aten.matmul.default", range_tensor({2, 3}, -2), v);
  EXPECT_EQ(mv.sizes(), (Sizes{2}));
  EXPECT_EQ(ints_of(mv), (Sizes{0, 6}));
  // [3] @ [3]: a 0-dim result.
  Tensor dot = binary("aten.matmul.default", v, int_tensor({3}, {4, 5, -6}));
  EXPECT_EQ(dot.sizes(), (Sizes{}));
  EXPECT_EQ(ints_of(dot), (Sizes{-24}));
}

TEST(MatmulKernel, NonContiguousOperands) {
  // b = [[0, 1], [2, 3]]ᵀ given as a transposed view; a = [[1, 2]] -> [1, 2] @ bᵀ = [2, 8].
  Tensor base = range_tensor({2, 2}, 0);
  Tensor bt = base.as_strided({2, 2}, {1, 2}, 0);
  Tensor out = binary("aten.mm.default", int_tensor({1, 2}, {1, 2}), bt);
  EXPECT_EQ(ints_of(out), (Sizes{2, 8}));
}

TEST(MatmulKernel, IntegerProductsWrapWithoutOverflow) {
  // 2^62 * 4 wraps to 0 in int64; 2^62 * 2 + 2^62 * 2 wraps to 0 too.
  const int64_t big = int64_t{1} << 62;
  EXPECT_EQ(ints_of(binary("aten.mm.default", int_tensor({1, 1}, {big}), int_tensor({1, 1}, {4}))),
            (Sizes{0}));
  EXPECT_EQ(ints_of(binary("aten.mm.default", int_tensor({1, 2}, {big, big}),
                           int_tensor({2, 1}, {2, 2}))),
            (Sizes{0}));
  // int32 results wrap at 32 bits: 65536 * 65536 = 2^32 -> 0.
  EXPECT_EQ(ints_of(binary("aten.mm.default", int_tensor({1, 1}, {65536}, DType::Int32),
                           int_tensor({1, 1}, {65536}, DType::Int32))),
            (Sizes{0}));
}

TEST(MatmulKernel, ErrorsNameTheShapes) {
  std::string e = run_error([] {
    binary("aten.mm.default", range_tensor({2, 3}, 0), range_tensor({4, 2}, 0));
  });
  EXPECT_TRUE(Contains(e, "mm: shapes [2, 3] and [4, 2] cannot be multiplied (3 != 4)")) << e;
  e = run_error([] {
    binary("aten.matmul.default", range_tensor({2, 2, 3}, 0), range_tensor({3, 3, 1}, 0));
  });
  EXPECT_TRUE(Contains(e, "do not broadcast")) << e;
  e = run_error([] { binary("aten.matmul.default", int_tensor({}, {1}), range_tensor({2}, 0)); });
  EXPECT_TRUE(Contains(e, "at least 1-D")) << e;
  e = run_error([] {
    binary("aten.bmm.default", range_tensor({2, 2, 3}, 0), range_tensor({3, 3, 1}, 0));
  });
  EXPECT_TRUE(Contains(e, "same number of batches")) << e;
  e = run_error([] {
    binary("aten.mm.default", range_tensor({2, 2}, 0), range_tensor({2, 2}, 0, kF32));
  });
  EXPECT_TRUE(Contains(e, "same dtype")) << e;
}

TEST(MatmulKernel, EmptyContractionsAndResultsTooLarge) {
  // Summing over an empty k gives zeros.
  Tensor z = binary("aten.mm.default", Tensor::zeros(kI64, {2, 0}), Tensor::zeros(kI64, {0, 3}));
  EXPECT_EQ(ints_of(z), (Sizes{0, 0, 0, 0, 0, 0}));
  // Empty operands whose product would hold 2^30 elements are refused, not allocated.
  Tensor a = Tensor::zeros(kF32, {int64_t{1} << 20, 1, 0});
  Tensor b = Tensor::zeros(kF32, {0, 1024});
  std::string e = run_error([&] { binary("aten.matmul.default", a, b); });
  EXPECT_TRUE(Contains(e, "too many for the interpreter")) << e;
  // einsum: an empty iteration space sums to 0; one of 2^33 steps is refused.
  Tensor sum = einsum_of("ab,cd->",
                         {Tensor::zeros(kF32, {int64_t{1} << 20, 0}), Tensor::zeros(kF32, {4, 3})});
  EXPECT_EQ(sum.sizes(), (Sizes{}));
  EXPECT_EQ(reals_of(sum), (Reals{0}));
  const Tensor v = Tensor::zeros(kF32, {2048});
  e = run_error([&] { einsum_of("a,b,c->", {v, v, v}); });
  EXPECT_TRUE(Contains(e, "too much work for the interpreter")) << e;
}

// ---- addmm and friends ----

TEST(AddmmKernel, BetaAndAlphaScaleTheTerms) {
  // 2 * [1, 2, 3] - [[-1, 0], [1, 2]] @ [[0, 1, 2], [3, 4, 5]]
  Tensor out = ternary("aten.addmm.default", int_tensor({3}, {1, 2, 3}), range_tensor({2, 2}, -1),
                       range_tensor({2, 3}, 0), {{"beta", I(2)}, {"alpha", I(-1)}});
  EXPECT_EQ(out.sizes(), (Sizes{2, 3}));
  EXPECT_EQ(ints_of(out), (Sizes{2, 5, 8, -4, -5, -6}));
}

TEST(AddmmKernel, BetaZeroIgnoresSelfEvenNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor out = ternary("aten.addmm.default", real_tensor({1}, {nan}), real_tensor({1, 2}, {1, 2}),
                       real_tensor({2, 1}, {3, 4}), {{"beta", I(0)}});
  EXPECT_EQ(reals_of(out), (Reals{11}));
  // With beta 1 the NaN propagates.
  Tensor with = ternary("aten.addmm.default", real_tensor({1}, {nan}), real_tensor({1, 2}, {1, 2}),
                        real_tensor({2, 1}, {3, 4}));
  EXPECT_TRUE(std::isnan(reals_of(with)[0]));
  // Integer tensors refuse a float beta.
  std::string e = run_error([] {
    ternary("aten.addmm.default", int_tensor({1}, {1}), int_tensor({1, 1}, {1}),
            int_tensor({1, 1}, {1}), {{"beta", F(0.5)}});
  });
  EXPECT_TRUE(Contains(e, "must not be floating point")) << e;
  // self may not grow the result.
  e = run_error([] {
    ternary("aten.addmm.default", int_tensor({3, 1}, {1, 2, 3}), int_tensor({1, 1}, {1}),
            int_tensor({1, 1}, {1}));
  });
  EXPECT_TRUE(Contains(e, "cannot broadcast self [3, 1] to the result [1, 1]")) << e;
}

TEST(AddmmKernel, BatchedForms) {
  Tensor b1 = range_tensor({2, 2, 3}, -6), b2 = range_tensor({2, 3, 2}, 0);
  // baddbmm: self [2, 1, 1] = [10, 20] + 3 * bmm.
  Tensor bad =
      ternary("aten.baddbmm.default", int_tensor({2, 1, 1}, {10, 20}), b1, b2, {{"alpha", I(3)}});
  EXPECT_EQ(bad.sizes(), (Sizes{2, 2, 2}));
  EXPECT_EQ(ints_of(bad), (Sizes{-68, -113, -14, -32, 104, 113, 320, 356}));
  // addbmm: 0.5 + the sum over the batch of the products.
  Tensor add =
      ternary("aten.addbmm.default", real_tensor({}, {0.5}, kF64), b1.to(kF64), b2.to(kF64));
  EXPECT_EQ(add.sizes(), (Sizes{2, 2}));
  EXPECT_EQ(reals_of(add), (Reals{2.5, -9.5, 92.5, 98.5}));
  // addmv, addr.
  Tensor mv = ternary("aten.addmv.default", int_tensor({2}, {100, 200}), range_tensor({2, 3}, -2),
                      int_tensor({3}, {1, -2, 3}), {{"beta", I(-1)}});
  EXPECT_EQ(ints_of(mv), (Sizes{-100, -194}));
  Tensor r = ternary("aten.addr.default", int_tensor({2, 1}, {1, 2}), int_tensor({2}, {3, 4}),
                     int_tensor({3}, {1, 0, -1}), {{"alpha", I(2)}});
  EXPECT_EQ(ints_of(r), (Sizes{7, 1, -5, 10, 2, -6}));
}

TEST(AddmmKernel, ActivationAppliesReluOrTanhGelu) {
  // mm = [[-1*0 + 0*3 ...]] : [[-1, 0], [1, 2]] @ [[1, -1], [-2, 1]] = [[-1, 1], [-3, 1]]
  Tensor self = real_tensor({2}, {0.5, 0}, kF64);
  Tensor a = real_tensor({2, 2}, {-1, 0, 1, 2}, kF64),
         b = real_tensor({2, 2}, {1, -1, -2, 1}, kF64);
  Tensor relu = ternary("aten._addmm_activation.default", self, a, b);
  EXPECT_EQ(reals_of(relu), (Reals{0, 1, 0, 1}));  // [[-0.5, 1], [-2.5, 1]] clamped
  Tensor gelu = ternary("aten._addmm_activation.default", self, a, b, {{"use_gelu", B(true)}});
  // gelu_tanh(1) = 0.8411919906082768, gelu_tanh(-0.5) = -0.15428599017
  Reals g = reals_of(gelu);
  EXPECT_NEAR(g[1], 0.8411919906082768, 1e-12);
  EXPECT_NEAR(g[0], -0.15428599017, 1e-9);
}

// ---- linear, dot, outer ----

TEST(LinearKernel, WeightIsTransposedAndBiasAdded) {
  Tensor x = range_tensor({2, 3}, -2), w = range_tensor({4, 3}, -5);
  Tensor b = int_tensor({4}, {1, -1, 2, -2});
  Tensor out =
      call_tensor("aten.linear.default", {{"x", x}, {"w", w}, {"b", b}}, {T("x"), T("w"), T("b")});
  EXPECT_EQ(out.sizes(), (Sizes{2, 4}));
  EXPECT_EQ(ints_of(out), (Sizes{15, 4, -2, -15, -21, -5, 16, 30}));
  // A 1-D weight makes a dot product per row.
  Tensor v = call_tensor("aten.linear.default", {{"x", x}, {"w", int_tensor({3}, {1, 1, 1})}},
                         {T("x"), T("w")});
  EXPECT_EQ(v.sizes(), (Sizes{2}));
  EXPECT_EQ(ints_of(v), (Sizes{-3, 6}));
}

TEST(DotKernel, VdotConjugatesTheFirstOperand) {
  auto complex_tensor = [](std::vector<interp::Complex> v) {
    std::vector<Scalar> s;
    for (auto c : v) s.push_back(Scalar::of_complex(c));
    return Tensor::from(DType::Complex128, {static_cast<int64_t>(v.size())}, s);
  };
  Tensor a = complex_tensor({{1, 2}, {3, 0}}), b = complex_tensor({{2, -1}, {1, 1}});
  Tensor dot = binary("aten.dot.default", a, b);
  EXPECT_EQ(dot.sizes(), (Sizes{}));
  EXPECT_EQ(dot.flat(0).as_complex(), interp::Complex(7, 6));
  EXPECT_EQ(binary("aten.vdot.default", a, b).flat(0).as_complex(), interp::Complex(3, -2));
  std::string e = run_error([&] { binary("aten.dot.default", a, complex_tensor({{1, 0}})); });
  EXPECT_TRUE(Contains(e, "inconsistent tensor sizes [2] and [1]")) << e;
}

TEST(OuterKernel, PromotesLikeMultiplication) {
  Tensor out =
      binary("aten.outer.default", int_tensor({2}, {1, -2}), real_tensor({3}, {0.5, 1, 2}));
  EXPECT_EQ(out.dtype(), kF32);
  EXPECT_EQ(out.sizes(), (Sizes{2, 3}));
  EXPECT_EQ(reals_of(out), (Reals{0.5, 1, 2, -1, -2, -4}));
}

TEST(IntMmKernel, Int8AccumulatesInInt32) {
  Tensor a = int_tensor({1, 2}, {127, 127}, DType::Int8),
         b = int_tensor({2, 1}, {127, 127}, DType::Int8);
  Tensor out = binary("aten._int_mm.default", a, b);
  EXPECT_EQ(out.dtype(), DType::Int32);
  EXPECT_EQ(ints_of(out), (Sizes{32258}));
}

// ---- einsum ----

Tensor einsum(const std::string& equation, const std::vector<Tensor>& ops) {
  return einsum_of(equation, ops);
}

TEST(EinsumKernel, ContractionsDiagonalsAndImplicitOutput) {
  Tensor a = range_tensor({3, 3}, -4);
  EXPECT_EQ(ints_of(einsum("ii", {a})), (Sizes{0}));  // trace
  EXPECT_EQ(ints_of(einsum("ii->i", {a})), (Sizes{-4, 0, 4}));
  Tensor c = range_tensor({2, 2, 2}, -3);
  EXPECT_EQ(ints_of(einsum("bii->b", {c})), (Sizes{-3, 5}));
  // Implicit output: the labels seen once, sorted: 'ji' is a transpose.
  Tensor m = range_tensor({2, 3}, -2);
  Tensor t = einsum("ji", {m});
  EXPECT_EQ(t.sizes(), (Sizes{3, 2}));
  EXPECT_EQ(ints_of(t), (Sizes{-2, 1, -1, 2, 0, 3}));
  // Batched product and outer product.
  Tensor b1 = range_tensor({2, 2, 3}, -6), b2 = range_tensor({2, 3, 2}, 0);
  EXPECT_EQ(ints_of(einsum("bij,bjk->bik", {b1, b2})), ints_of(binary("aten.bmm.default", b1, b2)));
  Tensor outer = einsum("i,j", {int_tensor({2}, {1, -2}), int_tensor({2}, {3, 4})});
  EXPECT_EQ(ints_of(outer), (Sizes{3, 4, -6, -8}));
}

TEST(EinsumKernel, EllipsisAndSizeOneBroadcast) {
  Tensor b1 = range_tensor({2, 2, 3}, -6);
  Tensor out = einsum("...ij,...jk->...ik", {b1, range_tensor({3, 2}, -1)});
  EXPECT_EQ(out.sizes(), (Sizes{2, 2, 2}));
  EXPECT_EQ(ints_of(out), (Sizes{-11, -26, -2, -8, 7, 10, 16, 28}));
  // j has size 1 in the first operand and 4 in the second: it broadcasts.
  Tensor bc = einsum("ij,kj->ik", {int_tensor({2, 1}, {2, -3}), range_tensor({3, 4}, 0)});
  EXPECT_EQ(bc.sizes(), (Sizes{2, 3}));
  EXPECT_EQ(ints_of(bc), (Sizes{12, 44, 76, -18, -66, -114}));
  // Mixed dtypes promote.
  EXPECT_EQ(einsum("i,i->", {int_tensor({2}, {1, 2}), real_tensor({2}, {0.5, 0.25})}).dtype(),
            kF32);
  std::string e = run_error([] {
    einsum("ij,jk", {range_tensor({2, 3}, 0), range_tensor({2, 2}, 0)});
  });
  EXPECT_TRUE(Contains(e, "do not broadcast")) << e;
  e = run_error([] { einsum("ij->k", {range_tensor({2, 3}, 0)}); });
  EXPECT_TRUE(Contains(e, "output subscript k does not appear")) << e;
}

// ---- property-test cases ----

OpCase two(const std::string& name, std::vector<std::string> a, std::vector<std::string> b,
           const std::string& target, Kwargs kwargs = {}, DType dtype = kF32) {
  return {name,
          {in("a", std::move(a), dtype), in("b", std::move(b), dtype)},
          {{"op", target, {T("a"), T("b")}, std::move(kwargs)}}};
}

OpCase three(const std::string& name, std::vector<std::string> self, std::vector<std::string> a,
             std::vector<std::string> b, const std::string& target, Kwargs kwargs = {}) {
  return {name,
          {in("s", std::move(self)), in("a", std::move(a)), in("b", std::move(b))},
          {{"op", target, {T("s"), T("a"), T("b")}, std::move(kwargs)}}};
}

}  // namespace

std::vector<OpCase> linalg_cases() {
  std::vector<OpCase> cases = {
      two("mm", {"n", "k"}, {"k", "p"}, "aten.mm.default"),
      two("mm.int", {"n", "k"}, {"k", "p"}, "aten.mm.default", {}, kI64),
      two("bmm", {"b", "n", "k"}, {"b", "k", "p"}, "aten.bmm.default"),
      two("matmul.vv", {"k"}, {"k"}, "aten.matmul.default"),
      two("matmul.mv", {"n", "k"}, {"k"}, "aten.matmul.default"),
      two("matmul.vm", {"k"}, {"k", "p"}, "aten.matmul.default"),
      two("matmul.mm", {"n", "k"}, {"k", "p"}, "aten.matmul.default"),
      two("matmul.batched_vector", {"b", "n", "k"}, {"k"}, "aten.matmul.default"),
      two("matmul.vector_batched", {"k"}, {"b", "k", "p"}, "aten.matmul.default"),
      two("matmul.broadcast", {"b", "1", "n", "k"}, {"h", "k", "p"}, "aten.matmul.default"),
      two("matmul.broadcast_one", {"1", "n", "k"}, {"b", "k", "p"}, "aten.matmul.default"),
      two("mv", {"n", "k"}, {"k"}, "aten.mv.default"),
      two("outer", {"n"}, {"m"}, "aten.outer.default"),
      two("ger", {"n"}, {"m"}, "aten.ger.default"),
      two("dot", {"n"}, {"n"}, "aten.dot.default"),
      {"vdot",
       {in("a", {"n"}, DType::Complex64), in("b", {"n"}, DType::Complex64)},
       {{"op", "aten.vdot.default", {T("a"), T("b")}}}},
      two("_int_mm", {"n", "k"}, {"k", "p"}, "aten._int_mm.default", {}, DType::Int8),
      three("addmm", {"p"}, {"n", "k"}, {"k", "p"}, "aten.addmm.default",
            {{"beta", F(0.5)}, {"alpha", I(2)}}),
      three("addmm.full", {"n", "p"}, {"n", "k"}, {"k", "p"}, "aten.addmm.default"),
      three("_addmm_activation", {"1", "p"}, {"n", "k"}, {"k", "p"},
            "aten._addmm_activation.default", {{"use_gelu", B(true)}}),
      three("baddbmm", {"b", "1", "p"}, {"b", "n", "k"}, {"b", "k", "p"}, "aten.baddbmm.default"),
      three("addmv", {"n"}, {"n", "k"}, {"k"}, "aten.addmv.default", {{"alpha", I(3)}}),
      three("addr", {"1"}, {"n"}, {"m"}, "aten.addr.default"),
      three("addbmm", {"n", "p"}, {"b", "n", "k"}, {"b", "k", "p"}, "aten.addbmm.default"),
      {"linear",
       {in("x", {"b", "s", "i"}), in("w", {"o", "i"}), in("bias", {"o"})},
       {{"op", "aten.linear.default", {T("x"), T("w"), T("bias")}}}},
      {"linear.no_bias",
       {in("x", {"i"}), in("w", {"o", "i"})},
       {{"op", "aten.linear.default", {T("x"), T("w")}}}},
      {"linear.vector_weight",
       {in("x", {"b", "i"}), in("w", {"i"})},
       {{"op", "aten.linear.default", {T("x"), T("w")}}}},
  };
  auto einsum_case = [](const std::string& name, const std::string& eq, std::vector<Input> inputs) {
    std::vector<Arg> list;
    for (const Input& i : inputs) list.push_back(T(i.name));
    return OpCase{name, std::move(inputs), {{"op", "aten.einsum.default", {S(eq), List(list)}}}};
  };
  cases.push_back(einsum_case("einsum.bmm", "bij,bjk->bik",
                              {in("x", {"b", "i", "j"}), in("y", {"b", "j", "k"})}));
  cases.push_back(
      einsum_case("einsum.implicit", "ij,jk", {in("x", {"i", "j"}), in("y", {"j", "k"})}));
  cases.push_back(einsum_case("einsum.trace", "ii", {in("x", {"n", "n"})}));
  cases.push_back(einsum_case("einsum.diagonal", "bii->bi", {in("x", {"b", "n", "n"})}));
  cases.push_back(einsum_case("einsum.ellipsis", "...ij,...jk->...ik",
                              {in("x", {"a", "b", "i", "j"}), in("y", {"b", "j", "k"})}));
  cases.push_back(einsum_case("einsum.ellipsis_implicit", "...ij", {in("x", {"a", "i", "j"})}));
  cases.push_back(
      einsum_case("einsum.broadcast_one", "ij,kj->ik", {in("x", {"i", "1"}), in("y", {"k", "j"})}));
  cases.push_back(einsum_case("einsum.three", "ij,jk,kl->il",
                              {in("x", {"i", "j"}), in("y", {"j", "k"}), in("z", {"k", "l"})}));
  return cases;
}

}  // namespace symshape::testing
