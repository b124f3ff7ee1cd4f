// DType names, categories, sizes, complex pairing and PyTorch's promotion table.
#include <gtest/gtest.h>

#include <array>

#include "symshape/ir.h"

namespace symshape {
namespace {

constexpr std::array<DType, 12> kAll = {
    DType::Bool,    DType::UInt8,   DType::Int8,      DType::Int16,
    DType::Int32,   DType::Int64,   DType::Float16,   DType::BFloat16,
    DType::Float32, DType::Float64, DType::Complex64, DType::Complex128,
};

TEST(DType, NamesRoundTrip) {
  for (DType d : kAll) {
    std::string name(to_string(d));
    ASSERT_EQ(parse_dtype(name), d) << name;
    EXPECT_EQ(parse_dtype("torch." + name), d) << name;
  }
  EXPECT_EQ(to_string(DType::BFloat16), "bfloat16");
  EXPECT_EQ(to_string(DType::Complex128), "complex128");
}

TEST(DType, PyTorchAliases) {
  EXPECT_EQ(parse_dtype("torch.float"), DType::Float32);
  EXPECT_EQ(parse_dtype("half"), DType::Float16);
  EXPECT_EQ(parse_dtype("torch.double"), DType::Float64);
  EXPECT_EQ(parse_dtype("torch.long"), DType::Int64);
  EXPECT_EQ(parse_dtype("int"), DType::Int32);
  EXPECT_EQ(parse_dtype("short"), DType::Int16);
  EXPECT_EQ(parse_dtype("cfloat"), DType::Complex64);
  EXPECT_EQ(parse_dtype("cdouble"), DType::Complex128);
}

TEST(DType, UnknownNames) {
  EXPECT_FALSE(parse_dtype("float33"));
  EXPECT_FALSE(parse_dtype(""));
  EXPECT_FALSE(parse_dtype("torch."));
  EXPECT_FALSE(parse_dtype("Float32"));
  EXPECT_FALSE(parse_dtype("float32 "));
  EXPECT_FALSE(parse_dtype("torch.torch.float32"));
}

TEST(DType, Categories) {
  for (DType d : kAll) {
    int categories = is_floating(d) + is_complex(d) + is_integral(d) + (d == DType::Bool);
    EXPECT_EQ(categories, 1) << to_string(d);
  }
  EXPECT_TRUE(is_floating(DType::BFloat16));
  EXPECT_TRUE(is_floating(DType::Float64));
  EXPECT_FALSE(is_floating(DType::Complex64));
  EXPECT_TRUE(is_complex(DType::Complex128));
  EXPECT_TRUE(is_integral(DType::UInt8));
  EXPECT_FALSE(is_integral(DType::Bool));
}

TEST(DType, ItemSizes) {
  const std::array<int, 12> sizes = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
  for (size_t i = 0; i < kAll.size(); ++i) EXPECT_EQ(item_size(kAll[i]), sizes[i]);
}

TEST(DType, ComplexPairing) {
  EXPECT_EQ(complex_to_real(DType::Complex64), DType::Float32);
  EXPECT_EQ(complex_to_real(DType::Complex128), DType::Float64);
  EXPECT_EQ(complex_to_real(DType::Float16), DType::Float16);  // not complex: unchanged
  EXPECT_EQ(real_to_complex(DType::Float32), DType::Complex64);
  EXPECT_EQ(real_to_complex(DType::Float16), DType::Complex64);
  EXPECT_EQ(real_to_complex(DType::BFloat16), DType::Complex64);
  EXPECT_EQ(real_to_complex(DType::Float64), DType::Complex128);
  EXPECT_EQ(real_to_complex(DType::Complex128), DType::Complex128);
  for (DType d : {DType::Complex64, DType::Complex128}) {
    EXPECT_EQ(real_to_complex(complex_to_real(d)), d);
    EXPECT_EQ(item_size(d), 2 * item_size(complex_to_real(d)));
  }
}

// torch.promote_types for every pair, in the order of kAll.
TEST(DType, PromotionTableMatchesPyTorch) {
  using D = DType;
  const D b = D::Bool, u8 = D::UInt8, i8 = D::Int8, i16 = D::Int16, i32 = D::Int32, i64 = D::Int64,
          f16 = D::Float16, bf = D::BFloat16, f32 = D::Float32, f64 = D::Float64,
          c64 = D::Complex64, c128 = D::Complex128;
  const D table[12][12] = {
      /* b    */ {b, u8, i8, i16, i32, i64, f16, bf, f32, f64, c64, c128},
      /* u8   */ {u8, u8, i16, i16, i32, i64, f16, bf, f32, f64, c64, c128},
      /* i8   */ {i8, i16, i8, i16, i32, i64, f16, bf, f32, f64, c64, c128},
      /* i16  */ {i16, i16, i16, i16, i32, i64, f16, bf, f32, f64, c64, c128},
      /* i32  */ {i32, i32, i32, i32, i32, i64, f16, bf, f32, f64, c64, c128},
      /* i64  */ {i64, i64, i64, i64, i64, i64, f16, bf, f32, f64, c64, c128},
      /* f16  */ {f16, f16, f16, f16, f16, f16, f16, f32, f32, f64, c64, c128},
      /* bf16 */ {bf, bf, bf, bf, bf, bf, f32, bf, f32, f64, c64, c128},
      /* f32  */ {f32, f32, f32, f32, f32, f32, f32, f32, f32, f64, c64, c128},
      /* f64  */ {f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, c128, c128},
      /* c64  */ {c64, c64, c64, c64, c64, c64, c64, c64, c64, c128, c64, c128},
      /* c128 */ {c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128, c128},
  };
  for (size_t i = 0; i < 12; ++i) {
    for (size_t j = 0; j < 12; ++j) {
      EXPECT_EQ(promote_types(kAll[i], kAll[j]), table[i][j])
          << to_string(kAll[i]) << " + " << to_string(kAll[j]) << " gave "
          << to_string(promote_types(kAll[i], kAll[j]));
    }
  }
}

TEST(DType, PromotionIsAssociativeLikeALattice) {
  for (DType a : kAll) {
    for (DType b : kAll) {
      for (DType c : kAll) {
        EXPECT_EQ(promote_types(promote_types(a, b), c), promote_types(a, promote_types(b, c)))
            << to_string(a) << ", " << to_string(b) << ", " << to_string(c);
      }
    }
  }
}

}  // namespace
}  // namespace symshape
