// Scalars, casts and dense strided tensors for the reference interpreter.
#include <cmath>
#include <cstring>
#include <limits>

#include "symshape/interp.h"

namespace symshape::interp {

// ---------------------------------------------------------------------------------------------
// Scalar
// ---------------------------------------------------------------------------------------------

namespace {

// A double truncated toward zero as int64; NaN, infinities and out-of-range values give 0.
int64_t truncate_to_int(double v) {
  if (!std::isfinite(v)) return 0;
  double t = std::trunc(v);
  // [-2^63, 2^63) is exactly representable at its ends.
  if (t < -9223372036854775808.0 || t >= 9223372036854775808.0) return 0;
  return static_cast<int64_t>(t);
}

}  // namespace

bool Scalar::as_bool() const {
  switch (kind) {
    case Kind::Bool:
    case Kind::Int: return i != 0;
    case Kind::Float: return f != 0;
    case Kind::Complex: return c != Complex(0, 0);
  }
  return false;
}

int64_t Scalar::as_int() const {
  switch (kind) {
    case Kind::Bool:
    case Kind::Int: return i;
    case Kind::Float: return truncate_to_int(f);
    case Kind::Complex: return truncate_to_int(c.real());
  }
  return 0;
}

double Scalar::as_double() const {
  switch (kind) {
    case Kind::Bool:
    case Kind::Int: return static_cast<double>(i);
    case Kind::Float: return f;
    case Kind::Complex: return c.real();
  }
  return 0;
}

Complex Scalar::as_complex() const {
  if (kind == Kind::Complex) return c;
  return Complex(as_double(), 0);
}

Scalar::Kind scalar_kind(DType d) {
  if (d == DType::Bool) return Scalar::Kind::Bool;
  if (is_complex(d)) return Scalar::Kind::Complex;
  if (is_floating(d)) return Scalar::Kind::Float;
  return Scalar::Kind::Int;
}

namespace {

// v rounded to a binary floating format with `precision` significant bits, minimum normal
// exponent `emin` (of the leading bit) and largest finite value `max`: round to nearest, ties to
// even, subnormals included, overflow to infinity.
double round_to_format(double v, int precision, int emin, double max) {
  if (!std::isfinite(v) || v == 0) return v;
  int e = 0;
  std::frexp(v, &e);  // v = m * 2^e with |m| in [0.5, 1): the leading bit's exponent is e - 1
  int lead = std::max(e - 1, emin);
  double ulp = std::ldexp(1.0, lead - (precision - 1));
  double r = std::nearbyint(v / ulp) * ulp;  // the default rounding mode: ties to even
  if (std::fabs(r) > max) return std::copysign(std::numeric_limits<double>::infinity(), v);
  return r;
}

double round_float(double v, DType d) {
  switch (d) {
    case DType::Float64: return v;
    case DType::Float32:
    case DType::Complex64: return static_cast<double>(static_cast<float>(v));
    case DType::Float16:
      // PyTorch converts through float: round to float first, then to half.
      return round_to_format(static_cast<float>(v), 11, -14, 65504.0);
    case DType::BFloat16:
      return round_to_format(static_cast<float>(v), 8, -126,
                             std::ldexp(static_cast<double>((1 << 8) - 1), 127 - 7));
    default: return v;
  }
}

int64_t wrap_int(int64_t v, DType d) {
  const uint64_t u = static_cast<uint64_t>(v);
  switch (d) {
    case DType::Bool: return v != 0 ? 1 : 0;
    case DType::UInt8: return static_cast<int64_t>(u & 0xffu);
    case DType::Int8: return static_cast<int8_t>(static_cast<uint8_t>(u & 0xffu));
    case DType::Int16: return static_cast<int16_t>(static_cast<uint16_t>(u & 0xffffu));
    case DType::Int32: return static_cast<int32_t>(static_cast<uint32_t>(u & 0xffffffffu));
    default: return v;
  }
}

}  // namespace

Scalar cast(const Scalar& v, DType d) {
  switch (scalar_kind(d)) {
    case Scalar::Kind::Bool: return Scalar::of_bool(v.as_bool());
    case Scalar::Kind::Int: return Scalar::of_int(wrap_int(v.as_int(), d));
    case Scalar::Kind::Float: return Scalar::of_float(round_float(v.as_double(), d));
    case Scalar::Kind::Complex: {
      Complex c = v.as_complex();
      return Scalar::of_complex(Complex(round_float(c.real(), d), round_float(c.imag(), d)));
    }
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Storage and Tensor
// ---------------------------------------------------------------------------------------------

size_t Storage::size() const { return ints.size() + reals.size() + complexes.size(); }

namespace {
thread_local std::shared_ptr<MemoryBudget> current_budget;
}  // namespace

MemoryBudgetScope::MemoryBudgetScope(std::shared_ptr<MemoryBudget> budget)
    : previous_(std::move(current_budget)) {
  current_budget = std::move(budget);
}

MemoryBudgetScope::~MemoryBudgetScope() { current_budget = std::move(previous_); }

Storage::~Storage() {
  if (charged) charged->used -= bytes;
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  int64_t s = 1;
  for (size_t k = sizes.size(); k-- > 0;) {
    strides[k] = s;
    s *= std::max<int64_t>(sizes[k], 1);
  }
  return strides;
}

namespace {

int64_t checked_numel(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  bool zero = false;
  // The product of the nonzero sizes bounds every contiguous stride: keep it far from overflow
  // even for an empty tensor such as [0, 2^40, 2^40].
  __int128 extent = 1;
  for (int64_t s : sizes) {
    if (s < 0) throw Error("negative size " + std::to_string(s) + " for a tensor");
    if (s == 0) zero = true;
    extent *= std::max<int64_t>(s, 1);
    if (extent > (__int128{1} << 62)) {
      throw Error("a tensor of sizes this large is too large for the interpreter");
    }
  }
  if (zero) return 0;
  for (int64_t s : sizes) {
    if (n > Tensor::kMaxElements / s) {
      throw Error("a tensor of more than " + std::to_string(Tensor::kMaxElements) +
                  " elements is too large for the interpreter");
    }
    n *= s;
  }
  return n;
}

std::string sizes_str(const std::vector<int64_t>& sizes) {
  std::string s = "[";
  for (size_t k = 0; k < sizes.size(); ++k) s += (k ? ", " : "") + std::to_string(sizes[k]);
  return s + "]";
}

}  // namespace

Tensor Tensor::zeros(DType dtype, std::vector<int64_t> sizes) {
  int64_t n = checked_numel(sizes);
  // n <= 2^40, so the bytes fit in int64.
  const int64_t element = scalar_kind(dtype) == Scalar::Kind::Complex ? 16 : 8;
  const int64_t bytes = n * element;
  const int64_t limit = current_budget ? current_budget->limit : kDefaultMemoryBudget;
  const int64_t used = current_budget ? current_budget->used : 0;
  if (bytes > limit - used) {
    if (current_budget) current_budget->exceeded = true;
    throw Error("a tensor " + std::string(to_string(dtype)) + sizes_str(sizes) +
                " is too large for the interpreter: it needs " + std::to_string(bytes) +
                " bytes (" + std::to_string(element) + " per element), more than the " +
                std::to_string(limit - used) +
                " bytes left of the interpreter's memory budget of " + std::to_string(limit) +
                " bytes (RunOptions::memory_budget, --memory-budget)");
  }
  Tensor t;
  t.dtype_ = dtype;
  t.strides_ = contiguous_strides(sizes);
  t.sizes_ = std::move(sizes);
  t.storage_ = std::make_shared<Storage>();
  if (current_budget) {
    t.storage_->charged = current_budget;
    t.storage_->bytes = bytes;
    current_budget->used += bytes;
  }
  switch (scalar_kind(dtype)) {
    case Scalar::Kind::Bool:
    case Scalar::Kind::Int: t.storage_->ints.assign(static_cast<size_t>(n), 0); break;
    case Scalar::Kind::Float: t.storage_->reals.assign(static_cast<size_t>(n), 0.0); break;
    case Scalar::Kind::Complex: t.storage_->complexes.assign(static_cast<size_t>(n), {}); break;
  }
  return t;
}

Tensor Tensor::scalar(DType dtype, const Scalar& v) {
  Tensor t = zeros(dtype, {});
  t.set_flat(0, v);
  return t;
}

Tensor Tensor::from(DType dtype, std::vector<int64_t> sizes, const std::vector<Scalar>& values) {
  Tensor t = zeros(dtype, std::move(sizes));
  if (static_cast<int64_t>(values.size()) != t.numel()) {
    throw Error("Tensor::from: " + std::to_string(values.size()) + " values for a tensor of " +
                std::to_string(t.numel()) + " elements");
  }
  for (size_t k = 0; k < values.size(); ++k) t.set_flat(static_cast<int64_t>(k), values[k]);
  return t;
}

int64_t Tensor::size(int64_t dim) const {
  const int64_t r = static_cast<int64_t>(rank());
  if (dim < -r || dim >= r) {
    throw Error("dim " + std::to_string(dim) + " out of range for a tensor of rank " +
                std::to_string(r));
  }
  return sizes_[static_cast<size_t>(dim < 0 ? dim + r : dim)];
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes_) n *= s;
  return n;
}

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (size_t k = sizes_.size(); k-- > 0;) {
    if (sizes_[k] == 0) return true;
    if (sizes_[k] == 1) continue;
    if (strides_[k] != expected) return false;
    expected *= sizes_[k];
  }
  return true;
}

int64_t Tensor::storage_index(std::span<const int64_t> index) const {
  if (!storage_) throw Error("use of an undefined tensor");
  if (index.size() != sizes_.size()) {
    throw Error("index of " + std::to_string(index.size()) + " entries for a tensor of rank " +
                std::to_string(sizes_.size()));
  }
  int64_t at = offset_;
  for (size_t k = 0; k < index.size(); ++k) {
    if (index[k] < 0 || index[k] >= sizes_[k]) {
      throw Error("index " + std::to_string(index[k]) + " out of range for dim " +
                  std::to_string(k) + " of size " + std::to_string(sizes_[k]));
    }
    at += index[k] * strides_[k];
  }
  if (at < 0 || static_cast<size_t>(at) >= storage_->size()) {
    throw Error("element outside the tensor's storage");
  }
  return at;
}

Scalar Tensor::at(std::span<const int64_t> index) const {
  return at_position(storage_index(index));
}

void Tensor::set(std::span<const int64_t> index, const Scalar& v) {
  set_position(storage_index(index), v);
}

namespace {
// The storage position of row-major element i (in range).
int64_t flat_position(const Tensor& t, int64_t i) {
  int64_t p = t.offset();
  for (size_t k = t.rank(); k-- > 0;) {
    const int64_t s = t.sizes()[k];
    p += (i % s) * t.strides()[k];
    i /= s;
  }
  return p;
}

}  // namespace

Scalar Tensor::flat(int64_t i) const {
  if (i < 0 || i >= numel()) throw Error("flat index " + std::to_string(i) + " out of range");
  return at_position(flat_position(*this, i));
}

void Tensor::set_flat(int64_t i, const Scalar& v) {
  if (i < 0 || i >= numel()) throw Error("flat index " + std::to_string(i) + " out of range");
  set_position(flat_position(*this, i), v);
}

Scalar Tensor::at_position(int64_t p) const {
  const size_t k = static_cast<size_t>(p);
  switch (scalar_kind(dtype_)) {
    case Scalar::Kind::Bool: return Scalar::of_bool(storage_->ints[k] != 0);
    case Scalar::Kind::Int: return Scalar::of_int(storage_->ints[k]);
    case Scalar::Kind::Float: return Scalar::of_float(storage_->reals[k]);
    case Scalar::Kind::Complex: return Scalar::of_complex(storage_->complexes[k]);
  }
  return {};
}

void Tensor::set_position(int64_t p, const Scalar& v) {
  const size_t k = static_cast<size_t>(p);
  Scalar c = cast(v, dtype_);
  switch (scalar_kind(dtype_)) {
    case Scalar::Kind::Bool:
    case Scalar::Kind::Int: storage_->ints[k] = c.i; break;
    case Scalar::Kind::Float: storage_->reals[k] = c.f; break;
    case Scalar::Kind::Complex: storage_->complexes[k] = c.c; break;
  }
}

std::vector<Scalar> Tensor::values() const {
  std::vector<Scalar> out;
  if (!storage_) return out;
  out.reserve(static_cast<size_t>(numel()));
  for_each_position([&](int64_t p) { out.push_back(at_position(p)); });
  return out;
}

namespace {

// Copies src's elements, in row-major order, to the storage positions `dst` lists (of the same
// dtype's storage vector).
template <class T>
void copy_to_positions(const std::vector<T>& from, std::vector<T>& to, const Tensor& src,
                       const std::vector<int64_t>& dst) {
  size_t k = 0;
  src.for_each_position(
      [&](int64_t p) { to[static_cast<size_t>(dst[k++])] = from[static_cast<size_t>(p)]; });
}

// The storage positions of t's elements in row-major order.
std::vector<int64_t> positions(const Tensor& t) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(t.numel()));
  t.for_each_position([&](int64_t p) { out.push_back(p); });
  return out;
}

}  // namespace

Tensor Tensor::as_strided(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                          int64_t offset) const {
  if (!storage_) throw Error("as_strided of an undefined tensor");
  if (sizes.size() != strides.size()) {
    throw Error("as_strided: " + std::to_string(sizes.size()) + " sizes but " +
                std::to_string(strides.size()) + " strides");
  }
  checked_numel(sizes);
  bool empty = false;
  for (int64_t s : sizes) empty |= s == 0;
  if (offset < 0) throw Error("as_strided: negative storage offset " + std::to_string(offset));
  if (!empty) {
    __int128 lo = offset, hi = offset;
    for (size_t k = 0; k < sizes.size(); ++k) {
      __int128 reach = static_cast<__int128>(strides[k]) * (sizes[k] - 1);
      if (reach < 0)
        lo += reach;
      else
        hi += reach;
    }
    if (lo < 0 || hi >= static_cast<__int128>(storage_->size())) {
      throw Error("as_strided: view " + sizes_str(sizes) + " with strides " + sizes_str(strides) +
                  " and offset " + std::to_string(offset) + " reaches outside a storage of " +
                  std::to_string(storage_->size()) + " elements");
    }
  }
  Tensor t = *this;
  t.sizes_ = std::move(sizes);
  t.strides_ = std::move(strides);
  t.offset_ = offset;
  return t;
}

Tensor Tensor::clone() const {
  if (!storage_) return Tensor();
  Tensor t = zeros(dtype_, sizes_);
  size_t k = 0;
  switch (scalar_kind(dtype_)) {
    case Scalar::Kind::Bool:
    case Scalar::Kind::Int:
      for_each_position([&](int64_t p) { t.storage_->ints[k++] = storage_->ints[p]; });
      break;
    case Scalar::Kind::Float:
      for_each_position([&](int64_t p) { t.storage_->reals[k++] = storage_->reals[p]; });
      break;
    case Scalar::Kind::Complex:
      for_each_position([&](int64_t p) { t.storage_->complexes[k++] = storage_->complexes[p]; });
      break;
  }
  return t;
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

bool Tensor::strides_equivalent(const std::vector<int64_t>& strides) const {
  if (strides.size() != sizes_.size()) return false;
  if (numel() == 0) return true;
  for (size_t k = 0; k < sizes_.size(); ++k) {
    if (sizes_[k] != 1 && strides[k] != strides_[k]) return false;
  }
  return true;
}

Tensor Tensor::laid_out(const std::vector<int64_t>& strides) const {
  if (!storage_) return Tensor();
  if (strides.size() != sizes_.size()) {
    throw Error("a layout of " + std::to_string(strides.size()) + " strides for " + str());
  }
  const bool empty = numel() == 0;
  __int128 extent = empty ? 0 : 1;
  for (size_t k = 0; k < sizes_.size(); ++k) {
    if (strides[k] < 0) throw Error("a layout with a negative stride " + sizes_str(strides));
    if (!empty) extent += static_cast<__int128>(strides[k]) * (sizes_[k] - 1);
    if (extent > (__int128{1} << 62)) {
      throw Error("strides " + sizes_str(strides) + " reach too far for the interpreter");
    }
  }
  Tensor out = zeros(dtype_, {static_cast<int64_t>(extent)}).as_strided(sizes_, strides, 0);
  const std::vector<int64_t> dst = positions(out);
  switch (scalar_kind(dtype_)) {
    case Scalar::Kind::Bool:
    case Scalar::Kind::Int:
      copy_to_positions(storage_->ints, out.storage_->ints, *this, dst);
      break;
    case Scalar::Kind::Float:
      copy_to_positions(storage_->reals, out.storage_->reals, *this, dst);
      break;
    case Scalar::Kind::Complex:
      copy_to_positions(storage_->complexes, out.storage_->complexes, *this, dst);
      break;
  }
  return out;
}

Tensor Tensor::to(DType dtype) const {
  Tensor t = zeros(dtype, sizes_);
  int64_t k = 0;
  if (storage_) for_each_position([&](int64_t p) { t.set_position(k++, at_position(p)); });
  return t;
}

void Tensor::copy_from(const Tensor& src) {
  Tensor b = expand_to(src, sizes_);
  // Read everything first: src may overlap this tensor's storage.
  std::vector<Scalar> vals = b.values();
  size_t k = 0;
  for_each_position([&](int64_t p) { set_position(p, vals[k++]); });
}

std::string Tensor::str() const { return std::string(to_string(dtype_)) + sizes_str(sizes_); }

std::optional<std::vector<int64_t>> broadcast_shapes(const std::vector<int64_t>& a,
                                                     const std::vector<int64_t>& b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n, 1);
  for (size_t k = 0; k < n; ++k) {
    int64_t x = k < n - a.size() ? 1 : a[k - (n - a.size())];
    int64_t y = k < n - b.size() ? 1 : b[k - (n - b.size())];
    if (x == y || y == 1)
      out[k] = x;
    else if (x == 1)
      out[k] = y;
    else
      return std::nullopt;
  }
  return out;
}

Tensor expand_to(const Tensor& t, const std::vector<int64_t>& sizes) {
  if (t.rank() > sizes.size()) {
    throw Error("cannot expand " + t.str() + " to " + sizes_str(sizes) + ": too many dims");
  }
  const size_t lead = sizes.size() - t.rank();
  std::vector<int64_t> strides(sizes.size(), 0);
  for (size_t k = 0; k < t.rank(); ++k) {
    int64_t have = t.sizes()[k], want = sizes[lead + k];
    if (have == want) {
      strides[lead + k] = t.strides()[k];
    } else if (have == 1) {
      strides[lead + k] = 0;
    } else {
      throw Error("cannot expand " + t.str() + " to " + sizes_str(sizes));
    }
  }
  for (int64_t s : sizes) {
    if (s < 0) throw Error("cannot expand to a negative size " + sizes_str(sizes));
  }
  return t.as_strided(sizes, strides, t.offset());
}

void for_each_index(const std::vector<int64_t>& sizes,
                    const std::function<void(std::span<const int64_t>)>& f) {
  for (int64_t s : sizes) {
    if (s <= 0) return;
  }
  std::vector<int64_t> index(sizes.size(), 0);
  while (true) {
    f(index);
    size_t k = sizes.size();
    while (k > 0) {
      --k;
      if (++index[k] < sizes[k]) break;
      index[k] = 0;
      if (k == 0) return;
    }
    if (sizes.empty()) return;
  }
}

// ---------------------------------------------------------------------------------------------
// checksum: FNV-1a over the dtype, the sizes and every value in row-major order
// ---------------------------------------------------------------------------------------------

namespace {
struct Fnv {
  uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t k = 0; k < n; ++k) {
      h ^= b[k];
      h *= 1099511628211ull;
    }
  }
  void u64(uint64_t v) { bytes(&v, sizeof v); }
  void real(double v) {
    if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
    if (v == 0) v = 0;  // -0.0 and 0.0 alike
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
};
}  // namespace

uint64_t checksum(const Tensor& t) {
  Fnv f;
  if (!t.defined()) return f.h;
  f.bytes(to_string(t.dtype()).data(), to_string(t.dtype()).size());
  f.u64(t.rank());
  for (int64_t s : t.sizes()) f.u64(static_cast<uint64_t>(s));
  t.for_each_position([&](int64_t p) {
    Scalar v = t.at_position(p);
    switch (v.kind) {
      case Scalar::Kind::Bool:
      case Scalar::Kind::Int: f.u64(static_cast<uint64_t>(v.i)); break;
      case Scalar::Kind::Float: f.real(v.f); break;
      case Scalar::Kind::Complex:
        f.real(v.c.real());
        f.real(v.c.imag());
        break;
    }
  });
  return f.h;
}

}  // namespace symshape::interp
