// The reference interpreter: runs a graph on small dense CPU tensors.
//
// It is the project's oracle. Kernels are written plainly, for correctness: a shape rule or a pass
// that is wrong only in numbers, or only at some sizes, shows up as a disagreement with it.
// Collectives run as a simulation of W ranks inside one process: every node runs once per rank,
// in lockstep, and a collective's kernel sees its argument on every rank. Or, given a
// Communicator (RunOptions::communicator), run() executes one rank per process and the
// collective kernels exchange tensors through it.
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "symshape/interp/communicator.h"
#include "symshape/ir.h"
#include "symshape/schema.h"

namespace symshape::interp {

using Complex = std::complex<double>;

// One element, held in the widest type of its category: bool and integers as int64, floating
// types as double, complex types as complex<double>.
struct Scalar {
  enum class Kind { Bool, Int, Float, Complex };
  Kind kind = Kind::Int;
  int64_t i = 0;  // Bool (0 or 1), Int
  double f = 0;   // Float
  Complex c;      // Complex

  static Scalar of_bool(bool v) { return {Kind::Bool, v ? 1 : 0, 0, {}}; }
  static Scalar of_int(int64_t v) { return {Kind::Int, v, 0, {}}; }
  static Scalar of_float(double v) { return {Kind::Float, 0, v, {}}; }
  static Scalar of_complex(Complex v) { return {Kind::Complex, 0, 0, v}; }
  // Conversions as PyTorch casts: to bool is `!= 0`; float to int truncates toward zero (and
  // NaN/inf or out-of-range values give 0, a defined stand-in for C++'s undefined behaviour);
  // complex to real keeps the real part.
  bool as_bool() const;
  int64_t as_int() const;
  double as_double() const;
  Complex as_complex() const;
};

// The Scalar kind a dtype's elements are held as.
Scalar::Kind scalar_kind(DType d);
// v converted to d and rounded to d's precision and range: integers wrap to their width, float32
// rounds to float, float16/bfloat16 round to nearest even at their precision, complex64 rounds
// each part to float.
Scalar cast(const Scalar& v, DType d);

// The bytes a run's storages may hold at once (RunOptions::memory_budget). run() installs one for
// the thread it runs on; a storage is charged when allocated and credited when freed.
struct MemoryBudget {
  int64_t limit = 0;      // bytes
  int64_t used = 0;       // bytes held now
  bool exceeded = false;  // a tensor was refused for want of bytes
};

// While alive, tensors allocated on this thread are charged to `budget` (scopes nest).
class MemoryBudgetScope {
 public:
  explicit MemoryBudgetScope(std::shared_ptr<MemoryBudget> budget);
  ~MemoryBudgetScope();
  MemoryBudgetScope(const MemoryBudgetScope&) = delete;
  MemoryBudgetScope& operator=(const MemoryBudgetScope&) = delete;

 private:
  std::shared_ptr<MemoryBudget> previous_;
};

// Storage shared between a tensor and its views. Elements are held as int64 (bool, integers),
// double (floating dtypes) or complex<double>: 8 or 16 bytes each, whatever the dtype.
struct Storage {
  std::vector<int64_t> ints;       // bool and integer dtypes
  std::vector<double> reals;       // floating dtypes
  std::vector<Complex> complexes;  // complex dtypes
  size_t size() const;

  Storage() = default;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage();
  std::shared_ptr<MemoryBudget> charged;  // the budget its bytes count against, if any
  int64_t bytes = 0;
};

// A dense strided tensor. Copying a Tensor shares its storage (like a PyTorch tensor handle);
// clone() copies the elements.
class Tensor {
 public:
  Tensor() = default;
  // A contiguous tensor of zeros. Throws Error for a negative size, more than kMaxElements, or
  // more bytes than the thread's memory budget (MemoryBudgetScope) has left.
  static Tensor zeros(DType dtype, std::vector<int64_t> sizes);
  // A 0-dim tensor holding v (cast to dtype).
  static Tensor scalar(DType dtype, const Scalar& v);
  // A contiguous tensor from row-major values (cast to dtype); values.size() must equal numel.
  static Tensor from(DType dtype, std::vector<int64_t> sizes, const std::vector<Scalar>& values);

  bool defined() const { return storage_ != nullptr; }
  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& sizes() const { return sizes_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  size_t rank() const { return sizes_.size(); }
  int64_t size(int64_t dim) const;  // dim may be negative
  int64_t numel() const;
  bool is_contiguous() const;  // PyTorch's: size-1 dims' strides do not matter

  // Elements by multi-index (one per dim, each in [0, size)).
  Scalar at(std::span<const int64_t> index) const;
  void set(std::span<const int64_t> index, const Scalar& v);  // v is cast to dtype()
  // Elements by row-major logical position in [0, numel).
  Scalar flat(int64_t i) const;
  void set_flat(int64_t i, const Scalar& v);
  // Every element in row-major order.
  std::vector<Scalar> values() const;
  // For kernels and I/O that visit every element: f(p) with the storage position p of each
  // element in row-major order (no per-element index or bounds check: a tensor's elements are
  // inside its storage by construction), and the element at such a position.
  template <class F>
  void for_each_position(F&& f) const;
  Scalar at_position(int64_t p) const;
  void set_position(int64_t p, const Scalar& v);  // v is cast to dtype()

  // A view of the same storage. The caller guarantees every element it reaches is in bounds;
  // it is checked, and a violation throws Error.
  Tensor as_strided(std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) const;
  // The same elements in a fresh contiguous storage.
  Tensor clone() const;
  // This tensor if contiguous, else clone().
  Tensor contiguous() const;
  // Whether `strides` address the same elements as this tensor's own: they agree on every dim of
  // size > 1, or the tensor is empty (PyTorch's is_contiguous ignores such strides alike).
  bool strides_equivalent(const std::vector<int64_t>& strides) const;
  // The same values in a fresh storage laid out with `strides` (non-negative, one per dim), as
  // PyTorch's empty_strided followed by copy_. Throws Error for a bad or too large layout.
  Tensor laid_out(const std::vector<int64_t>& strides) const;
  // A contiguous copy converted to dtype.
  Tensor to(DType dtype) const;
  // Writes src (broadcast to this tensor's shape and cast) into this tensor's elements.
  void copy_from(const Tensor& src);

  // Whether two tensors view the same storage.
  bool shares_storage(const Tensor& other) const { return storage_ == other.storage_; }
  // "float32[2, 3]"
  std::string str() const;

  // Refuses tensors larger than this (2^40 elements) whatever the memory budget: keeps size
  // arithmetic (sizes times element bytes, strides times sizes) far from int64 overflow.
  static constexpr int64_t kMaxElements = int64_t{1} << 40;
  // The memory budget of a run unless RunOptions says otherwise, and of a single tensor made
  // outside run(): 8 GiB (VGG-16's 138 M parameters take 1.1 GB as the interpreter holds them).
  static constexpr int64_t kDefaultMemoryBudget = int64_t{8} << 30;

 private:
  int64_t storage_index(std::span<const int64_t> index) const;
  DType dtype_ = DType::Float32;
  std::vector<int64_t> sizes_, strides_;
  int64_t offset_ = 0;
  std::shared_ptr<Storage> storage_;
};

template <class F>
void Tensor::for_each_position(F&& f) const {
  const size_t r = sizes_.size();
  for (int64_t s : sizes_) {
    if (s <= 0) return;
  }
  if (r == 0) {
    f(offset_);
    return;
  }
  // An odometer over the outer dims; the innermost dim is a plain loop.
  std::vector<int64_t> index(r, 0);
  const int64_t inner = sizes_[r - 1], step = strides_[r - 1];
  int64_t base = offset_;
  while (true) {
    for (int64_t i = 0; i < inner; ++i) f(base + i * step);
    size_t k = r - 1;
    while (true) {
      if (k == 0) return;
      --k;
      base += strides_[k];
      if (++index[k] < sizes_[k]) break;
      base -= strides_[k] * sizes_[k];
      index[k] = 0;
    }
  }
}

// The contiguous strides of sizes.
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes);
// PyTorch's broadcast of two shapes, or nullopt when they do not broadcast.
std::optional<std::vector<int64_t>> broadcast_shapes(const std::vector<int64_t>& a,
                                                     const std::vector<int64_t>& b);
// t expanded (as a stride-0 view) to sizes; throws Error when it does not broadcast.
Tensor expand_to(const Tensor& t, const std::vector<int64_t>& sizes);
// Calls f with every multi-index of sizes, in row-major order.
void for_each_index(const std::vector<int64_t>& sizes,
                    const std::function<void(std::span<const int64_t>)>& f);

// What a node produced at run time.
struct RValue {
  enum class Kind { None, Tensor, Int, Float, Bool, List };
  Kind kind = Kind::None;
  Tensor tensor;
  int64_t integer = 0;
  double real = 0;
  bool truth = false;
  std::vector<RValue> items;

  static RValue none() { return {}; }
  static RValue of(Tensor t);
  static RValue of_int(int64_t v);
  static RValue of_float(double v);
  static RValue of_bool(bool v);
  static RValue list(std::vector<RValue> items);
  bool is_tensor() const { return kind == Kind::Tensor; }
  // "float32[2, 3]", "5", "(float32[2], int64[2])"
  std::string str() const;
};

// An error at run time (a kernel's precondition failed, an index was out of range): names the
// node and its op.
class RunError : public Error {
 public:
  RunError(const Node& node, const std::string& message);
};

// Bad input met by a kernel (a missing or mistyped argument, a dim or index out of range, an op
// without a kernel): what propagation reports as an InputError, so that `run` and `check` give
// one verdict for one graph.
class RunInputError : public RunError {
 public:
  using RunError::RunError;
};

// One process's side of a multi-process run (internal: symshape/interp/process_group.h).
class ProcessGroup;

// What a kernel sees: its node's arguments as run-time values, the rank it runs as, and the
// same argument on every rank of the group (for collectives).
class KernelContext {
 public:
  KernelContext(const Graph& graph, const Node& node, const std::vector<std::vector<RValue>>& ranks,
                size_t rank, const Bindings& dims, std::mt19937_64& rng);

  const Node& node() const { return node_; }
  size_t rank() const { return group_rank_; }
  size_t world_size() const { return group_size_; }
  // In a multi-process run: this process's group, through which collectives exchange tensors
  // (ranks then holds this process's values only, and rank() is its rank in the group); nullptr
  // when the ranks are simulated.
  ProcessGroup* process_group() const { return group_; }
  void set_process_group(ProcessGroup* group, size_t rank, size_t world_size);
  // The values of the graph's named dims (batch, seq, W) in this run.
  const Bindings& dims() const { return dims_; }
  // Deterministic randomness (rand, dropout, randperm): seeded per run and node.
  std::mt19937_64& rng() const { return rng_; }
  // Whether dropout runs as in eval mode whatever its train flag (RunOptions::eval_mode).
  bool eval_mode() const { return eval_mode_; }
  void set_eval_mode(bool on) { eval_mode_ = on; }

  // ---- arguments, by name, bound to the call's signature as OpContext binds them ----
  const OpSchema& schema() const;
  bool declares(std::string_view name) const;
  const Arg* arg(std::string_view name) const;  // nullptr when absent, None or not a parameter
  // Whether the call has the argument: false too when its overload has no such parameter.
  bool has(std::string_view name) const { return declares(name) && arg(name) != nullptr; }
  RValue value(std::string_view name) const;
  RValue value_of(const Arg& a) const;
  Tensor tensor(std::string_view name) const;
  std::optional<Tensor> optional_tensor(std::string_view name) const;
  std::vector<Tensor> tensor_list(std::string_view name) const;
  // Entries may be None (index's list of optional index tensors).
  std::vector<std::optional<Tensor>> optional_tensor_list(std::string_view name) const;
  // An int: a literal, a symbolic expression evaluated at dims(), or a node's int.
  int64_t integer(std::string_view name) const;
  int64_t integer(std::string_view name, int64_t fallback) const;
  std::optional<int64_t> optional_integer(std::string_view name) const;
  // A list of ints (a single int is a one-element list).
  std::vector<int64_t> int_list(std::string_view name) const;
  std::vector<int64_t> int_list(std::string_view name, const std::vector<int64_t>& fallback) const;
  std::optional<std::vector<int64_t>> optional_int_list(std::string_view name) const;
  double real(std::string_view name, double fallback) const;  // int or float
  bool boolean(std::string_view name, bool fallback) const;
  std::string string(std::string_view name, const std::string& fallback) const;
  std::optional<DType> dtype(std::string_view name) const;
  // A number argument (int, float, bool, or a node's number) as a Scalar.
  Scalar scalar(std::string_view name) const;
  std::optional<Scalar> optional_scalar(std::string_view name) const;
  bool is_tensor_arg(std::string_view name) const;

  // The argument name on every rank of the group, in rank order. In a multi-process run the other
  // ranks' values are elsewhere: a RunInputError.
  std::vector<RValue> group_values(std::string_view name) const;

  // A dim normalized into [0, rank) (rank 0 accepts -1 and 0); RunError otherwise.
  size_t normalize_dim(int64_t dim, size_t rank) const;
  [[noreturn]] void fail(const std::string& message) const;       // RunError
  [[noreturn]] void bad_input(const std::string& message) const;  // RunInputError

 private:
  const BoundArgs& bound() const;
  const Graph& graph_;
  const Node& node_;
  const std::vector<std::vector<RValue>>& ranks_;
  size_t slot_;  // this rank's values in ranks_
  size_t group_rank_, group_size_;
  ProcessGroup* group_ = nullptr;
  const Bindings& dims_;
  std::mt19937_64& rng_;
  bool eval_mode_ = false;
  mutable std::optional<BoundArgs> bound_;
};

using Kernel = std::function<RValue(KernelContext&)>;

// The kernels, by target, found as OpRegistry finds rules: the full name, else the overload
// packet (`aten.add.Tensor` -> `aten.add`); an in-place target without a kernel of its own
// (`aten.add_.Tensor`) runs the functional kernel and writes the result into self.
class KernelRegistry {
 public:
  static const KernelRegistry& instance();
  void add(const std::string& target, Kernel kernel);
  const Kernel* find(std::string_view target) const;
  std::vector<std::string> targets() const;  // sorted

 private:
  std::map<std::string, Kernel, std::less<>> kernels_;
};

struct RunOptions {
  // Input tensors by placeholder (or get_attr) node name, on every rank. Inputs and constants
  // not given are generated.
  std::map<std::string, Tensor> inputs;
  // Sizes of generated inputs by placeholder name; the named dims they bind.
  std::map<std::string, std::vector<int64_t>> sizes;
  // Values of named dims (batch=4); overrides the graph's hints when choosing sizes.
  std::map<std::string, int64_t> dims;
  uint64_t seed = 0;
  // Ranks to simulate. 0: the group size the graph's collectives ask for (1 without any).
  size_t world_size = 0;
  // Upper bound for a dim chosen at random when neither sizes, dims nor a hint gives it.
  int64_t max_random_dim = 6;
  // Choose unspecified dims at random in their ranges (else the graph's hint, else 8 clamped),
  // drawing again when the graph does not type-check at them. Hints are never redrawn.
  bool random_dims = false;
  // Dims given by `dims`, `sizes` or `inputs` outside the graph's declared ranges are errors.
  bool check_ranges = false;
  // Give every value the strides its metadata says, as PyTorch lays it out: the graph is
  // propagated at the run's dims, a kernel's result (computed row-major) is copied into a fresh
  // storage with the metadata's strides, and a view keeps its own (docs/interp.md, Layouts).
  // false: every result keeps the layout its kernel gave it.
  bool layouts = true;
  // The bytes every storage of the run may hold at once (8 per element, 16 per complex one;
  // values stay alive until the run ends). A tensor that would exceed it fails its node, with
  // the bytes it needs and the budget.
  int64_t memory_budget = Tensor::kDefaultMemoryBudget;
  // Run dropout as in eval mode (the identity) whatever its train flag: the model in inference.
  bool eval_mode = false;
  // The kernels to use; nullptr: KernelRegistry::instance().
  const KernelRegistry* kernels = nullptr;
  // A multi-process run: this process runs rank communicator->rank() of a group of
  // communicator->world_size() processes, each calling run() with the same graph and options,
  // and the collectives exchange tensors through it (world_size, if set, must be the same).
  // Inputs are generated as the simulated run generates that rank's. A failure on any rank
  // fails the run on every rank, with the same error, naming the rank it happened on (unless
  // every rank met it); no rank is left waiting in a collective. nullptr: the ranks are
  // simulated in this process.
  Communicator* communicator = nullptr;
};

struct RunResult {
  bool ok = false;
  std::string error;  // names the node when a kernel failed
  size_t failed_node = 0;
  // The failure is bad input (a RunInputError, or an error before any op ran: the dims, the
  // inputs), not an op failing on well-formed input. `check` calls the same graph an InputError.
  bool input_error = false;
  // The failure is a tensor the memory budget (RunOptions::memory_budget) could not hold.
  bool over_budget = false;
  Bindings dims;          // the named dims' values in this run
  size_t world_size = 1;  // the ranks that ran (simulated, or the communicator's processes)
  size_t rank = 0;        // whose values `values` holds: 0, or this process's rank
  // One value per node, in graph order, on rank `rank` (None after an error).
  std::vector<RValue> values;
  // Every rank's values (ranks[0] == values) when more than one rank was simulated; empty in a
  // multi-process run.
  std::vector<std::vector<RValue>> ranks;
  // The output node's value on rank 0.
  const RValue& output() const { return values.back(); }
};

// Binds the named dims from the inputs' declared shapes and the given sizes (a size written
// `2*seq` binds seq when the size is even), chooses the rest, generates the inputs and constants
// (get_attr without a value: filled from the seed), and runs every node on every rank (or on
// this process's rank, with a communicator). Never throws: errors come back in RunResult.
RunResult run(const Graph& graph, const RunOptions& options = {});

// NumPy's .npy format: a tensor as the bytes of a .npy file (C order, little-endian; bfloat16 is
// written as float32, which holds it exactly) and back (version 1 to 3 headers). Throws Error
// naming what is wrong with a file it cannot read.
std::string to_npy(const Tensor& t);
Tensor from_npy(std::string_view bytes);
Tensor read_npy(const std::string& path);
void write_npy(const std::string& path, const Tensor& t);

// An order-independent-of-layout checksum of a tensor's values (row-major), for printing.
uint64_t checksum(const Tensor& t);

}  // namespace symshape::interp
