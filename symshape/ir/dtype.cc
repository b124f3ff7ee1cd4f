// Tensor element types: names, categories, sizes and PyTorch's type promotion between tensors.
#include <array>
#include <string_view>
#include <utility>

#include "symshape/ir.h"

namespace symshape {

namespace {

// Canonical names, indexed by the enum's value.
constexpr std::array<std::string_view, 12> kNames = {
    "bool",    "uint8",    "int8",    "int16",   "int32",     "int64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
};

// PyTorch's other spellings of the same dtypes (torch.float is float32, torch.long is int64...).
constexpr std::pair<std::string_view, DType> kAliases[] = {
    {"half", DType::Float16},     {"float", DType::Float32},      {"double", DType::Float64},
    {"short", DType::Int16},      {"int", DType::Int32},          {"long", DType::Int64},
    {"cfloat", DType::Complex64}, {"cdouble", DType::Complex128},
};

int index(DType d) { return static_cast<int>(d); }

// Width rank inside one category, for choosing the wider of two dtypes of that category.
int float_rank(DType d) {
  switch (d) {
    case DType::Float16:
    case DType::BFloat16: return 0;
    case DType::Float32: return 1;
    default: return 2;  // Float64
  }
}

}  // namespace

std::string_view to_string(DType d) { return kNames[index(d)]; }

std::optional<DType> parse_dtype(std::string_view name) {
  if (name.starts_with("torch.")) name.remove_prefix(6);
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<DType>(i);
  }
  for (const auto& [alias, d] : kAliases) {
    if (alias == name) return d;
  }
  return std::nullopt;
}

bool is_floating(DType d) {
  return d == DType::Float16 || d == DType::BFloat16 || d == DType::Float32 || d == DType::Float64;
}

bool is_complex(DType d) { return d == DType::Complex64 || d == DType::Complex128; }

bool is_integral(DType d) {
  return d == DType::UInt8 || d == DType::Int8 || d == DType::Int16 || d == DType::Int32 ||
         d == DType::Int64;
}

int item_size(DType d) {
  switch (d) {
    case DType::Bool:
    case DType::UInt8:
    case DType::Int8: return 1;
    case DType::Int16:
    case DType::Float16:
    case DType::BFloat16: return 2;
    case DType::Int32:
    case DType::Float32: return 4;
    case DType::Int64:
    case DType::Float64:
    case DType::Complex64: return 8;
    case DType::Complex128: return 16;
  }
  return 0;
}

DType complex_to_real(DType d) {
  if (d == DType::Complex64) return DType::Float32;
  if (d == DType::Complex128) return DType::Float64;
  return d;
}

DType real_to_complex(DType d) {
  if (is_complex(d)) return d;
  return d == DType::Float64 ? DType::Complex128 : DType::Complex64;
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  // Complex dominates; its precision is double when either side carries double precision.
  if (is_complex(a) || is_complex(b)) {
    bool wide = a == DType::Complex128 || b == DType::Complex128 || a == DType::Float64 ||
                b == DType::Float64;
    return wide ? DType::Complex128 : DType::Complex64;
  }
  if (is_floating(a) && is_floating(b)) {
    int ra = float_rank(a), rb = float_rank(b);
    if (ra == rb) return DType::Float32;  // float16 with bfloat16: neither holds the other
    return ra > rb ? a : b;
  }
  if (is_floating(a)) return a;
  if (is_floating(b)) return b;
  // Bool and integers.
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  if ((a == DType::UInt8 && b == DType::Int8) || (a == DType::Int8 && b == DType::UInt8)) {
    return DType::Int16;  // the smallest signed type holding both ranges
  }
  // The enum orders uint8 < int8 < int16 < int32 < int64, and uint8 with any wider signed type
  // gives the wider one.
  return index(a) > index(b) ? a : b;
}

}  // namespace symshape
