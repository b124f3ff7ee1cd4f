// Kernels: functional collectives, simulated over the W ranks the interpreter runs in lockstep.
// Every rank's kernel sees the argument on every rank (KernelContext::group_values). The whole
// group's results are computed once, by rank 0's kernel, and handed out by rank: so an in-place
// collective that writes into rank 0's tensor cannot change what rank 1 reads.
//
// In a multi-process run (KernelContext::process_group) each process runs one rank: the kernel
// checks its own arguments, exchanges their metadata (dtypes, sizes, split sizes) with the other
// ranks (process_group.h), checks them all as the simulated run does, then moves the elements
// through the Communicator. Elements travel as the interpreter holds them (double, two per
// complex element, int64), and a reduction is cast to the dtype afterwards, as in the simulated
// run: the results are the simulated ones, up to the order in which ranks' values are added.
//
// all_gather concatenates the ranks' tensors along dim 0; reduce_scatter reduces across ranks
// and gives rank r the r-th slice of dim 0; all_reduce reduces; broadcast copies rank src's;
// all_to_all_single sends the r-th split of every rank's input to rank r. The native
// `_c10d_functional` ops and the legacy `c10d_functional` ones (tag, ranks, group_size last)
// name their arguments differently; their signatures (schema.h) say how.
#include <algorithm>
#include <map>
#include <type_traits>

#include "symshape/interp/kernels.h"
#include "symshape/interp/process_group.h"

namespace symshape::interp::kernels {

namespace {

// Each rank's result of the node being run, computed by rank 0's kernel.
std::map<const Node*, std::vector<RValue>>& group_results() {
  static thread_local std::map<const Node*, std::vector<RValue>> results;
  return results;
}

// Runs `compute` (which returns every rank's result) on rank 0, and hands out rank r's.
RValue per_rank(KernelContext& ctx, const std::function<std::vector<RValue>()>& compute) {
  auto& results = group_results();
  if (ctx.rank() == 0) {
    std::vector<RValue> all = compute();
    if (all.size() != ctx.world_size()) ctx.fail("internal: wrong number of rank results");
    results[&ctx.node()] = std::move(all);
  }
  auto it = results.find(&ctx.node());
  if (it == results.end() || ctx.rank() >= it->second.size()) {
    ctx.fail("internal: the group's result was not computed");
  }
  RValue out = it->second[ctx.rank()];
  if (ctx.rank() + 1 == ctx.world_size()) results.erase(it);
  return out;
}

// A rank's tensors of the op's first argument (input, inputs, self or shard, as each form names
// it): one unless coalesced.
std::vector<Tensor> tensors_of(KernelContext& ctx, const RValue& v, bool coalesced) {
  std::vector<Tensor> ts;
  if (coalesced) {
    if (v.kind != RValue::Kind::List) ctx.bad_input("expected a list of tensors, got " + v.str());
    for (const RValue& item : v.items) {
      if (!item.is_tensor()) ctx.bad_input("expected a list of tensors, got " + v.str());
      ts.push_back(item.tensor);
    }
  } else {
    if (!v.is_tensor()) ctx.bad_input("expected a tensor, got " + v.str());
    ts.push_back(v.tensor);
  }
  return ts;
}

// The argument's tensors on every rank: [rank][k].
std::vector<std::vector<Tensor>> group_tensors(KernelContext& ctx, bool coalesced) {
  std::vector<std::vector<Tensor>> out;
  for (const RValue& v : ctx.group_values(ctx.schema().params.at(0).name)) {
    std::vector<Tensor> ts = tensors_of(ctx, v, coalesced);
    if (!out.empty() && ts.size() != out[0].size()) {
      ctx.fail("the ranks pass different numbers of tensors");
    }
    out.push_back(std::move(ts));
  }
  return out;
}

void check_group_size(KernelContext& ctx) {
  const int64_t w = ctx.integer("group_size");
  if (w != static_cast<int64_t>(ctx.world_size())) {
    ctx.fail(
        "group size " + std::to_string(w) +
        (ctx.process_group()
             ? " but the run has " + std::to_string(ctx.world_size()) + " processes"
             : " but the interpreter simulates " + std::to_string(ctx.world_size()) + " ranks"));
  }
}

// A tensor's dtype and sizes: what the ranks of a multi-process run tell each other about their
// arguments, and what the checks below compare.
struct Meta {
  DType dtype = DType::Float32;
  std::vector<int64_t> sizes;
  std::string str() const {  // as Tensor::str()
    std::string s = std::string(to_string(dtype)) + "[";
    for (size_t k = 0; k < sizes.size(); ++k) s += (k ? ", " : "") + std::to_string(sizes[k]);
    return s + "]";
  }
};

Meta meta_of(const Tensor& t) { return {t.dtype(), t.sizes()}; }

std::vector<std::vector<Meta>> metas_of(const std::vector<std::vector<Tensor>>& g) {
  std::vector<std::vector<Meta>> out;
  for (const auto& ts : g) {
    std::vector<Meta> m;
    for (const Tensor& t : ts) m.push_back(meta_of(t));
    out.push_back(std::move(m));
  }
  return out;
}

void check_same(KernelContext& ctx, const std::vector<std::vector<Meta>>& g, size_t k) {
  for (const auto& ts : g) {
    if (ts[k].sizes != g[0][k].sizes || ts[k].dtype != g[0][k].dtype) {
      ctx.fail("ranks disagree: " + g[0][k].str() + " and " + ts[k].str());
    }
  }
}

void check_same(KernelContext& ctx, const std::vector<std::vector<Tensor>>& g, size_t k) {
  check_same(ctx, metas_of(g), k);
}

// Refuses op on tensors of dtype d (as a rank's tensor t shows it).
void check_reduce(KernelContext& ctx, const std::string& op, const Meta& t) {
  const bool integral = !is_floating(t.dtype) && !is_complex(t.dtype);
  if ((op == "band" || op == "bor" || op == "bxor") && !integral) {
    ctx.bad_input("reduce op '" + op + "' needs an integer or bool tensor, got " + t.str());
  }
  if (is_complex(t.dtype) && op != "sum" && op != "avg") {
    ctx.bad_input("reduce op '" + op + "' is not defined on complex tensors (only sum and avg)");
  }
}

// The group's tensors reduced elementwise by op.
Tensor reduce_group(KernelContext& ctx, const std::string& op, const std::vector<Tensor>& ts) {
  const DType d = ts[0].dtype();
  check_reduce(ctx, op, meta_of(ts[0]));
  const int64_t w = static_cast<int64_t>(ts.size());
  return map(ts, d, d, [&](const std::vector<Scalar>& v) -> Scalar {
    switch (v[0].kind) {
      case Scalar::Kind::Bool:
      case Scalar::Kind::Int: {
        uint64_t acc = static_cast<uint64_t>(v[0].i);
        int64_t lo = v[0].i, hi = v[0].i;
        for (size_t k = 1; k < v.size(); ++k) {
          const uint64_t x = static_cast<uint64_t>(v[k].i);
          if (op == "sum" || op == "avg" || op == "premul_sum")
            acc += x;
          else if (op == "product")
            acc *= x;
          else if (op == "band")
            acc &= x;
          else if (op == "bor")
            acc |= x;
          else if (op == "bxor")
            acc ^= x;
          lo = std::min(lo, v[k].i);
          hi = std::max(hi, v[k].i);
        }
        if (op == "min") return Scalar::of_int(lo);
        if (op == "max") return Scalar::of_int(hi);
        int64_t r = static_cast<int64_t>(acc);
        if (op == "avg") r = r / w;  // integer averages truncate
        return Scalar::of_int(r);
      }
      case Scalar::Kind::Float: {
        double acc = v[0].f;
        for (size_t k = 1; k < v.size(); ++k) {
          const double x = v[k].f;
          if (op == "product")
            acc *= x;
          else if (op == "min")
            acc = std::min(acc, x);
          else if (op == "max")
            acc = std::max(acc, x);
          else
            acc += x;
        }
        if (op == "avg") acc /= static_cast<double>(w);
        return Scalar::of_float(acc);
      }
      case Scalar::Kind::Complex: {
        Complex acc = v[0].c;
        for (size_t k = 1; k < v.size(); ++k) acc += v[k].c;
        if (op == "avg") acc /= static_cast<double>(w);
        return Scalar::of_complex(acc);
      }
    }
    return v[0];
  });
}

std::string reduce_op(KernelContext& ctx) {
  static const char* const kOps[] = {"sum",  "avg", "product", "min",       "max",
                                     "band", "bor", "bxor",    "premul_sum"};
  std::string op = ctx.string(ctx.declares("reduce_op") ? "reduce_op" : "reduceOp", "sum");
  for (const char* k : kOps) {
    if (op == k) return op;
  }
  ctx.bad_input("unknown reduce op '" + op + "'");
}

RValue pack(std::vector<Tensor> ts, bool coalesced) {
  if (!coalesced) return RValue::of(ts[0]);
  std::vector<RValue> items;
  for (Tensor& t : ts) items.push_back(RValue::of(std::move(t)));
  return RValue::list(std::move(items));
}

// Rows [begin, end) of dim 0 of t, as a view.
Tensor rows(const Tensor& t, int64_t begin, int64_t end) {
  std::vector<int64_t> sizes = t.sizes();
  sizes[0] = end - begin;
  return t.as_strided(sizes, t.strides(), t.offset() + begin * t.strides()[0]);
}

// The tensors concatenated along dim 0.
Tensor cat0(const std::vector<Tensor>& ts) {
  std::vector<int64_t> sizes = ts[0].sizes();
  sizes[0] = 0;
  for (const Tensor& t : ts) sizes[0] += t.sizes()[0];
  Tensor out = Tensor::zeros(ts[0].dtype(), sizes);
  int64_t at = 0;
  for (const Tensor& t : ts) {
    rows(out, at, at + t.sizes()[0]).copy_from(t);
    at += t.sizes()[0];
  }
  return out;
}

// ---- one rank of a multi-process run ----

// Runs `local` (this rank's own checks; it returns the payload to send) and exchanges the payload:
// every rank's, in rank order. A failure of `local` is sent to the other ranks and rethrown here;
// another rank's failure arrives as GroupFailed.
std::vector<std::vector<int64_t>> exchange(KernelContext& ctx,
                                           const std::function<std::vector<int64_t>()>& local) {
  ProcessGroup& group = *ctx.process_group();
  std::vector<int64_t> payload;
  try {
    payload = local();
  } catch (const std::exception& e) {
    group.agree(GroupFailure::of(e, ctx.node(), group.node(), group.rank()));
    throw;
  }
  return group.exchange(payload);
}

void put(std::vector<int64_t>& payload, const Meta& m) {
  payload.push_back(static_cast<int64_t>(m.dtype));
  payload.push_back(static_cast<int64_t>(m.sizes.size()));
  payload.insert(payload.end(), m.sizes.begin(), m.sizes.end());
}

// [count, (dtype, rank, sizes...) per tensor]
std::vector<int64_t> describe(const std::vector<Tensor>& ts) {
  std::vector<int64_t> payload{static_cast<int64_t>(ts.size())};
  for (const Tensor& t : ts) put(payload, meta_of(t));
  return payload;
}

// Reads one rank's payload. Payloads are written by this file on every rank; one that does not
// read back fails the node on every rank alike.
class PayloadReader {
 public:
  PayloadReader(KernelContext& ctx, const std::vector<int64_t>& payload, size_t rank)
      : ctx_(ctx), payload_(payload), rank_(rank) {}
  int64_t next() {
    if (at_ >= payload_.size()) malformed();
    return payload_[at_++];
  }
  Meta meta() {
    Meta m;
    const int64_t d = next();
    if (d < 0 || d > static_cast<int64_t>(DType::Complex128)) malformed();
    m.dtype = static_cast<DType>(d);
    const int64_t rank = next();
    if (rank < 0 || rank > 64) malformed();
    for (int64_t k = 0; k < rank; ++k) {
      const int64_t size = next();
      if (size < 0) malformed();
      m.sizes.push_back(size);
    }
    return m;
  }
  std::vector<Meta> metas() {
    const int64_t count = next();
    if (count < 0 || count > 1 << 20) malformed();
    std::vector<Meta> out;
    for (int64_t k = 0; k < count; ++k) out.push_back(meta());
    return out;
  }

 private:
  [[noreturn]] void malformed() const {
    ctx_.fail("rank " + std::to_string(rank_) + " sent a malformed description of its arguments");
  }
  KernelContext& ctx_;
  const std::vector<int64_t>& payload_;
  size_t rank_;
  size_t at_ = 0;
};

// Every rank's tensors' metadata, [rank][k], from the payloads of describe().
std::vector<std::vector<Meta>> read_metas(KernelContext& ctx,
                                          const std::vector<std::vector<int64_t>>& payloads) {
  std::vector<std::vector<Meta>> out;
  for (size_t r = 0; r < payloads.size(); ++r) {
    out.push_back(PayloadReader(ctx, payloads[r], r).metas());
    if (out.back().size() != out[0].size()) ctx.fail("the ranks pass different numbers of tensors");
  }
  return out;
}

int64_t numel_of(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (s == 0) return 0;
  }
  for (int64_t s : sizes) {
    if (n > Tensor::kMaxElements / s) return Tensor::kMaxElements + 1;
    n *= s;
  }
  return n;
}

// Throws the interpreter's error for a tensor too large for it, before any buffer is made.
void check_fits(const std::vector<int64_t>& sizes) {
  if (numel_of(sizes) > Tensor::kMaxElements) {
    throw Error("a tensor of more than " + std::to_string(Tensor::kMaxElements) +
                " elements is too large for the interpreter");
  }
}

// Bools and integers travel as int64, floating values (and each part of a complex one) as double.
bool held_as_int(DType d) {
  const Scalar::Kind k = scalar_kind(d);
  return k == Scalar::Kind::Bool || k == Scalar::Kind::Int;
}

size_t parts(DType d) { return is_complex(d) ? 2 : 1; }

// Calls f with an int64_t or a double, the type d's elements travel as.
template <class F>
Tensor by_element(DType d, F&& f) {
  if (held_as_int(d)) return f(int64_t{});
  return f(double{});
}

// t's elements in row-major order, as they travel.
template <class T>
std::vector<T> elements(const Tensor& t) {
  std::vector<T> out;
  out.reserve(static_cast<size_t>(t.numel()) * parts(t.dtype()));
  for_each_index(t.sizes(), [&](std::span<const int64_t> index) {
    const Scalar v = t.at(index);
    if constexpr (std::is_same_v<T, int64_t>) {
      out.push_back(v.i);
    } else if (v.kind == Scalar::Kind::Complex) {
      out.push_back(v.c.real());
      out.push_back(v.c.imag());
    } else {
      out.push_back(v.f);
    }
  });
  return out;
}

// A contiguous tensor of dtype d from elements as they travel (cast to d).
template <class T>
Tensor tensor_from(DType d, const std::vector<int64_t>& sizes, const std::vector<T>& v) {
  Tensor t = Tensor::zeros(d, sizes);
  size_t at = 0;
  for_each_index(sizes, [&](std::span<const int64_t> index) {
    if constexpr (std::is_same_v<T, int64_t>) {
      t.set(index, Scalar::of_int(v[at++]));
    } else if (is_complex(d)) {
      t.set(index, Scalar::of_complex(Complex(v[at], v[at + 1])));
      at += 2;
    } else {
      t.set(index, Scalar::of_float(v[at++]));
    }
  });
  return t;
}

ReduceOp transport_op(const std::string& op) {
  if (op == "product") return ReduceOp::Product;
  if (op == "min") return ReduceOp::Min;
  if (op == "max") return ReduceOp::Max;
  if (op == "band") return ReduceOp::BitAnd;
  if (op == "bor") return ReduceOp::BitOr;
  if (op == "bxor") return ReduceOp::BitXor;
  return ReduceOp::Sum;  // sum, avg (divided after), premul_sum (a sum here, as simulated)
}

// An average from the sum, as the simulated run takes it (integers truncate).
template <class T>
void finish_average(const std::string& op, std::vector<T>& v, size_t w) {
  if (op != "avg") return;
  for (T& x : v) x = x / static_cast<T>(w);
}

RValue all_reduce_process(KernelContext& ctx, bool coalesced, bool in_place) {
  std::string op;
  std::vector<Tensor> mine;
  const auto payloads = exchange(ctx, [&] {
    op = reduce_op(ctx);
    mine = tensors_of(ctx, ctx.value(ctx.schema().params.at(0).name), coalesced);
    return describe(mine);
  });
  const auto g = read_metas(ctx, payloads);
  for (size_t k = 0; k < mine.size(); ++k) {
    check_same(ctx, g, k);
    check_reduce(ctx, op, g[0][k]);
  }
  Communicator& comm = ctx.process_group()->comm();
  std::vector<Tensor> out;
  for (Tensor& t : mine) {
    Tensor reduced = by_element(t.dtype(), [&](auto tag) {
      using T = decltype(tag);
      std::vector<T> v = elements<T>(t);
      comm.all_reduce(std::span<T>(v), transport_op(op));
      finish_average(op, v, comm.world_size());
      return tensor_from(t.dtype(), t.sizes(), v);
    });
    if (in_place) {
      t.copy_from(reduced);
      out.push_back(t);
    } else {
      out.push_back(std::move(reduced));
    }
  }
  return pack(std::move(out), coalesced);
}

RValue all_gather_process(KernelContext& ctx, bool coalesced) {
  std::vector<Tensor> mine;
  const auto payloads = exchange(ctx, [&] {
    check_group_size(ctx);
    mine = tensors_of(ctx, ctx.value(ctx.schema().params.at(0).name), coalesced);
    return describe(mine);
  });
  const auto g = read_metas(ctx, payloads);
  Communicator& comm = ctx.process_group()->comm();
  const int64_t w = static_cast<int64_t>(comm.world_size());
  std::vector<std::vector<int64_t>> sizes;
  for (size_t k = 0; k < mine.size(); ++k) {
    check_same(ctx, g, k);
    if (g[0][k].sizes.empty()) ctx.bad_input("all_gather needs a tensor with at least one dim");
    sizes.push_back(g[0][k].sizes);
    sizes.back()[0] *= w;
    check_fits(sizes.back());
  }
  std::vector<Tensor> out;
  for (size_t k = 0; k < mine.size(); ++k) {
    out.push_back(by_element(mine[k].dtype(), [&](auto tag) {
      using T = decltype(tag);
      const std::vector<T> v = elements<T>(mine[k]);
      std::vector<T> all(v.size() * comm.world_size());
      comm.all_gather(std::span<const T>(v), std::span<T>(all));
      return tensor_from(mine[k].dtype(), sizes[k], all);
    }));
  }
  return pack(std::move(out), coalesced);
}

RValue reduce_scatter_process(KernelContext& ctx, bool coalesced) {
  std::string op;
  std::vector<Tensor> mine;
  const auto payloads = exchange(ctx, [&] {
    op = reduce_op(ctx);
    check_group_size(ctx);
    mine = tensors_of(ctx, ctx.value(ctx.schema().params.at(0).name), coalesced);
    return describe(mine);
  });
  const auto g = read_metas(ctx, payloads);
  Communicator& comm = ctx.process_group()->comm();
  const int64_t w = static_cast<int64_t>(comm.world_size());
  for (size_t k = 0; k < mine.size(); ++k) {
    check_same(ctx, g, k);
    if (g[0][k].sizes.empty()) ctx.bad_input("reduce_scatter needs a tensor with at least one dim");
    if (g[0][k].sizes[0] % w != 0) {
      ctx.fail("reduce_scatter: dim 0 of size " + std::to_string(g[0][k].sizes[0]) +
               " is not divisible by the group size " + std::to_string(w));
    }
    check_reduce(ctx, op, g[0][k]);
  }
  std::vector<Tensor> out;
  for (const Tensor& t : mine) {
    std::vector<int64_t> sizes = t.sizes();
    sizes[0] /= w;
    out.push_back(by_element(t.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const std::vector<T> v = elements<T>(t);
      std::vector<T> block(v.size() / comm.world_size());
      comm.reduce_scatter(std::span<const T>(v), std::span<T>(block), transport_op(op));
      finish_average(op, block, comm.world_size());
      return tensor_from(t.dtype(), sizes, block);
    }));
  }
  return pack(std::move(out), coalesced);
}

RValue broadcast_process(KernelContext& ctx, bool in_place) {
  int64_t src = 0;
  std::vector<Tensor> mine;
  const auto payloads = exchange(ctx, [&] {
    src = ctx.integer("src", 0);
    mine = tensors_of(ctx, ctx.value(ctx.schema().params.at(0).name), false);
    return describe(mine);
  });
  const auto g = read_metas(ctx, payloads);
  Communicator& comm = ctx.process_group()->comm();
  if (src < 0 || src >= static_cast<int64_t>(comm.world_size())) {
    ctx.fail("broadcast source rank " + std::to_string(src) + " is outside the group of " +
             std::to_string(comm.world_size()));
  }
  check_same(ctx, g, 0);
  Tensor& t = mine[0];
  Tensor from = by_element(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> v = elements<T>(t);
    comm.broadcast(std::span<T>(v), static_cast<size_t>(src));
    return tensor_from(t.dtype(), t.sizes(), v);
  });
  if (!in_place) return RValue::of(std::move(from));
  t.copy_from(from);
  return RValue::of(t);
}

// ---- all_to_all_single, shared by both runs ----

// Split sizes are a list (SymInt[]?): a lone int or bool is a malformed argument.
void check_split_kind(KernelContext& ctx, const RValue& v) {
  if (v.kind != RValue::Kind::None && v.kind != RValue::Kind::List)
    ctx.bad_input("split sizes must be a list of ints, got " + v.str());
}

// The split sizes v gives (a list of w ints), or, for None or an empty list, w equal splits of
// total.
std::vector<int64_t> split_sizes(KernelContext& ctx, const RValue& v, int64_t total, size_t w) {
  std::vector<int64_t> sizes;
  if (v.kind == RValue::Kind::List && !v.items.empty()) {
    for (const RValue& item : v.items) {
      if (item.kind != RValue::Kind::Int) ctx.bad_input("split sizes must be ints");
      if (item.integer < 0) ctx.bad_input("negative split size");
      sizes.push_back(item.integer);
    }
    if (sizes.size() != w) {
      ctx.fail(std::to_string(sizes.size()) + " split sizes for " + std::to_string(w) + " ranks");
    }
  } else {
    if (total % static_cast<int64_t>(w) != 0) {
      ctx.fail("all_to_all_single: dim 0 of size " + std::to_string(total) +
               " is not divisible by the group size " + std::to_string(w));
    }
    sizes.assign(w, total / static_cast<int64_t>(w));
  }
  return sizes;
}

// A rank's input split sizes, which must cover dim 0 of its input.
std::vector<int64_t> input_splits(KernelContext& ctx, const RValue& v, int64_t rows, size_t w) {
  std::vector<int64_t> sizes = split_sizes(ctx, v, rows, w);
  int64_t sum = 0;
  for (int64_t s : sizes) sum += s;
  if (sum != rows) {
    ctx.fail("input split sizes add up to " + std::to_string(sum) + ", not dim 0 of size " +
             std::to_string(rows));
  }
  return sizes;
}

Tensor all_to_all_input(KernelContext& ctx, const RValue& v) {
  if (!v.is_tensor()) ctx.bad_input("expected a tensor, got " + v.str());
  if (v.tensor.rank() == 0) ctx.bad_input("all_to_all_single needs a tensor with at least one dim");
  return v.tensor;
}

// The rows the ranks exchange must be alike: the inputs agree on their dtype and on every dim
// but dim 0.
void check_same_rows(KernelContext& ctx, const std::vector<Meta>& inputs) {
  for (const Meta& m : inputs) {
    if (m.dtype != inputs[0].dtype || m.sizes.size() != inputs[0].sizes.size() ||
        !std::equal(m.sizes.begin() + 1, m.sizes.end(), inputs[0].sizes.begin() + 1)) {
      ctx.fail("ranks disagree beyond dim 0: " + inputs[0].str() + " and " + m.str());
    }
  }
}

// Rank dst's output split sizes against the rows it gets from each rank.
void check_output_splits(KernelContext& ctx, size_t dst, const std::vector<int64_t>& expect,
                         const std::vector<int64_t>& got) {
  for (size_t src = 0; src < got.size(); ++src) {
    if (expect[src] != got[src]) {
      ctx.fail("rank " + std::to_string(dst) + " expects " + std::to_string(expect[src]) +
               " rows from rank " + std::to_string(src) + " but gets " + std::to_string(got[src]));
    }
  }
}

RValue all_to_all_process(KernelContext& ctx) {
  const size_t w = ctx.world_size();
  Tensor input;
  const auto payloads = exchange(ctx, [&] {
    const RValue out_splits = ctx.value("output_split_sizes");
    const RValue in_splits = ctx.value("input_split_sizes");
    check_split_kind(ctx, out_splits);
    check_split_kind(ctx, in_splits);
    input = all_to_all_input(ctx, ctx.value("input"));
    // [dtype, rank, sizes..., input splits (w), 0 or 1 and the output splits (w)]
    std::vector<int64_t> payload;
    put(payload, meta_of(input));
    for (int64_t s : input_splits(ctx, in_splits, input.sizes()[0], w)) payload.push_back(s);
    if (out_splits.kind == RValue::Kind::List && !out_splits.items.empty()) {
      payload.push_back(1);
      for (int64_t s : split_sizes(ctx, out_splits, 0, w)) payload.push_back(s);
    } else {
      payload.push_back(0);
    }
    return payload;
  });
  std::vector<Meta> metas;
  std::vector<std::vector<int64_t>> sends(w);  // sends[src][dst]: rows src sends to dst
  std::vector<std::optional<std::vector<int64_t>>> expects(w);
  for (size_t r = 0; r < w; ++r) {
    PayloadReader read(ctx, payloads[r], r);
    metas.push_back(read.meta());
    for (size_t k = 0; k < w; ++k) sends[r].push_back(read.next());
    if (read.next() != 0) {
      expects[r].emplace();
      for (size_t k = 0; k < w; ++k) expects[r]->push_back(read.next());
    }
  }
  check_same_rows(ctx, metas);
  const std::vector<int64_t> trailing(metas[0].sizes.begin() + 1, metas[0].sizes.end());
  std::vector<int64_t> my_sizes;
  for (size_t dst = 0; dst < w; ++dst) {
    std::vector<int64_t> got;
    for (size_t src = 0; src < w; ++src) got.push_back(sends[src][dst]);
    if (expects[dst]) check_output_splits(ctx, dst, *expects[dst], got);
    std::vector<int64_t> sizes{0};
    for (int64_t rows : got) sizes[0] += rows;
    sizes.insert(sizes.end(), trailing.begin(), trailing.end());
    check_fits(sizes);  // every rank's result, so that all ranks stop here alike
    if (dst == ctx.rank()) my_sizes = sizes;
  }
  const DType d = input.dtype();
  const size_t row = static_cast<size_t>(numel_of(trailing)) * parts(d);
  std::vector<size_t> send_counts, recv_counts;
  for (size_t k = 0; k < w; ++k) {
    send_counts.push_back(static_cast<size_t>(sends[ctx.rank()][k]) * row);
    recv_counts.push_back(static_cast<size_t>(sends[k][ctx.rank()]) * row);
  }
  Communicator& comm = ctx.process_group()->comm();
  return RValue::of(by_element(d, [&](auto tag) {
    using T = decltype(tag);
    const std::vector<T> v = elements<T>(input);
    std::vector<T> received(static_cast<size_t>(numel_of(my_sizes)) * parts(d));
    comm.all_to_all(std::span<const T>(v), send_counts, std::span<T>(received), recv_counts);
    return tensor_from(d, my_sizes, received);
  }));
}

void register_family(KernelRegistry& r, const std::string& p) {
  for (bool coalesced : {false, true}) {
    const std::string suffix = coalesced ? "_coalesced" : "";
    for (bool in_place : {false, true}) {
      r.add(p + "all_reduce" + suffix + (in_place ? "_" : ""),
            [coalesced, in_place](KernelContext& ctx) {
              if (ctx.process_group()) return all_reduce_process(ctx, coalesced, in_place);
              const std::string op = reduce_op(ctx);
              return per_rank(ctx, [&] {
                auto g = group_tensors(ctx, coalesced);
                std::vector<Tensor> reduced;
                for (size_t k = 0; k < g[0].size(); ++k) {
                  check_same(ctx, g, k);
                  std::vector<Tensor> column;
                  for (const auto& ts : g) column.push_back(ts[k]);
                  reduced.push_back(reduce_group(ctx, op, column));
                }
                std::vector<RValue> out;
                for (size_t rank = 0; rank < g.size(); ++rank) {
                  std::vector<Tensor> mine;
                  for (size_t k = 0; k < reduced.size(); ++k) {
                    if (in_place) {
                      g[rank][k].copy_from(reduced[k]);
                      mine.push_back(g[rank][k]);
                    } else {
                      mine.push_back(reduced[k].clone());
                    }
                  }
                  out.push_back(pack(std::move(mine), coalesced));
                }
                return out;
              });
            });
    }
    r.add(p + "all_gather_into_tensor" + suffix, [coalesced](KernelContext& ctx) {
      if (ctx.process_group()) return all_gather_process(ctx, coalesced);
      check_group_size(ctx);
      return per_rank(ctx, [&] {
        auto g = group_tensors(ctx, coalesced);
        std::vector<Tensor> gathered;
        for (size_t k = 0; k < g[0].size(); ++k) {
          check_same(ctx, g, k);
          if (g[0][k].rank() == 0) ctx.bad_input("all_gather needs a tensor with at least one dim");
          std::vector<Tensor> column;
          for (const auto& ts : g) column.push_back(ts[k]);
          gathered.push_back(cat0(column));
        }
        std::vector<RValue> out;
        for (size_t rank = 0; rank < g.size(); ++rank) {
          std::vector<Tensor> mine;
          for (const Tensor& t : gathered) mine.push_back(t.clone());
          out.push_back(pack(std::move(mine), coalesced));
        }
        return out;
      });
    });
    r.add(p + "reduce_scatter_tensor" + suffix, [coalesced](KernelContext& ctx) {
      if (ctx.process_group()) return reduce_scatter_process(ctx, coalesced);
      const std::string op = reduce_op(ctx);
      check_group_size(ctx);
      return per_rank(ctx, [&] {
        auto g = group_tensors(ctx, coalesced);
        const int64_t w = static_cast<int64_t>(g.size());
        std::vector<Tensor> reduced;
        for (size_t k = 0; k < g[0].size(); ++k) {
          check_same(ctx, g, k);
          if (g[0][k].rank() == 0) {
            ctx.bad_input("reduce_scatter needs a tensor with at least one dim");
          }
          if (g[0][k].sizes()[0] % w != 0) {
            ctx.fail("reduce_scatter: dim 0 of size " + std::to_string(g[0][k].sizes()[0]) +
                     " is not divisible by the group size " + std::to_string(w));
          }
          std::vector<Tensor> column;
          for (const auto& ts : g) column.push_back(ts[k]);
          reduced.push_back(reduce_group(ctx, op, column));
        }
        std::vector<RValue> out;
        for (int64_t rank = 0; rank < w; ++rank) {
          std::vector<Tensor> mine;
          for (const Tensor& t : reduced) {
            const int64_t chunk = t.sizes()[0] / w;
            mine.push_back(rows(t, rank * chunk, (rank + 1) * chunk).clone());
          }
          out.push_back(pack(std::move(mine), coalesced));
        }
        return out;
      });
    });
  }
  // all_to_all_single(input, output_split_sizes, input_split_sizes, ...).
  r.add(p + "all_to_all_single", [](KernelContext& ctx) {
    if (ctx.process_group()) return all_to_all_process(ctx);
    return per_rank(ctx, [&] {
      const std::vector<RValue> inputs = ctx.group_values("input");
      const std::vector<RValue> out_splits = ctx.group_values("output_split_sizes");
      const std::vector<RValue> in_splits = ctx.group_values("input_split_sizes");
      const size_t w = inputs.size();
      for (const auto* splits : {&out_splits, &in_splits}) {
        for (const RValue& v : *splits) check_split_kind(ctx, v);
      }
      // chunks[src][dst]: what rank src sends to rank dst.
      std::vector<std::vector<Tensor>> chunks(w);
      std::vector<Meta> metas;
      for (size_t src = 0; src < w; ++src) {
        const Tensor t = all_to_all_input(ctx, inputs[src]);
        metas.push_back(meta_of(t));
        const std::vector<int64_t> sizes = input_splits(ctx, in_splits[src], t.sizes()[0], w);
        int64_t at = 0;
        for (size_t dst = 0; dst < w; ++dst) {
          chunks[src].push_back(rows(t, at, at + sizes[dst]));
          at += sizes[dst];
        }
      }
      check_same_rows(ctx, metas);
      std::vector<RValue> out;
      for (size_t dst = 0; dst < w; ++dst) {
        std::vector<Tensor> received;
        for (size_t src = 0; src < w; ++src) received.push_back(chunks[src][dst]);
        if (out_splits[dst].kind == RValue::Kind::List && !out_splits[dst].items.empty()) {
          std::vector<int64_t> got;
          for (const Tensor& t : received) got.push_back(t.sizes()[0]);
          check_output_splits(ctx, dst, split_sizes(ctx, out_splits[dst], 0, w), got);
        }
        out.push_back(RValue::of(cat0(received)));
      }
      return out;
    });
  });
  for (bool in_place : {false, true}) {
    r.add(p + (in_place ? "broadcast_" : "broadcast"), [in_place](KernelContext& ctx) {
      if (ctx.process_group()) return broadcast_process(ctx, in_place);
      const int64_t src = ctx.integer("src", 0);
      return per_rank(ctx, [&] {
        auto g = group_tensors(ctx, false);
        if (src < 0 || src >= static_cast<int64_t>(g.size())) {
          ctx.fail("broadcast source rank " + std::to_string(src) + " is outside the group of " +
                   std::to_string(g.size()));
        }
        check_same(ctx, g, 0);
        const Tensor from = g[static_cast<size_t>(src)][0].clone();
        std::vector<RValue> out;
        for (auto& ts : g) {
          if (in_place) {
            ts[0].copy_from(from);
            out.push_back(RValue::of(ts[0]));
          } else {
            out.push_back(RValue::of(from.clone()));
          }
        }
        return out;
      });
    });
  }
}

}  // namespace

void register_collectives(KernelRegistry& r) {
  register_family(r, "_c10d_functional.");
  register_family(r, "c10d_functional.");
  r.add("_c10d_functional.wait_tensor",
        [](KernelContext& ctx) { return RValue::of(ctx.tensor("tensor")); });
  r.add("c10d_functional.wait_tensor",
        [](KernelContext& ctx) { return RValue::of(ctx.tensor("self")); });
}

}  // namespace symshape::interp::kernels
