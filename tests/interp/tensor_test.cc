// Scalars, casts, tensors, views, broadcasting and checksums of the reference interpreter.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "symshape/interp.h"
#include "symshape/interp/kernels.h"

namespace symshape::interp {
namespace {

double to_f(double v, DType d) { return cast(Scalar::of_float(v), d).f; }
int64_t to_i(int64_t v, DType d) { return cast(Scalar::of_int(v), d).i; }

TEST(Cast, Float16RoundsToNearestEven) {
  const double u = std::ldexp(1.0, -10);  // half's spacing just above 1
  EXPECT_EQ(to_f(1 + u, DType::Float16), 1 + u);
  EXPECT_EQ(to_f(1 + u / 2, DType::Float16), 1.0);            // a tie goes to the even 1.0
  EXPECT_EQ(to_f(1 + 3 * u / 2, DType::Float16), 1 + 2 * u);  // a tie goes to the even 1+2u
  EXPECT_EQ(to_f(1 + 0.6 * u, DType::Float16), 1 + u);
  EXPECT_EQ(to_f(65504, DType::Float16), 65504);
  EXPECT_EQ(to_f(65519, DType::Float16), 65504);
  EXPECT_TRUE(std::isinf(to_f(65520, DType::Float16)));  // the tie rounds up past the max
  EXPECT_TRUE(std::isinf(to_f(-1e6, DType::Float16)));
  EXPECT_LT(to_f(-1e6, DType::Float16), 0);
  // Subnormals: the spacing is 2^-24.
  EXPECT_EQ(to_f(std::ldexp(1.0, -24), DType::Float16), std::ldexp(1.0, -24));
  EXPECT_EQ(to_f(std::ldexp(1.0, -25), DType::Float16), 0.0);  // tie to even (0)
  EXPECT_EQ(to_f(3 * std::ldexp(1.0, -25), DType::Float16), std::ldexp(1.0, -23));
  EXPECT_EQ(to_f(0.1, DType::Float16), 0.0999755859375);
  EXPECT_TRUE(std::isnan(to_f(NAN, DType::Float16)));
}

TEST(Cast, BFloat16RoundsToNearestEven) {
  const double u = std::ldexp(1.0, -7);
  EXPECT_EQ(to_f(1 + u / 2, DType::BFloat16), 1.0);
  EXPECT_EQ(to_f(1 + 3 * u / 2, DType::BFloat16), 1 + 2 * u);
  EXPECT_EQ(to_f(0.1, DType::BFloat16), 0.10009765625);
  EXPECT_EQ(to_f(3.0e38, DType::BFloat16), std::ldexp(226.0, 120));
  EXPECT_TRUE(std::isinf(to_f(3.4e38, DType::BFloat16)));
}

TEST(Cast, Float32AndComplex64) {
  EXPECT_EQ(to_f(0.1, DType::Float32), 0.100000001490116119384765625);
  EXPECT_EQ(to_f(0.1, DType::Float64), 0.1);
  Scalar c = cast(Scalar::of_complex({0.1, -0.1}), DType::Complex64);
  EXPECT_EQ(c.kind, Scalar::Kind::Complex);
  EXPECT_EQ(c.c.real(), 0.100000001490116119384765625);
  EXPECT_EQ(c.c.imag(), -0.100000001490116119384765625);
  // Complex to real keeps the real part; real to complex has a zero imaginary part.
  EXPECT_EQ(cast(Scalar::of_complex({2.5, 7}), DType::Float64).f, 2.5);
  EXPECT_EQ(cast(Scalar::of_float(2.5), DType::Complex128).c, Complex(2.5, 0));
}

TEST(Cast, IntegersWrapToTheirWidth) {
  EXPECT_EQ(to_i(300, DType::UInt8), 44);
  EXPECT_EQ(to_i(-1, DType::UInt8), 255);
  EXPECT_EQ(to_i(200, DType::Int8), -56);
  EXPECT_EQ(to_i(-129, DType::Int8), 127);
  EXPECT_EQ(to_i(70000, DType::Int16), 4464);
  EXPECT_EQ(to_i(int64_t{1} << 31, DType::Int32), -(int64_t{1} << 31));
  EXPECT_EQ(to_i(std::numeric_limits<int64_t>::min(), DType::Int64),
            std::numeric_limits<int64_t>::min());
}

TEST(Cast, FloatsToIntegersAndBools) {
  EXPECT_EQ(cast(Scalar::of_float(-2.7), DType::Int64).i, -2);  // truncation toward zero
  EXPECT_EQ(cast(Scalar::of_float(2.7), DType::Int32).i, 2);
  EXPECT_EQ(cast(Scalar::of_float(NAN), DType::Int64).i, 0);
  EXPECT_EQ(cast(Scalar::of_float(INFINITY), DType::Int64).i, 0);
  EXPECT_EQ(cast(Scalar::of_float(1e30), DType::Int64).i, 0);
  EXPECT_EQ(cast(Scalar::of_float(0.5), DType::Bool).i, 1);
  EXPECT_EQ(cast(Scalar::of_float(-0.0), DType::Bool).i, 0);
  EXPECT_EQ(cast(Scalar::of_int(2), DType::Bool).kind, Scalar::Kind::Bool);
  EXPECT_EQ(cast(Scalar::of_complex({0, 1}), DType::Bool).i, 1);
  EXPECT_EQ(cast(Scalar::of_bool(true), DType::Float32).f, 1.0);
}

TEST(Tensor, ZerosFromAndElements) {
  Tensor t = Tensor::from(DType::Int64, {2, 3},
                          {Scalar::of_int(1), Scalar::of_int(2), Scalar::of_int(3),
                           Scalar::of_int(4), Scalar::of_int(5), Scalar::of_int(6)});
  EXPECT_EQ(t.str(), "int64[2, 3]");
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{3, 1}));
  std::vector<int64_t> at = {1, 2};
  EXPECT_EQ(t.at(at).i, 6);
  EXPECT_EQ(t.flat(4).i, 5);
  EXPECT_EQ(t.size(-1), 3);
  t.set(at, Scalar::of_float(7.9));  // cast to int64: truncated
  EXPECT_EQ(t.flat(5).i, 7);
  EXPECT_THROW(Tensor::zeros(DType::Float32, {2, -1}), Error);
  EXPECT_THROW(Tensor::zeros(DType::Float32, {1 << 20, 1 << 20}), Error);
  EXPECT_THROW(Tensor::from(DType::Float32, {2}, {Scalar::of_int(1)}), Error);
  std::vector<int64_t> bad = {2, 0};
  EXPECT_THROW(t.at(bad), Error);
  Tensor s = Tensor::scalar(DType::Float16, Scalar::of_float(0.1));
  EXPECT_EQ(s.rank(), 0u);
  EXPECT_EQ(s.flat(0).f, 0.0999755859375);
}

TEST(Tensor, ViewsShareStorageWithStrides) {
  std::vector<Scalar> vals;
  for (int i = 0; i < 6; ++i) vals.push_back(Scalar::of_int(i));
  Tensor t = Tensor::from(DType::Int32, {2, 3}, vals);
  // The transpose: sizes [3, 2], strides [1, 3].
  Tensor tt = t.as_strided({3, 2}, {1, 3}, 0);
  EXPECT_FALSE(tt.is_contiguous());
  EXPECT_TRUE(tt.shares_storage(t));
  std::vector<Scalar> got = tt.values();
  std::vector<int64_t> ints;
  for (const Scalar& v : got) ints.push_back(v.i);
  EXPECT_EQ(ints, (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
  // Writing through the view changes the base.
  std::vector<int64_t> at = {2, 1};
  tt.set(at, Scalar::of_int(50));
  EXPECT_EQ(t.flat(5).i, 50);
  // clone() is contiguous and independent.
  Tensor c = tt.clone();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_FALSE(c.shares_storage(t));
  EXPECT_EQ(c.flat(1).i, 3);
  EXPECT_TRUE(tt.contiguous().is_contiguous());
  EXPECT_TRUE(t.contiguous().shares_storage(t));
  // A column with an offset.
  Tensor col = t.as_strided({2}, {3}, 1);
  EXPECT_EQ(col.flat(0).i, 1);
  EXPECT_EQ(col.flat(1).i, 4);
  // Size-1 dims' strides do not matter for contiguity.
  EXPECT_TRUE(t.as_strided({1, 3}, {100, 1}, 0).is_contiguous());
  // Out of the storage.
  EXPECT_THROW(t.as_strided({2, 3}, {3, 1}, 1), Error);
  EXPECT_THROW(t.as_strided({7}, {1}, 0), Error);
  EXPECT_NO_THROW(t.as_strided({0, 100}, {1000, 1000}, 0));
}

TEST(Tensor, ToAndCopyFrom) {
  Tensor f = Tensor::from(DType::Float64, {3},
                          {Scalar::of_float(-1.5), Scalar::of_float(0.25), Scalar::of_float(300)});
  Tensor i = f.to(DType::UInt8);
  EXPECT_EQ(i.flat(0).i, 255);  // -1.5 -> -1 -> wraps to 255
  EXPECT_EQ(i.flat(1).i, 0);
  EXPECT_EQ(i.flat(2).i, 44);
  Tensor dst = Tensor::zeros(DType::Float32, {2, 3});
  dst.copy_from(f);  // broadcast over rows
  EXPECT_EQ(dst.flat(3).f, -1.5);
  EXPECT_EQ(dst.flat(5).f, 300);
  // Overlapping copy: the transpose of a square matrix into itself.
  Tensor m =
      Tensor::from(DType::Int64, {2, 2},
                   {Scalar::of_int(1), Scalar::of_int(2), Scalar::of_int(3), Scalar::of_int(4)});
  m.copy_from(m.as_strided({2, 2}, {1, 2}, 0));
  EXPECT_EQ(m.flat(1).i, 3);
  EXPECT_EQ(m.flat(2).i, 2);
  EXPECT_THROW(dst.copy_from(Tensor::zeros(DType::Float32, {4})), Error);
}

TEST(Broadcast, ShapesAndExpand) {
  EXPECT_EQ(broadcast_shapes({3, 1}, {4}), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(broadcast_shapes({}, {2, 2}), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(broadcast_shapes({0}, {1}), (std::vector<int64_t>{0}));
  EXPECT_FALSE(broadcast_shapes({2, 3}, {3, 2}).has_value());
  EXPECT_FALSE(broadcast_shapes({0}, {2}).has_value());
  Tensor t =
      Tensor::from(DType::Int64, {3, 1}, {Scalar::of_int(1), Scalar::of_int(2), Scalar::of_int(3)});
  Tensor e = expand_to(t, {2, 3, 4});
  EXPECT_EQ(e.strides(), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(e.numel(), 24);
  std::vector<int64_t> at = {1, 2, 3};
  EXPECT_EQ(e.at(at).i, 3);
  EXPECT_NO_THROW(expand_to(t, {3, 3, 1}));
  EXPECT_THROW(expand_to(t, {2, 4, 1}), Error);
  EXPECT_THROW(expand_to(t, {4}), Error);
}

TEST(ForEachIndex, RowMajorOrder) {
  std::vector<std::vector<int64_t>> seen;
  for_each_index({2, 2},
                 [&](std::span<const int64_t> i) { seen.emplace_back(i.begin(), i.end()); });
  EXPECT_EQ(seen, (std::vector<std::vector<int64_t>>{{0, 0}, {0, 1}, {1, 0}, {1, 1}}));
  int calls = 0;
  for_each_index({}, [&](std::span<const int64_t> i) {
    EXPECT_TRUE(i.empty());
    ++calls;
  });
  EXPECT_EQ(calls, 1);
  for_each_index({3, 0, 2}, [&](std::span<const int64_t>) { ++calls; });
  EXPECT_EQ(calls, 1);
}

TEST(Checksum, StableAndLayoutIndependent) {
  // FNV-1a over "int64", the rank, the sizes and the values, as Python computes it.
  Tensor t =
      Tensor::from(DType::Int64, {3}, {Scalar::of_int(1), Scalar::of_int(2), Scalar::of_int(3)});
  EXPECT_EQ(checksum(t), 6945956390113459212ull);
  Tensor f = Tensor::from(DType::Float32, {2, 1}, {Scalar::of_float(0.5), Scalar::of_float(-1)});
  EXPECT_EQ(checksum(f), 8465312351036559515ull);
  // The same values in another layout checksum alike; another value or shape does not.
  Tensor m =
      Tensor::from(DType::Int64, {2, 2},
                   {Scalar::of_int(1), Scalar::of_int(3), Scalar::of_int(2), Scalar::of_int(4)});
  Tensor mt = m.as_strided({2, 2}, {1, 2}, 0);
  EXPECT_EQ(checksum(mt), checksum(mt.clone()));
  EXPECT_NE(checksum(mt), checksum(m));
  EXPECT_NE(checksum(t), checksum(t.to(DType::Int32)));
  Tensor z = Tensor::zeros(DType::Float32, {2});
  Tensor nz = Tensor::from(DType::Float32, {2}, {Scalar::of_float(-0.0), Scalar::of_float(0)});
  EXPECT_EQ(checksum(z), checksum(nz));
}

TEST(Helpers, PythonFloorDivisionAndModulo) {
  EXPECT_EQ(kernels::floordiv(7, 2), 3);
  EXPECT_EQ(kernels::floordiv(-7, 2), -4);
  EXPECT_EQ(kernels::floordiv(7, -2), -4);
  EXPECT_EQ(kernels::floordiv(-7, -2), 3);
  EXPECT_EQ(kernels::mod(-7, 2), 1);
  EXPECT_EQ(kernels::mod(7, -2), -1);
  EXPECT_EQ(kernels::mod(-7, -2), -1);
  EXPECT_EQ(kernels::floordiv(std::numeric_limits<int64_t>::min(), -1),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(kernels::mod(std::numeric_limits<int64_t>::min(), -1), 0);
  EXPECT_THROW(kernels::floordiv(1, 0), Error);
  EXPECT_THROW(kernels::mod(1, 0), Error);
  EXPECT_EQ(kernels::fmod_python(-7.5, 2), 0.5);
  EXPECT_EQ(kernels::fmod_python(7.5, -2), -0.5);
}

TEST(Helpers, ResultType) {
  using kernels::result_type;
  Tensor i32 = Tensor::zeros(DType::Int32, {2});
  Tensor f16 = Tensor::zeros(DType::Float16, {2});
  Tensor f64_0d = Tensor::zeros(DType::Float64, {});
  Tensor i64_0d = Tensor::zeros(DType::Int64, {});
  EXPECT_EQ(result_type({i32}, {Scalar::of_int(5)}), DType::Int32);
  EXPECT_EQ(result_type({i32}, {Scalar::of_float(0.5)}), DType::Float32);
  EXPECT_EQ(result_type({f16}, {Scalar::of_float(0.5)}), DType::Float16);
  EXPECT_EQ(result_type({f16, f64_0d}, {}), DType::Float16);  // 0-dim counts as a number
  EXPECT_EQ(result_type({i32, f64_0d}, {}), DType::Float64);  // ... of a higher category
  EXPECT_EQ(result_type({i32, i64_0d}, {}), DType::Int32);
  EXPECT_EQ(result_type({f64_0d, i64_0d}, {}), DType::Float64);  // every operand 0-dim
  EXPECT_EQ(result_type({f16}, {Scalar::of_complex({0, 1})}), DType::Complex64);
  EXPECT_EQ(result_type({Tensor::zeros(DType::Bool, {2})}, {Scalar::of_int(1)}), DType::Int64);
  EXPECT_EQ(result_type({}, {Scalar::of_int(1), Scalar::of_float(1)}), DType::Float32);
}

TEST(Helpers, MapAndReduce) {
  Tensor a = Tensor::from(DType::Int64, {2, 1}, {Scalar::of_int(1), Scalar::of_int(2)});
  Tensor b =
      Tensor::from(DType::Int64, {3}, {Scalar::of_int(10), Scalar::of_int(20), Scalar::of_int(30)});
  Tensor s = kernels::map2(a, b, DType::Int64, DType::Int64, [](const Scalar& x, const Scalar& y) {
    return Scalar::of_int(x.i + y.i);
  });
  EXPECT_EQ(s.str(), "int64[2, 3]");
  EXPECT_EQ(s.flat(4).i, 22);
  Tensor r = kernels::reduce(s, {1}, false, DType::Int64, [](const std::vector<Scalar>& g) {
    int64_t acc = 0;
    for (const Scalar& v : g) acc += v.i;
    return Scalar::of_int(acc);
  });
  EXPECT_EQ(r.str(), "int64[2]");
  EXPECT_EQ(r.flat(0).i, 63);
  EXPECT_EQ(r.flat(1).i, 66);
  Tensor k = kernels::reduce(s, {0}, true, DType::Int64, [](const std::vector<Scalar>& g) {
    return Scalar::of_int(static_cast<int64_t>(g.size()));
  });
  EXPECT_EQ(k.str(), "int64[1, 3]");
  EXPECT_EQ(k.flat(2).i, 2);
}

}  // namespace
}  // namespace symshape::interp
