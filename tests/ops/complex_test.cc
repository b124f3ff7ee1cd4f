// Shape rules of complex tensors: real views, constructors, parts and angle.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace symshape::testing {
namespace {

// ---- view_as_real / view_as_complex ----

TEST(ViewAsReal, AppendsTwoAndDoublesStrides) {
  OpRun r = run_op({tensor("z", {"batch", "n"}, DType::Complex64)}, "aten.view_as_real.default",
                   {T("z")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, n, 2]");
  EXPECT_EQ(strides_str(r.value()), "[2*n, 2, 1]");
  EXPECT_EQ(
      run_op({tensor("z", {}, DType::Complex128)}, "aten.view_as_real.default", {T("z")}).str(),
      "float64[2]");
  OpRun real = run_op({tensor("x", {"3"})}, "aten.view_as_real.default", {T("x")});
  EXPECT_EQ(real.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(real.error(), "must be a complex tensor, got float32"));
}

TEST(ViewAsComplex, DropsTheLastDimOfTwo) {
  OpRun r = run_op({tensor("x", {"batch", "n", "2"}, DType::Float64)},
                   "aten.view_as_complex.default", {T("x")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "complex128[batch, n]");
  EXPECT_EQ(strides_str(r.value()), "[n, 1]");
  EXPECT_TRUE(r.guards().empty());
}

TEST(ViewAsComplex, LastDimMustBeTwo) {
  OpRun r = run_op({tensor("x", {"batch", "3"})}, "aten.view_as_complex.default", {T("x")});
  EXPECT_EQ(r.result.status, Propagation::Status::ShapeError);
  EXPECT_EQ(r.error(),
            "node op (aten.view_as_complex.default): view_as_complex needs a last dim of size 2, "
            "got [batch, 3]");
  // A symbolic last dim is guarded to be 2 (and fails when its hint is not).
  OpRun guarded = run_op({tensor("x", {"batch", "c"})}, "aten.view_as_complex.default", {T("x")},
                         {}, {Dim("c", 2, 2, 2)});
  ASSERT_TRUE(guarded.ok()) << guarded.error();
  EXPECT_EQ(guarded.str(), "complex64[batch]");
  OpRun wrong = run_op({tensor("x", {"batch", "c"})}, "aten.view_as_complex.default", {T("x")}, {},
                       {Dim("c", 4)});
  EXPECT_EQ(wrong.result.status, Propagation::Status::ShapeError);
  EXPECT_EQ(run_op({tensor("x", {})}, "aten.view_as_complex.default", {T("x")}).result.status,
            Propagation::Status::InputError);
}

TEST(ViewAsComplex, NeedsFloatOrDoubleAndAdjacentPairs) {
  OpRun ints =
      run_op({tensor("x", {"4", "2"}, DType::Int32)}, "aten.view_as_complex.default", {T("x")});
  EXPECT_EQ(ints.result.status, Propagation::Status::InputError);
  OpRun half =
      run_op({tensor("x", {"4", "2"}, DType::Float16)}, "aten.view_as_complex.default", {T("x")});
  EXPECT_EQ(half.result.status, Propagation::Status::InputError);
  // A transposed [2, 4] -> [4, 2] view has last stride 4: not a complex layout.
  OpRun transposed =
      run_ops({tensor("x", {"2", "4"})},
              {{"t", "aten.t.default", {T("x")}}, {"c", "aten.view_as_complex.default", {T("t")}}});
  EXPECT_EQ(transposed.result.status, Propagation::Status::ShapeError);
  EXPECT_TRUE(Contains(transposed.error(), "stride 1"));
}

TEST(ViewAsComplex, RoundTripsWithViewAsReal) {
  OpRun r = run_ops({tensor("z", {"a", "b"}, DType::Complex64)},
                    {{"r", "aten.view_as_real.default", {T("z")}},
                     {"t", "aten.transpose.int", {T("r"), I(0), I(1)}},
                     {"u", "aten.transpose.int", {T("t"), I(0), I(1)}},
                     {"c", "aten.view_as_complex.default", {T("u")}}});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "complex64[a, b]");
  EXPECT_EQ(strides_str(r.value()), "[b, 1]");
  EXPECT_TRUE(r.guards().empty());
}

// ---- complex / polar ----

TEST(Complex, TwoRealPartsBroadcast) {
  OpRun r = run_op({tensor("re", {"batch", "1"}), tensor("im", {"n"})}, "aten.complex.default",
                   {T("re"), T("im")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "complex64[batch, n]");
  EXPECT_EQ(run_op({tensor("a", {"3"}, DType::Float64), tensor("t", {"3"}, DType::Float64)},
                   "aten.polar.default", {T("a"), T("t")})
                .str(),
            "complex128[3]");
}

TEST(Complex, PartsMustShareAFloatDtype) {
  OpRun mixed = run_op({tensor("re", {"3"}), tensor("im", {"3"}, DType::Float64)},
                       "aten.complex.default", {T("re"), T("im")});
  EXPECT_EQ(mixed.result.status, Propagation::Status::InputError);
  EXPECT_TRUE(Contains(mixed.error(), "of one dtype, got float32 and float64"));
  OpRun ints = run_op({tensor("re", {"3"}, DType::Int64), tensor("im", {"3"}, DType::Int64)},
                      "aten.complex.default", {T("re"), T("im")});
  EXPECT_EQ(ints.result.status, Propagation::Status::InputError);
  OpRun shapes =
      run_op({tensor("re", {"3"}), tensor("im", {"4"})}, "aten.polar.default", {T("re"), T("im")});
  EXPECT_EQ(shapes.result.status, Propagation::Status::ShapeError);
}

// ---- real / imag / abs / angle ----

TEST(RealImag, ViewsOfOnePart) {
  std::vector<Input> z = {tensor("z", {"a", "b"}, DType::Complex128)};
  OpRun re = run_op(z, "aten.real.default", {T("z")});
  ASSERT_TRUE(re.ok()) << re.error();
  EXPECT_EQ(re.str(), "float64[a, b]");
  EXPECT_EQ(strides_str(re.value()), "[2*b, 2]");
  EXPECT_EQ(run_op(z, "aten.imag.default", {T("z")}).str(), "float64[a, b]");
  // real of a real tensor is itself; imag of one is an error.
  EXPECT_EQ(run_op({tensor("x", {"a"}, DType::Float16)}, "aten.real.default", {T("x")}).str(),
            "float16[a]");
  OpRun imag = run_op({tensor("x", {"a"})}, "aten.imag.default", {T("x")});
  EXPECT_EQ(imag.result.status, Propagation::Status::InputError);
}

TEST(Abs, OfComplexIsReal) {
  EXPECT_EQ(run_op({tensor("z", {"a"}, DType::Complex64)}, "aten.abs.default", {T("z")}).str(),
            "float32[a]");
  EXPECT_EQ(run_op({tensor("x", {"a"}, DType::Int32)}, "aten.abs.default", {T("x")}).str(),
            "int32[a]");
}

TEST(Angle, RealDtypes) {
  EXPECT_EQ(run_op({tensor("z", {"a"}, DType::Complex128)}, "aten.angle.default", {T("z")}).str(),
            "float64[a]");
  EXPECT_EQ(run_op({tensor("x", {"a"}, DType::Int64)}, "aten.angle.default", {T("x")}).str(),
            "float32[a]");
  EXPECT_EQ(run_op({tensor("x", {"a"}, DType::Float16)}, "aten.angle.default", {T("x")}).str(),
            "float16[a]");
}

TEST(Conj, KeepsTheTensor) {
  for (const char* op : {"aten.conj.default", "aten._conj.default", "aten.conj_physical.default",
                         "aten.resolve_conj.default", "aten.resolve_neg.default"}) {
    EXPECT_EQ(run_op({tensor("z", {"a"}, DType::Complex64)}, op, {T("z")}).str(), "complex64[a]")
        << op;
  }
}

// ---- _fft_r2c / _fft_c2r (PyTorch's meta_fft_r2c / meta_fft_c2r) ----

TEST(FftR2c, OneSidedHalvesTheLastDim) {
  const Input x = tensor("x", {"batch", "n"});
  OpRun r = run_op({x}, "aten._fft_r2c.default", {T("x"), Ints({0, 1}), I(0), B(true)});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "complex64[batch, n//2 + 1]");
  EXPECT_EQ(run_op({tensor("x", {"4", "7"}, DType::Float64)}, "aten._fft_r2c.default",
                   {T("x"), Ints({-1}), I(2), B(false)})
                .str(),
            "complex128[4, 7]");
  EXPECT_EQ(
      run_op({tensor("x", {"5", "3"})}, "aten._fft_r2c.default", {T("x"), Ints({0}), I(0), B(true)})
          .str(),
      "complex64[3, 3]");  // torch 1.13: torch.Size([3, 3])
  OpRun ints = run_op({tensor("x", {"3"}, DType::Int64)}, "aten._fft_r2c.default",
                      {T("x"), Ints({0}), I(0), B(true)});
  EXPECT_EQ(ints.result.status, Propagation::Status::InputError);
  OpRun twice = run_op({x}, "aten._fft_r2c.default", {T("x"), Ints({1, -1}), I(0), B(true)});
  EXPECT_EQ(twice.result.status, Propagation::Status::InputError);
  OpRun norm = run_op({x}, "aten._fft_r2c.default", {T("x"), Ints({1}), I(3), B(true)});
  EXPECT_EQ(norm.result.status, Propagation::Status::InputError);
  OpRun scalar =
      run_op({tensor("x", {})}, "aten._fft_r2c.default", {T("x"), Ints({0}), I(0), B(true)});
  EXPECT_EQ(scalar.result.status, Propagation::Status::InputError);
}

TEST(FftC2r, LastDimTakesLastDimSize) {
  OpRun r = run_op({tensor("z", {"batch", "m"}, DType::Complex64)}, "aten._fft_c2r.default",
                   {T("z"), Ints({0, 1}), I(2), E("2*m - 2")});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.str(), "float32[batch, 2*m - 2]");
  EXPECT_EQ(run_op({tensor("z", {"5", "3"}, DType::Complex128)}, "aten._fft_c2r.default",
                   {T("z"), Ints({0, 1}), I(0), I(7)})
                .str(),
            "float64[5, 7]");  // torch 1.13: torch.Size([5, 7])
  OpRun real =
      run_op({tensor("x", {"3"})}, "aten._fft_c2r.default", {T("x"), Ints({0}), I(0), I(4)});
  EXPECT_EQ(real.result.status, Propagation::Status::InputError);
  OpRun zero = run_op({tensor("z", {"3"}, DType::Complex64)}, "aten._fft_c2r.default",
                      {T("z"), Ints({0}), I(0), I(0)});
  EXPECT_EQ(zero.result.status, Propagation::Status::ShapeError);
}

}  // namespace
}  // namespace symshape::testing
