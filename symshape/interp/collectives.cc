// Kernels: functional collectives, simulated over the W ranks the interpreter runs in lockstep.
// Every rank's kernel sees the argument on every rank (KernelContext::group_values). The whole
// group's results are computed once, by rank 0's kernel, and handed out by rank: so an in-place
// collective that writes into rank 0's tensor cannot change what rank 1 reads.
//
// all_gather concatenates the ranks' tensors along dim 0; reduce_scatter reduces across ranks
// and gives rank r the r-th slice of dim 0; all_reduce reduces; broadcast copies rank src's;
// all_to_all_single sends the r-th split of every rank's input to rank r. The native
// `_c10d_functional` ops and the legacy `c10d_functional` ones (tag, ranks, group_size last)
// name their arguments differently; their signatures (schema.h) say how.
#include <algorithm>
#include <map>

#include "symshape/interp/kernels.h"

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

// The argument's tensors on every rank: [rank][k] (one per rank unless coalesced).
// The tensors are the op's first argument (input, inputs, self or shard, as each form names it).
std::vector<std::vector<Tensor>> group_tensors(KernelContext& ctx, bool coalesced) {
  std::vector<std::vector<Tensor>> out;
  for (const RValue& v : ctx.group_values(ctx.schema().params.at(0).name)) {
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
    ctx.fail("group size " + std::to_string(w) + " but the interpreter simulates " +
             std::to_string(ctx.world_size()) + " ranks");
  }
}

void check_same(KernelContext& ctx, const std::vector<std::vector<Tensor>>& g, size_t k) {
  for (const auto& ts : g) {
    if (ts[k].sizes() != g[0][k].sizes() || ts[k].dtype() != g[0][k].dtype()) {
      ctx.fail("ranks disagree: " + g[0][k].str() + " and " + ts[k].str());
    }
  }
}

// The group's tensors reduced elementwise by op.
Tensor reduce_group(KernelContext& ctx, const std::string& op, const std::vector<Tensor>& ts) {
  const DType d = ts[0].dtype();
  const bool integral = !is_floating(d) && !is_complex(d);
  if ((op == "band" || op == "bor" || op == "bxor") && !integral) {
    ctx.bad_input("reduce op '" + op + "' needs an integer or bool tensor, got " + ts[0].str());
  }
  if (is_complex(d) && op != "sum" && op != "avg") {
    ctx.bad_input("reduce op '" + op + "' is not defined on complex tensors (only sum and avg)");
  }
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

void register_family(KernelRegistry& r, const std::string& p) {
  for (bool coalesced : {false, true}) {
    const std::string suffix = coalesced ? "_coalesced" : "";
    for (bool in_place : {false, true}) {
      r.add(p + "all_reduce" + suffix + (in_place ? "_" : ""),
            [coalesced, in_place](KernelContext& ctx) {
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
    return per_rank(ctx, [&] {
      const std::vector<RValue> inputs = ctx.group_values("input");
      const std::vector<RValue> out_splits = ctx.group_values("output_split_sizes");
      const std::vector<RValue> in_splits = ctx.group_values("input_split_sizes");
      const size_t w = inputs.size();
      // Split sizes are a list (SymInt[]?): a lone int or bool is a malformed argument.
      for (const auto* splits : {&out_splits, &in_splits}) {
        for (const RValue& v : *splits) {
          if (v.kind != RValue::Kind::None && v.kind != RValue::Kind::List)
            ctx.bad_input("split sizes must be a list of ints, got " + v.str());
        }
      }
      auto splits_of = [&](const RValue& v, int64_t total) {
        std::vector<int64_t> sizes;
        if (v.kind == RValue::Kind::List && !v.items.empty()) {
          for (const RValue& item : v.items) {
            if (item.kind != RValue::Kind::Int) ctx.bad_input("split sizes must be ints");
            if (item.integer < 0) ctx.bad_input("negative split size");
            sizes.push_back(item.integer);
          }
          if (sizes.size() != w) {
            ctx.fail(std::to_string(sizes.size()) + " split sizes for " + std::to_string(w) +
                     " ranks");
          }
        } else {
          if (total % static_cast<int64_t>(w) != 0) {
            ctx.fail("all_to_all_single: dim 0 of size " + std::to_string(total) +
                     " is not divisible by the group size " + std::to_string(w));
          }
          sizes.assign(w, total / static_cast<int64_t>(w));
        }
        return sizes;
      };
      // chunks[src][dst]: what rank src sends to rank dst.
      std::vector<std::vector<Tensor>> chunks(w);
      for (size_t src = 0; src < w; ++src) {
        if (!inputs[src].is_tensor()) ctx.bad_input("expected a tensor, got " + inputs[src].str());
        const Tensor& t = inputs[src].tensor;
        if (t.rank() == 0) ctx.bad_input("all_to_all_single needs a tensor with at least one dim");
        std::vector<int64_t> sizes = splits_of(in_splits[src], t.sizes()[0]);
        int64_t sum = 0;
        for (int64_t v : sizes) sum += v;
        if (sum != t.sizes()[0]) {
          ctx.fail("input split sizes add up to " + std::to_string(sum) + ", not dim 0 of size " +
                   std::to_string(t.sizes()[0]));
        }
        int64_t at = 0;
        for (size_t dst = 0; dst < w; ++dst) {
          chunks[src].push_back(rows(t, at, at + sizes[dst]));
          at += sizes[dst];
        }
      }
      std::vector<RValue> out;
      for (size_t dst = 0; dst < w; ++dst) {
        std::vector<Tensor> received;
        for (size_t src = 0; src < w; ++src) received.push_back(chunks[src][dst]);
        if (out_splits[dst].kind == RValue::Kind::List && !out_splits[dst].items.empty()) {
          std::vector<int64_t> expect = splits_of(out_splits[dst], 0);
          for (size_t src = 0; src < w; ++src) {
            if (expect[src] != received[src].sizes()[0]) {
              ctx.fail("rank " + std::to_string(dst) + " expects " + std::to_string(expect[src]) +
                       " rows from rank " + std::to_string(src) + " but gets " +
                       std::to_string(received[src].sizes()[0]));
            }
          }
        }
        out.push_back(RValue::of(cat0(received)));
      }
      return out;
    });
  });
  for (bool in_place : {false, true}) {
    r.add(p + (in_place ? "broadcast_" : "broadcast"), [in_place](KernelContext& ctx) {
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
