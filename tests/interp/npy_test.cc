// NumPy .npy files: the bytes NumPy writes, read back; every dtype round-trips; bad files are
// refused with the reason.
#include <gtest/gtest.h>

#include "symshape/interp.h"

namespace symshape::interp {
namespace {

TEST(Npy, HeaderIsNumpysVersionOneLayout) {
  Tensor t = Tensor::from(DType::Float32, {2, 3},
                          {Scalar::of_float(1), Scalar::of_float(2), Scalar::of_float(3),
                           Scalar::of_float(4), Scalar::of_float(5), Scalar::of_float(6)});
  const std::string bytes = to_npy(t);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t header_len =
      static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  const std::string header = bytes.substr(10, header_len);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(bytes.size(), 10 + header_len + 6 * 4);
}

TEST(Npy, OneDimShapeHasATrailingComma) {
  Tensor t = Tensor::zeros(DType::Int64, {5});
  EXPECT_NE(to_npy(t).find("'shape': (5,)"), std::string::npos);
  Tensor s = Tensor::scalar(DType::Int64, Scalar::of_int(7));
  EXPECT_NE(to_npy(s).find("'shape': ()"), std::string::npos);
  EXPECT_EQ(from_npy(to_npy(s)).flat(0).as_int(), 7);
}

TEST(Npy, EveryDTypeRoundTrips) {
  const std::vector<Scalar> values{Scalar::of_float(1.5),  Scalar::of_float(-2),
                                   Scalar::of_float(0),    Scalar::of_float(100),
                                   Scalar::of_float(0.25), Scalar::of_float(3)};
  for (DType d : {DType::Bool, DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Int64,
                  DType::Float16, DType::BFloat16, DType::Float32, DType::Float64, DType::Complex64,
                  DType::Complex128}) {
    Tensor t = Tensor::from(d, {3, 2}, values);
    Tensor back = from_npy(to_npy(t));
    ASSERT_EQ(back.sizes(), t.sizes()) << to_string(d);
    // bfloat16 comes back as the float32 it was written as, with the same values.
    EXPECT_EQ(back.dtype(), d == DType::BFloat16 ? DType::Float32 : d);
    for (int64_t i = 0; i < t.numel(); ++i) {
      EXPECT_EQ(back.flat(i).as_complex(), t.flat(i).as_complex()) << to_string(d) << " " << i;
    }
  }
}

TEST(Npy, HalfPrecisionEdgeValues) {
  // 65504 is float16's largest finite value, 2^-24 its smallest subnormal.
  Tensor t = Tensor::from(DType::Float16, {4},
                          {Scalar::of_float(65504), Scalar::of_float(-0.5),
                           Scalar::of_float(5.960464477539063e-08), Scalar::of_float(1.0 / 3)});
  Tensor back = from_npy(to_npy(t));
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(back.flat(i).as_double(), t.flat(i).as_double());
}

TEST(Npy, RefusesWhatItCannotRead) {
  EXPECT_THROW(from_npy("hello"), Error);
  std::string good = to_npy(Tensor::zeros(DType::Float32, {4}));
  EXPECT_THROW(from_npy(good.substr(0, good.size() - 1)), Error);  // data cut short
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  try {
    from_npy(fortran);
    FAIL() << "a Fortran-order file was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Fortran order"), std::string::npos);
  }
  std::string odd = good;
  odd.replace(odd.find("<f4"), 3, ">f4");
  EXPECT_THROW(from_npy(odd), Error);  // big-endian is not supported
}

}  // namespace
}  // namespace symshape::interp
