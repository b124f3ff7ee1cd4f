// NumPy's .npy format (version 1.0 and 2.0 headers; little-endian, C order), so that the
// interpreter's inputs and outputs can be compared with other tools.
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "symshape/interp.h"

namespace symshape::interp {

namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct Format {
  const char* descr;
  int size;
};

// The .npy type of a dtype. bfloat16 has no NumPy type: it is written as float32, which holds it
// exactly.
Format format_of(DType d) {
  switch (d) {
    case DType::Bool: return {"|b1", 1};
    case DType::UInt8: return {"|u1", 1};
    case DType::Int8: return {"|i1", 1};
    case DType::Int16: return {"<i2", 2};
    case DType::Int32: return {"<i4", 4};
    case DType::Int64: return {"<i8", 8};
    case DType::Float16: return {"<f2", 2};
    case DType::BFloat16: return {"<f4", 4};
    case DType::Float32: return {"<f4", 4};
    case DType::Float64: return {"<f8", 8};
    case DType::Complex64: return {"<c8", 8};
    case DType::Complex128: return {"<c16", 16};
  }
  return {"?", 0};
}

std::optional<DType> dtype_of_descr(std::string_view descr) {
  static const std::pair<std::string_view, DType> kTable[] = {
      {"|b1", DType::Bool},      {"|u1", DType::UInt8},       {"|i1", DType::Int8},
      {"<i2", DType::Int16},     {"<i4", DType::Int32},       {"<i8", DType::Int64},
      {"<f2", DType::Float16},   {"<f4", DType::Float32},     {"<f8", DType::Float64},
      {"<c8", DType::Complex64}, {"<c16", DType::Complex128}, {"|i8", DType::Int64}};
  for (const auto& [d, t] : kTable) {
    if (d == descr) return t;
  }
  return std::nullopt;
}

template <typename T>
void put(std::string& out, T v) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) std::reverse(bytes, bytes + sizeof(T));
  out.append(bytes, sizeof(T));
}

template <typename T>
T get(const char* p) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, p, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) std::reverse(bytes, bytes + sizeof(T));
  T v;
  std::memcpy(&v, bytes, sizeof(T));
  return v;
}

// IEEE binary16 from a double that already has half precision (the interpreter rounds float16
// values on every store), and back.
uint16_t half_bits(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  double a = std::fabs(v);
  if (std::isnan(v)) return 0x7e00;
  if (std::isinf(a) || a >= 65520.0) return sign | 0x7c00;
  if (a == 0) return sign;
  int e = 0;
  double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int exponent = e - 1 + 15;
  if (exponent <= 0) {  // subnormal: a / 2^-24
    return sign | static_cast<uint16_t>(std::lround(a * 16777216.0));
  }
  uint16_t mantissa = static_cast<uint16_t>(std::lround((m * 2 - 1) * 1024));
  if (mantissa == 1024) {
    mantissa = 0;
    ++exponent;
  }
  if (exponent >= 31) return sign | 0x7c00;
  return sign | static_cast<uint16_t>(exponent << 10) | mantissa;
}

double half_value(uint16_t h) {
  const double sign = (h & 0x8000) ? -1 : 1;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) return mantissa ? std::nan("") : sign * INFINITY;
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

}  // namespace

std::string to_npy(const Tensor& t) {
  const Format f = format_of(t.dtype());
  std::string header =
      "{'descr': '" + std::string(f.descr) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < t.rank(); ++i) {
    header += std::to_string(t.sizes()[i]);
    if (t.rank() == 1 || i + 1 < t.rank()) header += ",";
    if (i + 1 < t.rank()) header += " ";
  }
  header += "), }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to a multiple of 64.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  put<uint16_t>(out, static_cast<uint16_t>(header.size()));
  out += header;
  out.reserve(out.size() + static_cast<size_t>(t.numel()) * static_cast<size_t>(f.size));
  t.for_each_position([&](int64_t p) {
    const Scalar v = t.at_position(p);
    switch (t.dtype()) {
      case DType::Bool: out += static_cast<char>(v.as_bool() ? 1 : 0); break;
      case DType::UInt8: put<uint8_t>(out, static_cast<uint8_t>(v.as_int())); break;
      case DType::Int8: put<int8_t>(out, static_cast<int8_t>(v.as_int())); break;
      case DType::Int16: put<int16_t>(out, static_cast<int16_t>(v.as_int())); break;
      case DType::Int32: put<int32_t>(out, static_cast<int32_t>(v.as_int())); break;
      case DType::Int64: put<int64_t>(out, v.as_int()); break;
      case DType::Float16: put<uint16_t>(out, half_bits(v.as_double())); break;
      case DType::BFloat16:
      case DType::Float32: put<float>(out, static_cast<float>(v.as_double())); break;
      case DType::Float64: put<double>(out, v.as_double()); break;
      case DType::Complex64:
        put<float>(out, static_cast<float>(v.as_complex().real()));
        put<float>(out, static_cast<float>(v.as_complex().imag()));
        break;
      case DType::Complex128:
        put<double>(out, v.as_complex().real());
        put<double>(out, v.as_complex().imag());
        break;
    }
  });
  return out;
}

Tensor from_npy(std::string_view bytes) {
  auto bad = [](const std::string& why) -> Error { return Error("not a .npy file: " + why); };
  if (bytes.size() < 10 || bytes.substr(0, 6) != std::string_view(kMagic, 6)) {
    throw bad("it does not start with \\x93NUMPY");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, start = 0;
  if (major == 1) {
    header_len = get<uint16_t>(bytes.data() + 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw bad("its header is cut short");
    header_len = get<uint32_t>(bytes.data() + 8);
    start = 12;
  } else {
    throw bad("format version " + std::to_string(major) + " is not supported");
  }
  if (start + header_len > bytes.size()) throw bad("its header is cut short");
  const std::string header(bytes.substr(start, header_len));
  auto field = [&](const std::string& key) -> std::string {
    size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) throw bad("its header has no '" + key + "'");
    size_t colon = header.find(':', k);
    if (colon == std::string::npos) throw bad("its header is malformed");
    size_t b = header.find_first_not_of(' ', colon + 1);
    if (b == std::string::npos) throw bad("its header is malformed");
    size_t e = header[b] == '('    ? header.find(')', b) + 1
               : header[b] == '\'' ? header.find('\'', b + 1) + 1
                                   : header.find_first_of(",}", b);
    if (e == std::string::npos || e <= b) throw bad("its header is malformed");
    return header.substr(b, e - b);
  };
  std::string descr = field("descr");
  if (descr.size() < 2 || descr.front() != '\'') throw bad("'descr' is not a string");
  descr = descr.substr(1, descr.size() - 2);
  if (descr == "<b1" || descr == "=b1") descr = "|b1";
  std::optional<DType> dtype = dtype_of_descr(descr);
  if (!dtype) throw bad("the element type '" + descr + "' is not supported");
  if (field("fortran_order") != "False") throw bad("Fortran order is not supported");
  std::string shape = field("shape");
  std::vector<int64_t> sizes;
  for (size_t i = 1; i + 1 < shape.size();) {
    size_t e = shape.find(',', i);
    if (e == std::string::npos) e = shape.size() - 1;
    std::string item = shape.substr(i, e - i);
    item.erase(0, item.find_first_not_of(' '));
    if (!item.empty()) {
      std::optional<Int> v = parse_int(item);
      std::optional<int64_t> n = v ? to_int64(*v) : std::nullopt;
      if (!n || *n < 0) throw bad("its shape " + shape + " is malformed");
      sizes.push_back(*n);
    }
    i = e + 1;
  }
  Tensor t = Tensor::zeros(*dtype, sizes);
  const size_t element = static_cast<size_t>(format_of(*dtype).size);
  const size_t data = start + header_len;
  if (bytes.size() - data != static_cast<size_t>(t.numel()) * element) {
    throw bad("it holds " + std::to_string(bytes.size() - data) + " bytes of data for " +
              std::to_string(t.numel()) + " elements of " + descr);
  }
  for (int64_t i = 0; i < t.numel(); ++i) {
    const char* p = bytes.data() + data + static_cast<size_t>(i) * element;
    Scalar v;
    switch (*dtype) {
      case DType::Bool: v = Scalar::of_bool(*p != 0); break;
      case DType::UInt8: v = Scalar::of_int(get<uint8_t>(p)); break;
      case DType::Int8: v = Scalar::of_int(get<int8_t>(p)); break;
      case DType::Int16: v = Scalar::of_int(get<int16_t>(p)); break;
      case DType::Int32: v = Scalar::of_int(get<int32_t>(p)); break;
      case DType::Int64: v = Scalar::of_int(get<int64_t>(p)); break;
      case DType::Float16: v = Scalar::of_float(half_value(get<uint16_t>(p))); break;
      case DType::BFloat16:
      case DType::Float32: v = Scalar::of_float(get<float>(p)); break;
      case DType::Float64: v = Scalar::of_float(get<double>(p)); break;
      case DType::Complex64: v = Scalar::of_complex({get<float>(p), get<float>(p + 4)}); break;
      case DType::Complex128: v = Scalar::of_complex({get<double>(p), get<double>(p + 8)}); break;
    }
    t.set_position(i, v);  // a fresh contiguous tensor: position i is flat index i
  }
  return t;
}

Tensor read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read '" + path + "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  try {
    return from_npy(bytes.str());
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

void write_npy(const std::string& path, const Tensor& t) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error("cannot write '" + path + "'");
  const std::string bytes = to_npy(t);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw Error("cannot write '" + path + "'");
}

}  // namespace symshape::interp
