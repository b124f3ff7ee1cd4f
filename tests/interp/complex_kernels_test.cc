// Complex kernels: complex arithmetic by hand, the real/complex views (values, shapes and
// strides, also of non-contiguous inputs), parts, polar form; and the op cases of the shape
// property test.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "tests/interp/kernel_call.h"
#include "tests/interp/op_cases.h"

namespace symshape::testing {

namespace {

using interp::Complex;

using Sizes = std::vector<int64_t>;

Tensor complex_tensor(Sizes sizes, const std::vector<Complex>& values, DType d = C64) {
  std::vector<Scalar> s;
  for (const Complex& c : values) s.push_back(Scalar::of_complex(c));
  return Tensor::from(d, std::move(sizes), s);
}

std::vector<Complex> complexes_of(const Tensor& t) {
  std::vector<Complex> out;
  for (const Scalar& s : t.values()) out.push_back(s.as_complex());
  return out;
}

void expect_complexes(const Tensor& t, const std::vector<Complex>& expected, double tol = 0) {
  std::vector<Complex> got = complexes_of(t);
  ASSERT_EQ(got.size(), expected.size()) << t.str();
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i].real(), expected[i].real(), tol) << "element " << i << " of " << t.str();
    EXPECT_NEAR(got[i].imag(), expected[i].imag(), tol) << "element " << i << " of " << t.str();
  }
}

void expect_reals_within(const Tensor& t, const std::vector<double>& expected, double tol) {
  std::vector<double> got = reals_of(t);
  ASSERT_EQ(got.size(), expected.size()) << t.str();
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], expected[i], tol) << "element " << i << " of " << t.str();
}

TEST(ComplexKernels, MultiplicationAndDivisionByHand) {
  // (1 + 2i)(3 - 4i) = 3 - 4i + 6i - 8i^2 = 11 + 2i; (1 + 2i) / (3 - 4i) = (-5 + 10i) / 25.
  Tensor a = complex_tensor({1}, {{1, 2}}), b = complex_tensor({1}, {{3, -4}});
  Tensor p = call_tensor("aten.mul.Tensor", {{"a", a}, {"b", b}}, {T("a"), T("b")});
  EXPECT_EQ(p.dtype(), C64);
  expect_complexes(p, {{11, 2}});
  Tensor q = call_tensor("aten.div.Tensor", {{"a", a}, {"b", b}}, {T("a"), T("b")});
  expect_complexes(q, {{-0.2, 0.4}}, 1e-7);
  // complex64 * float64 is complex128; a real Python number scales both parts.
  Tensor wide = call_tensor("aten.mul.Tensor", {{"a", a}, {"r", real_tensor({1}, {0.5}, F64)}},
                            {T("a"), T("r")});
  EXPECT_EQ(wide.dtype(), C128);
  expect_complexes(wide, {{0.5, 1}});
  // |3 + 4i| = 5, a float32.
  Tensor abs = on("aten.abs", complex_tensor({2}, {{3, 4}, {0, -2}}));
  EXPECT_EQ(abs.dtype(), F32);
  EXPECT_EQ(reals_of(abs), (std::vector<double>{5, 2}));
  // exp(i pi) = -1.
  Tensor e = on("aten.exp", complex_tensor({1}, {{0, std::numbers::pi}}, C128));
  expect_complexes(e, {{-1, 0}}, 1e-15);
}

TEST(ComplexKernels, ViewAsRealAndBack) {
  Tensor z = complex_tensor({2}, {{1, 2}, {3, -4}});
  Tensor r = on("aten.view_as_real", z);
  EXPECT_EQ(r.dtype(), F32);
  EXPECT_EQ(r.sizes(), (Sizes{2, 2}));
  EXPECT_EQ(r.strides(), (Sizes{2, 1}));
  EXPECT_EQ(reals_of(r), (std::vector<double>{1, 2, 3, -4}));
  Tensor back = on("aten.view_as_complex", r);
  EXPECT_EQ(back.dtype(), C64);
  EXPECT_EQ(back.sizes(), (Sizes{2}));
  EXPECT_EQ(back.strides(), (Sizes{1}));
  expect_complexes(back, {{1, 2}, {3, -4}});
  Tensor pairs = real_tensor({2, 2}, {1, 2, 3, 4}, F64);
  Tensor c = on("aten.view_as_complex", pairs);
  EXPECT_EQ(c.dtype(), C128);
  expect_complexes(c, {{1, 2}, {3, 4}});
}

TEST(ComplexKernels, ViewsOfNonContiguousInputsKeepTheViewStrides) {
  // A [3, 2] transposed view of a contiguous [2, 3] complex tensor: strides [1, 3], offset 0.
  Tensor base = complex_tensor({2, 3}, {{0, 10}, {1, 11}, {2, 12}, {3, 13}, {4, 14}, {5, 15}});
  Tensor t = base.as_strided({3, 2}, {1, 3}, 0);
  Tensor r = on("aten.view_as_real", t);
  EXPECT_EQ(r.sizes(), (Sizes{3, 2, 2}));
  EXPECT_EQ(r.strides(), (Sizes{2, 6, 1}));
  EXPECT_EQ(reals_of(r), (std::vector<double>{0, 10, 3, 13, 1, 11, 4, 14, 2, 12, 5, 15}));
  Tensor im = on("aten.imag", t);
  EXPECT_EQ(im.strides(), (Sizes{2, 6}));
  EXPECT_EQ(im.offset() % 2, 1);
  EXPECT_EQ(reals_of(im), (std::vector<double>{10, 13, 11, 14, 12, 15}));
  Tensor re = on("aten.real", t);
  EXPECT_EQ(reals_of(re), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  // Row 1 of the [2, 3]: offset 3 complex elements, 6 reals.
  Tensor row = base.as_strided({3}, {1}, 3);
  Tensor rr = on("aten.view_as_real", row);
  EXPECT_EQ(rr.offset(), 6);
  EXPECT_EQ(reals_of(rr), (std::vector<double>{3, 13, 4, 14, 5, 15}));
  // view_as_complex of a column pair: every other real row, strides [4, 1] -> [2].
  Tensor reals = real_tensor({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor cols = reals.as_strided({2, 2}, {4, 1}, 2);  // [[3, 4], [7, 8]]
  Tensor c = on("aten.view_as_complex", cols);
  EXPECT_EQ(c.strides(), (Sizes{2}));
  expect_complexes(c, {{3, 4}, {7, 8}});
  // conj keeps the input's layout.
  Tensor conj = on("aten.conj", t);
  EXPECT_EQ(conj.strides(), (Sizes{1, 3}));
  expect_complexes(conj, {{0, -10}, {3, -13}, {1, -11}, {4, -14}, {2, -12}, {5, -15}});
}

TEST(ComplexKernels, ViewAsComplexRequirements) {
  std::string e = run_error([] { on("aten.view_as_complex", real_tensor({3}, {1, 2, 3})); });
  EXPECT_TRUE(Contains(e, "last dim of size 2")) << e;
  Tensor t = real_tensor({2, 2}, {1, 2, 3, 4}).as_strided({2, 2}, {1, 2}, 0);
  e = run_error([&] { on("aten.view_as_complex", t); });
  EXPECT_TRUE(Contains(e, "stride 1")) << e;
  Tensor odd = real_tensor({3, 2}, {1, 2, 3, 4, 5, 6}).as_strided({1, 2}, {3, 1}, 1);
  e = run_error([&] { on("aten.view_as_complex", odd); });
  EXPECT_TRUE(Contains(e, "divisible by 2")) << e;
  e = run_error([] { on("aten.view_as_complex", int_tensor({2}, {1, 2})); });
  EXPECT_TRUE(Contains(e, "float32 or float64")) << e;
  e = run_error([] { on("aten.view_as_real", real_tensor({2}, {1, 2})); });
  EXPECT_TRUE(Contains(e, "must be a complex tensor")) << e;
  e = run_error([] { on("aten.imag", real_tensor({2}, {1, 2})); });
  EXPECT_TRUE(Contains(e, "must be a complex tensor")) << e;
}

TEST(ComplexKernels, PartsConstructorsAngle) {
  Tensor re = real_tensor({2, 1}, {1, 2}), im = real_tensor({3}, {10, 20, 30});
  Tensor c = call_tensor("aten.complex", {{"re", re}, {"im", im}}, {T("re"), T("im")});
  EXPECT_EQ(c.dtype(), C64);
  EXPECT_EQ(c.sizes(), (Sizes{2, 3}));
  expect_complexes(c, {{1, 10}, {1, 20}, {1, 30}, {2, 10}, {2, 20}, {2, 30}});
  std::string e = run_error([&] {
    call_tensor("aten.complex", {{"re", re}, {"im", real_tensor({3}, {1, 2, 3}, F64)}},
                {T("re"), T("im")});
  });
  EXPECT_TRUE(Contains(e, "of one dtype")) << e;
  // polar(2, pi / 2) = 2i; polar(1, pi) = -1.
  Tensor p = call_tensor("aten.polar",
                         {{"r", real_tensor({2}, {2, 1}, F64)},
                          {"a", real_tensor({2}, {std::numbers::pi / 2, std::numbers::pi}, F64)}},
                         {T("r"), T("a")});
  EXPECT_EQ(p.dtype(), C128);
  expect_complexes(p, {{0, 2}, {-1, 0}}, 1e-15);
  // The real part of a real tensor is the tensor itself.
  Tensor x = real_tensor({2}, {1, 2});
  EXPECT_TRUE(on("aten.real", x).shares_storage(x));
  EXPECT_TRUE(on("aten.conj", x).shares_storage(x));
  EXPECT_TRUE(on("aten.resolve_conj", x).shares_storage(x));
  // angle: arg of complex; of reals pi for negatives, 0 otherwise, NaN kept; ints in float32.
  Tensor a = on("aten.angle", complex_tensor({3}, {{0, 1}, {-1, 0}, {1, 1}}, C128));
  EXPECT_EQ(a.dtype(), F64);
  EXPECT_EQ(reals_of(a),
            (std::vector<double>{std::numbers::pi / 2, std::numbers::pi, std::numbers::pi / 4}));
  Tensor ra = on("aten.angle", int_tensor({3}, {-2, 0, 5}));
  EXPECT_EQ(ra.dtype(), F32);
  EXPECT_EQ(reals_of(ra), (std::vector<double>{static_cast<float>(std::numbers::pi), 0, 0}));
  Tensor n = on("aten.angle", real_tensor({1}, {std::nan("")}, F64));
  EXPECT_TRUE(std::isnan(reals_of(n)[0]));
  expect_complexes(on("aten.conj_physical", complex_tensor({1}, {{1, -2}})), {{1, 2}});
  expect_complexes(on("aten._conj", complex_tensor({1}, {{1, -2}})), {{1, 2}});
}

// _fft_r2c / _fft_c2r against torch 1.13 (torch.ops.aten._fft_r2c / _fft_c2r on float64 and
// complex128 inputs): normalization 0 none, 1 by 1/sqrt(n), 2 by 1/n.
TEST(ComplexKernels, RealFftsAsTorch) {
  Tensor x = real_tensor({2, 3}, {1, 2, 0.5, 3, -1, 4}, F64);
  Tensor two_d = on("aten._fft_r2c", x, {Ints({0, 1}), I(0), B(true)});
  EXPECT_EQ(two_d.sizes(), (Sizes{2, 2}));
  EXPECT_EQ(two_d.dtype(), C128);
  expect_complexes(
      two_d, {{9.5, 0}, {1.25, 3.0310889132455348}, {-2.5, 0}, {-1.75, -5.629165124598851}}, 1e-9);
  Tensor full = on("aten._fft_r2c", x, {Ints({1}), I(2), B(false)});
  expect_complexes(full,
                   {{1.1666666666666665, 0},
                    {-0.08333333333333333, -0.4330127018922193},
                    {-0.08333333333333333, 0.4330127018922193},
                    {2, 0},
                    {0.5, 1.443375672974064},
                    {0.5, -1.443375672974064}},
                   1e-9);
  // Back from the one-sided spectrum: three points give x again; two drop the imaginary part of
  // the Nyquist frequency.
  Tensor back = on("aten._fft_c2r", two_d, {Ints({0, 1}), I(2), I(3)});
  EXPECT_EQ(back.dtype(), F64);
  expect_reals_within(back, {1, 2, 0.5, 3, -1, 4}, 1e-9);
  expect_reals_within(on("aten._fft_c2r", two_d, {Ints({0, 1}), I(2), I(2)}),
                      {1.625, 1.875, 3.75, 2.25}, 1e-9);
  Tensor z = complex_tensor({2, 2}, {{1, 2}, {3, -1}, {0.5, 0.5}, {-2, 1}}, C128);
  expect_reals_within(
      on("aten._fft_c2r", z, {Ints({1}), I(0), I(3)}),
      {7.0, -0.2679491924311228, -3.732050807568877, -3.5, 0.7679491924311228, 4.232050807568877},
      1e-9);
  expect_reals_within(
      on("aten._fft_c2r", z, {Ints({1}), I(1), I(2)}),
      {2.82842712474619, -1.414213562373095, -1.0606601717798212, 1.7677669529663687}, 1e-9);
}

}  // namespace

std::vector<OpCase> complex_cases() {
  std::vector<OpCase> cases;
  auto one = [&cases](std::string name, std::vector<Input> inputs, const std::string& target,
                      std::vector<Arg> args) {
    cases.push_back({std::move(name), std::move(inputs), {{"op", target, std::move(args)}}});
  };
  one("view_as_real", {In("x", C64, {"a", "b"})}, "aten.view_as_real", {T("x")});
  one("view_as_real.c128", {In("x", C128, {"a"})}, "aten.view_as_real", {T("x")});
  one("view_as_real.zero_dim", {In("x", C64, {})}, "aten.view_as_real", {T("x")});
  one("view_as_complex", {In("x", F32, {"a", "b", "2"})}, "aten.view_as_complex", {T("x")});
  one("view_as_complex.f64", {In("x", F64, {"a", "2"})}, "aten.view_as_complex", {T("x")});
  one("complex.broadcast", {In("re", F32, {"a", "1"}), In("im", F32, {"b"})}, "aten.complex",
      {T("re"), T("im")});
  one("polar.f64", {In("r", F64, {"a", "b"}), In("t", F64, {"b"})}, "aten.polar", {T("r"), T("t")});
  one("real", {In("x", C64, {"a", "b"})}, "aten.real", {T("x")});
  one("real.of_real", {In("x", F32, {"a"})}, "aten.real", {T("x")});
  one("imag", {In("x", C128, {"a", "b"})}, "aten.imag", {T("x")});
  one("angle.complex", {In("x", C64, {"a", "b"})}, "aten.angle", {T("x")});
  one("angle.int", {In("x", I64, {"a"})}, "aten.angle", {T("x")});
  one("angle.f64", {In("x", F64, {"a"})}, "aten.angle", {T("x")});
  for (const char* op :
       {"aten.conj", "aten._conj", "aten.conj_physical", "aten.resolve_conj", "aten.resolve_neg"}) {
    one(std::string(op).substr(5), {In("x", C64, {"a", "b"})}, op, {T("x")});
    one(std::string(op).substr(5) + ".real", {In("x", F32, {"a"})}, op, {T("x")});
  }
  // Round trips and views of views: real <-> complex, with the parts of a non-contiguous view.
  cases.push_back({"complex.round_trip",
                   {In("x", F32, {"n", "2"})},
                   {{"c", "aten.view_as_complex", {T("x")}},
                    {"m", "aten.mul.Tensor", {T("c"), T("c")}},
                    {"r", "aten.view_as_real", {T("m")}}},
                   {Dim("n", 3, 1, 8)}});
  cases.push_back({"complex.parts_of_product",
                   {In("re", F64, {"a", "1"}), In("im", F64, {"b"})},
                   {{"c", "aten.complex", {T("re"), T("im")}},
                    {"d", "aten.conj", {T("c")}},
                    {"p", "aten.mul.Tensor", {T("c"), T("d")}},
                    {"i", "aten.imag", {T("p")}}}});
  return cases;
}

}  // namespace symshape::testing
