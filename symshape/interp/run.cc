// run(): binds the graph's named dims, generates its inputs and constants, and runs every node
// on every simulated rank.
#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include "symshape/interp.h"
#include "symshape/interp/process_group.h"
#include "symshape/propagate.h"

namespace symshape::interp {

namespace {

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t hash_text(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// A seed for one stream of randomness: the run's seed, a purpose, a name and a rank.
uint64_t stream_seed(uint64_t seed, std::string_view purpose, std::string_view name,
                     uint64_t rank) {
  return splitmix(splitmix(seed ^ hash_text(purpose)) ^ hash_text(name) ^ splitmix(rank + 1));
}

std::string label(const Node& n) {
  return "node " + n.name + (n.target.empty() ? "" : " (" + n.target + ")");
}

std::string shape_text(const std::vector<Expr>& shape) {
  std::string s = "[";
  for (size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + shape[k].str();
  return s + "]";
}

std::string sizes_text(const std::vector<int64_t>& sizes) {
  std::string s = "[";
  for (size_t k = 0; k < sizes.size(); ++k) s += (k ? ", " : "") + std::to_string(sizes[k]);
  return s + "]";
}

bool is_collective(const std::string& target) {
  return target.rfind("_c10d_functional.", 0) == 0 || target.rfind("c10d_functional.", 0) == 0;
}

// Whether a node exchanges data with the other ranks: every collective but wait_tensor. In a
// multi-process run each such node is one exchange on every rank (process_group.h).
bool communicates(const Node& n) {
  return n.op == NodeOp::CallFunction && is_collective(n.target) &&
         n.target.find(".wait_tensor") == std::string::npos;
}

// A generated element: floats uniform in [-1, 1], complex both parts, ints in [0, 2), bools.
Scalar random_element(DType d, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  switch (scalar_kind(d)) {
    case Scalar::Kind::Bool: return Scalar::of_bool((rng() & 1) != 0);
    case Scalar::Kind::Int: return Scalar::of_int(static_cast<int64_t>(rng() % 2));
    case Scalar::Kind::Float: return Scalar::of_float(real(rng));
    case Scalar::Kind::Complex: {
      double re = real(rng);
      double im = real(rng);
      return Scalar::of_complex(Complex(re, im));
    }
  }
  return {};
}

class Runner {
 public:
  Runner(const Graph& g, const RunOptions& o, RunResult& r) : graph_(g), options_(o), result_(r) {}

  void run() {
    if (options_.communicator) return run_process();
    prepare();
    execute();
  }

 private:
  void prepare() {
    if (auto problem = verify(graph_)) throw Error(*problem);
    collect_symbols();
    bind_given();
    choose_dims();
    check_pending();
    result_.dims = dims_;
    choose_world_size();
    propagate_layouts();
  }

  // ---- one rank of a multi-process run ----

  // Fails every rank alike (with no further exchange) unless they all run the same graph: else
  // their collectives would not line up.
  void check_same_graph(ProcessGroup& group) const {
    uint64_t h = hash_text("graph");
    int64_t talking = 0;
    for (const Node& n : graph_.nodes) {
      h = splitmix(h ^ hash_text(n.name) ^ splitmix(hash_text(n.target) + static_cast<int>(n.op)));
      talking += communicates(n) ? 1 : 0;
    }
    const std::vector<int64_t> mine{static_cast<int64_t>(graph_.nodes.size()), talking,
                                    static_cast<int64_t>(h)};
    const std::vector<std::vector<int64_t>> all = ProcessGroup::gather(group.comm(), mine);
    for (size_t r = 1; r < all.size(); ++r) {
      if (all[r] != all[0]) {
        throw Error("rank " + std::to_string(r) + " runs another graph than rank 0 (" +
                    std::to_string(all[r].size() == 3 ? all[r][0] : -1) + " nodes, " +
                    std::to_string(all[r].size() == 3 ? all[r][1] : -1) +
                    " collectives; rank 0: " + std::to_string(all[0][0]) + " nodes, " +
                    std::to_string(all[0][1]) + " collectives)");
      }
    }
  }

  void run_process() {
    Communicator& comm = *options_.communicator;
    if (comm.world_size() < 1 || comm.rank() >= comm.world_size()) {
      throw Error("the communicator's rank " + std::to_string(comm.rank()) +
                  " is outside its group of " + std::to_string(comm.world_size()));
    }
    ProcessGroup group(comm);
    rank_ = comm.rank();
    world_ = comm.world_size();
    result_.rank = rank_;
    result_.world_size = world_;
    check_same_graph(group);
    std::optional<GroupFailure> failure;
    try {
      prepare();
    } catch (const std::exception& e) {
      failure = GroupFailure{rank_, graph_.nodes.size(), true, e.what()};
    }
    world_ = comm.world_size();  // prepare() chose it from the graph; the processes decide
    if (!failure && options_.world_size != 0 && options_.world_size != world_) {
      failure = GroupFailure{rank_, graph_.nodes.size(), true,
                             "the run spans " + std::to_string(world_) +
                                 " processes, but a world size of " +
                                 std::to_string(options_.world_size) + " was asked for"};
    }
    const size_t count = graph_.nodes.size();
    ranks_.assign(1, std::vector<RValue>(count));
    const KernelRegistry& registry =
        options_.kernels ? *options_.kernels : KernelRegistry::instance();
    for (size_t i = 0; i < count; ++i) {
      const Node& n = graph_.nodes[i];
      const bool talks = communicates(n);
      if (failure) {
        // Failed before: take part in the node's exchange all the same, so no peer waits.
        if (talks) group.agree(failure);
        continue;
      }
      group.begin_node(i);
      try {
        ranks_[0][i] = laid_out(i, 0, run_node(registry, n, 0, rank_, &group));
      } catch (const GroupFailed& f) {
        failure = f.failure;
      } catch (const std::exception& e) {
        failure = GroupFailure::of(e, n, i, rank_);
        if (talks && !group.exchanged()) group.agree(failure);
      }
      if (!failure && talks && !group.exchanged()) {
        // A collective whose kernel did not exchange (it cannot have sent anything): the node's
        // exchange is still due.
        if (auto f = group.agree(std::nullopt)) failure = *f;
      }
    }
    // The verdict, the same on every rank: the failure of the lowest rank that failed.
    if (std::optional<GroupFailure> f = group.agree(failure)) {
      std::string message = f->message;
      if (world_ > 1 && !f->on_every_rank) {
        message = "rank " + std::to_string(f->rank) + ": " + message;
      }
      fail(std::move(message), std::min(f->node, count), f->input_error);
      result_.failed_node = f->node;
      return;
    }
    result_.ok = true;
    finish();
  }

  // ---- dims ----

  void note_symbols(const Expr& e) {
    for (const std::string& s : e.free_symbols()) {
      if (std::find(symbols_.begin(), symbols_.end(), s) == symbols_.end()) symbols_.push_back(s);
    }
  }

  void note_arg_symbols(const Arg& a) {
    if (a.kind == Arg::Kind::Int) note_symbols(a.integer);
    for (const Arg& item : a.items) note_arg_symbols(item);
  }

  // The named dims: in the inputs' and constants' declared shapes and strides (as propagation
  // creates them), the declared dims, and symbolic int arguments.
  void collect_symbols() {
    for (const Node& n : graph_.nodes) {
      if (n.op != NodeOp::Placeholder && n.op != NodeOp::GetAttr) continue;
      if (n.shape) {
        for (const Expr& e : *n.shape) note_symbols(e);
      }
      if (n.stride) {
        for (const Expr& e : *n.stride) note_symbols(e);
      }
    }
    for (const auto& [name, d] : graph_.dims) note_symbols(Expr::symbol(name));
    for (const Node& n : graph_.nodes) {
      for (const Arg& a : n.args) note_arg_symbols(a);
      for (const auto& [k, a] : n.kwargs) note_arg_symbols(a);
    }
  }

  void bind(const std::string& name, const Int& value, const std::string& why) {
    auto it = dims_.find(name);
    if (it != dims_.end()) {
      if (it->second != value) {
        throw Error("dim " + name + " is " + to_string(it->second) + " but " + why + " makes it " +
                    to_string(value));
      }
      return;
    }
    if (value < 0) throw Error(why + " makes dim " + name + " negative (" + to_string(value) + ")");
    dims_[name] = value;
    given_by_[name] = why;
  }

  // With RunOptions::check_ranges, a given dim outside its declared range is bad input, as it
  // is for `check`: the graph promises nothing there.
  void check_given_ranges() const {
    if (!options_.check_ranges) return;
    for (const auto& [name, value] : dims_) {
      const DimDecl d = decl(name);
      if ((d.min && value < *d.min) || (d.max && value > *d.max)) {
        auto it = given_by_.find(name);
        throw Error((it != given_by_.end() ? it->second : "a given size") + " makes dim " + name +
                    " " + to_string(value) + ", outside its declared range [" +
                    (d.min ? to_string(*d.min) : "0") + ", " + (d.max ? to_string(*d.max) : "inf") +
                    "]");
      }
    }
  }

  struct Pending {
    Expr declared;
    Int value;
    std::string where;  // "dim 0 of input 'x'"
  };

  // Solves `declared == value` for its one unbound symbol when declared is linear in it.
  // Returns false when it cannot (several unbound symbols, or not linear).
  bool solve(const Pending& p) {
    std::map<std::string, Expr> known;
    for (const auto& [name, v] : dims_) known[name] = Expr(v);
    Expr e = p.declared.subs(known);
    std::vector<std::string> free = e.free_symbols();
    if (free.empty()) {
      Int v = evaluate(e, dims_);
      if (v != p.value) throw Error(mismatch(p, v));
      return true;
    }
    if (free.size() != 1) return false;
    const std::string& name = free[0];
    GiNaC::ex x = e.ex().expand();
    const Expr symbol = Expr::symbol(name);
    const GiNaC::symbol& sym = GiNaC::ex_to<GiNaC::symbol>(symbol.ex());
    if (!x.is_polynomial(sym) || x.degree(sym) != 1) return false;
    GiNaC::ex a = x.coeff(sym, 1), b = x.coeff(sym, 0);
    if (!GiNaC::is_exactly_a<GiNaC::numeric>(a) || !GiNaC::is_exactly_a<GiNaC::numeric>(b))
      return false;
    GiNaC::numeric na = GiNaC::ex_to<GiNaC::numeric>(a), nb = GiNaC::ex_to<GiNaC::numeric>(b);
    if (!na.is_rational() || !nb.is_rational() || na.is_zero()) return false;
    GiNaC::numeric s = (GiNaC::numeric(to_string(p.value).c_str()) - nb) / na;
    if (!s.is_integer()) {
      throw Error(p.where + " is declared " + p.declared.str() + ", which cannot be " +
                  to_string(p.value) + " for an integer " + name);
    }
    std::ostringstream text;
    text << s;
    auto parsed = parse_int(text.str());
    if (!parsed) return false;
    bind(name, *parsed,
         p.where + " (declared " + p.declared.str() + ", size " + to_string(p.value) + ")");
    return true;
  }

  // "2*seq, which is 8 with seq=4, but its size is 7"; "128 but its size is 127".
  std::string mismatch(const Pending& p, const Int& v) const {
    std::string s;
    for (const std::string& name : p.declared.free_symbols()) {
      auto it = dims_.find(name);
      if (it == dims_.end()) continue;
      s += (s.empty() ? "" : ", ") + name + "=" + to_string(it->second);
    }
    std::string text = p.where + " is declared " + p.declared.str();
    if (!s.empty()) text += ", which is " + to_string(v) + " with " + s + ",";
    return text + " but its size is " + to_string(p.value);
  }

  // Binds dims from options.dims, then from the given inputs' sizes against their declared shapes.
  void bind_given() {
    for (const auto& [name, v] : options_.dims) bind(name, Int(v), "--dim " + name);
    for (const Node& n : graph_.nodes) {
      const bool constant = n.op == NodeOp::GetAttr;  // a parameter given its value
      if ((n.op != NodeOp::Placeholder && !constant) || !n.shape) continue;
      std::optional<std::vector<int64_t>> sizes;
      if (auto it = options_.inputs.find(n.name); it != options_.inputs.end()) {
        sizes = it->second.sizes();
      } else if (auto it2 = options_.sizes.find(n.name); !constant && it2 != options_.sizes.end()) {
        sizes = it2->second;
      }
      if (!sizes) continue;
      if (sizes->size() != n.shape->size()) {
        throw Error("input '" + n.name + "' is declared with " + std::to_string(n.shape->size()) +
                    " dims " + shape_text(*n.shape) + " but was given sizes " + sizes_text(*sizes));
      }
      for (size_t k = 0; k < sizes->size(); ++k) {
        if ((*sizes)[k] < 0) {
          throw Error("input '" + n.name + "' was given a negative size " + sizes_text(*sizes));
        }
        pending_.push_back({(*n.shape)[k], Int((*sizes)[k]),
                            "dim " + std::to_string(k) + " of input '" + n.name + "'"});
      }
    }
    for (const auto& [name, t] : options_.inputs) {
      const Node* n = graph_.find(name);
      if (!n || (n->op != NodeOp::Placeholder && n->op != NodeOp::GetAttr)) {
        throw Error("an input was given for '" + name +
                    "', which is neither a placeholder nor a constant (get_attr)");
      }
    }
    for (const auto& [name, s] : options_.sizes) {
      const Node* n = graph_.find(name);
      if (!n || n->op != NodeOp::Placeholder) {
        throw Error("sizes were given for '" + name + "', which is not a placeholder");
      }
    }
    resolve_pending();
    check_given_ranges();
  }

  void resolve_pending() {
    bool progress = true;
    while (progress) {
      progress = false;
      for (size_t k = 0; k < pending_.size();) {
        if (solve(pending_[k])) {
          pending_.erase(pending_.begin() + static_cast<long>(k));
          progress = true;
        } else {
          ++k;
        }
      }
    }
  }

  DimDecl decl(const std::string& name) const {
    const DimDecl* d = graph_.dim(name);
    return d ? *d : DimDecl{};
  }

  Int random_in_range(const DimDecl& d, std::mt19937_64& rng) const {
    Int lo = d.min && *d.min > 2 ? *d.min : Int(2);
    Int hi = Int(options_.max_random_dim);
    if (d.max && *d.max < hi) hi = *d.max;
    if (hi < lo) {
      hi = lo;
      if (d.max && *d.max < lo) lo = hi = *d.max;
    }
    auto l = to_int64(lo), h = to_int64(hi);
    if (!l || !h) return lo;
    std::uniform_int_distribution<int64_t> pick(*l, *h);
    return Int(pick(rng));
  }

  void choose_dims() {
    std::vector<std::string> free;
    for (const std::string& s : symbols_) {
      if (!dims_.count(s)) free.push_back(s);
    }
    if (free.empty()) return;
    std::mt19937_64 rng(stream_seed(options_.seed, "dims", "", 0));
    const Bindings given = dims_;
    // Random dims are drawn again when the graph does not type-check at them; hints are not:
    // a graph that fails at its hints fails here as `check` says it does.
    const int attempts = options_.random_dims ? 12 : 1;
    Bindings first;
    for (int attempt = 0; attempt < attempts; ++attempt) {
      dims_ = given;
      for (const std::string& s : free) {
        if (dims_.count(s)) continue;  // bound by a pending size solved below
        DimDecl d = decl(s);
        Int v = options_.random_dims ? random_in_range(d, rng) : default_hint(d);
        dims_[s] = v;
        resolve_pending_quietly();
      }
      if (attempts == 1) return;
      if (attempt == 0) first = dims_;
      if (propagates()) return;
    }
    dims_ = first;  // nothing type-checks: run at the first choice and let the kernels say why
  }

  // Pending sizes solved with the dims chosen so far (binding the names they determine); the
  // pending list itself is kept for the final check. A contradiction is left to that check.
  void resolve_pending_quietly() {
    const std::vector<Pending> pending = pending_;
    try {
      resolve_pending();
    } catch (const Error&) {
    }
    pending_ = pending;
  }

  // Whether the graph's shapes type-check with the chosen dims as hints.
  bool propagates() const {
    PropagateOptions po;
    for (const auto& [name, v] : dims_) {
      DimDecl d = decl(name);
      d.hint = v;
      po.dims[name] = d;
    }
    ShapeEnv env;
    Propagation p = propagate(graph_, env, po);
    return p.ok();
  }

  void check_pending() {
    for (const Pending& p : pending_) {
      Int v;
      try {
        v = evaluate(p.declared, dims_);
      } catch (const Error& e) {
        throw Error(p.where + " is declared " + p.declared.str() +
                    ", whose dims cannot be bound (" + e.what() + ")");
      }
      if (v != p.value) throw Error(mismatch(p, v));
    }
  }

  int64_t eval_int(const Expr& e, const std::string& what) const {
    Int v = evaluate(e, dims_);
    auto small = to_int64(v);
    if (!small) throw Error(what + " " + e.str() + " = " + to_string(v) + " does not fit in int64");
    return *small;
  }

  // ---- world size ----

  std::optional<int64_t> group_size_of(const Node& n) const {
    const Arg* a = n.kwarg("group_size");
    if (!a) {
      const bool legacy = n.target.rfind("c10d_functional.", 0) == 0;
      std::optional<size_t> pos;
      if (n.target.find(".all_gather_into_tensor") != std::string::npos) pos = legacy ? 3 : 1;
      if (n.target.find(".reduce_scatter_tensor") != std::string::npos) pos = legacy ? 4 : 2;
      if (legacy && n.target.find(".all_reduce") != std::string::npos) pos = 4;
      if (pos && *pos < n.args.size()) a = &n.args[*pos];
      if (!a && legacy) {
        // The legacy ops' ranks list names the group.
        const Arg* ranks = n.kwarg("ranks");
        size_t rpos = n.target.find(".all_reduce") != std::string::npos ? 3 : 2;
        if (!ranks && rpos < n.args.size()) ranks = &n.args[rpos];
        if (ranks && ranks->kind == Arg::Kind::List && !ranks->items.empty()) {
          return static_cast<int64_t>(ranks->items.size());
        }
      }
    }
    if (!a || a->kind == Arg::Kind::None) return std::nullopt;
    if (a->kind != Arg::Kind::Int) {
      throw RunInputError(n, "group size must be an int, got " + a->str());
    }
    return eval_int(a->integer, "group size");
  }

  void choose_world_size() {
    world_ = options_.world_size;
    if (world_ == 0) {
      for (const Node& n : graph_.nodes) {
        if (n.op != NodeOp::CallFunction || !is_collective(n.target)) continue;
        if (auto w = group_size_of(n)) {
          if (*w < 1 || *w > 1024) {
            throw Error(label(n) + ": group size " + std::to_string(*w) +
                        " cannot be simulated (1..1024 ranks)");
          }
          world_ = static_cast<size_t>(*w);
          break;
        }
      }
    }
    if (world_ == 0) world_ = 1;
  }

  // ---- inputs ----

  Tensor generate(const Node& n, size_t rank) const {
    std::vector<int64_t> sizes;
    for (const Expr& e : *n.shape) {
      int64_t v = eval_int(e, "size");
      if (v < 0) {
        throw Error("size " + e.str() + " = " + std::to_string(v) + " is negative");
      }
      sizes.push_back(v);
    }
    if (n.op == NodeOp::GetAttr && !n.value.is_null()) return constant(n, sizes);
    if (std::optional<Tensor> t = unpacked_complex(n, sizes, rank)) return *t;
    std::mt19937_64 rng(stream_seed(options_.seed, "input", n.name, rank));
    if (!n.stride) {
      Tensor t = Tensor::zeros(*n.dtype, sizes);
      for (int64_t k = 0; k < t.numel(); ++k) t.set_flat(k, random_element(*n.dtype, rng));
      return t;
    }
    if (n.stride->size() != sizes.size()) {
      throw Error(std::to_string(n.stride->size()) + " strides for " +
                  std::to_string(sizes.size()) + " sizes");
    }
    std::vector<int64_t> strides;
    int64_t extent = 1;
    bool empty = false;
    for (int64_t s : sizes) empty |= s == 0;
    for (size_t k = 0; k < sizes.size(); ++k) {
      int64_t st = eval_int((*n.stride)[k], "stride");
      if (st < 0) throw Error("negative stride " + std::to_string(st));
      strides.push_back(st);
      if (!empty) {
        if (sizes[k] > 1 && st > (Tensor::kMaxElements - extent) / (sizes[k] - 1)) {
          throw Error("strides reach too far for the interpreter");
        }
        extent += (sizes[k] - 1) * st;
      }
    }
    Tensor base = Tensor::zeros(*n.dtype, {empty ? 0 : extent});
    for (int64_t k = 0; k < base.numel(); ++k) base.set_flat(k, random_element(*n.dtype, rng));
    return base.as_strided(sizes, strides, 0);
  }

  // An input complex-rewrite unpacked (the graph's complex_io names it and its original): the
  // real view of the complex input the original graph generates, so that the same seed gives
  // both graphs the same numbers. nullopt for any other input.
  std::optional<Tensor> unpacked_complex(const Node& n, const std::vector<int64_t>& sizes,
                                         size_t rank) const {
    if (n.stride || sizes.empty() || sizes.back() != 2 || !n.dtype || !is_floating(*n.dtype)) {
      return std::nullopt;
    }
    const auto io = graph_.extra.find("complex_io");
    if (io == graph_.extra.end() || !io->is_object()) return std::nullopt;
    const auto inputs = io->find("inputs");
    if (inputs == io->end() || !inputs->is_array()) return std::nullopt;
    for (const auto& in : *inputs) {
      if (!in.is_object() || in.value("name", "") != n.name) continue;
      const std::string original = in.value("original", "");
      const std::optional<DType> d = parse_dtype(in.value("dtype", ""));
      if (original.empty() || !d || !is_complex(*d)) return std::nullopt;
      const std::vector<int64_t> complex_sizes(sizes.begin(), sizes.end() - 1);
      std::mt19937_64 rng(stream_seed(options_.seed, "input", original, rank));
      Tensor c = Tensor::zeros(*d, complex_sizes);
      Tensor t = Tensor::zeros(*n.dtype, sizes);
      for (int64_t k = 0; k < c.numel(); ++k) {
        c.set_flat(k, random_element(*d, rng));
        const Complex v = c.flat(k).as_complex();
        t.set_flat(2 * k, Scalar::of_float(v.real()));
        t.set_flat(2 * k + 1, Scalar::of_float(v.imag()));
      }
      return t;
    }
    return std::nullopt;
  }

  // {"float": "nan"}, {"float": "inf"}, {"float": "-inf"}: a non-finite float, spelled as the
  // graph format spells such an argument (JSON has no number for it).
  static std::optional<double> non_finite(const nlohmann::ordered_json& j) {
    if (!j.is_object() || j.size() != 1 || !j.contains("float") || !j["float"].is_string()) {
      return std::nullopt;
    }
    const std::string& text = j["float"].get_ref<const std::string&>();
    if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (text == "inf") return std::numeric_limits<double>::infinity();
    if (text == "-inf") return -std::numeric_limits<double>::infinity();
    return std::nullopt;
  }

  static void flatten(const nlohmann::ordered_json& j, std::vector<Scalar>& out) {
    if (j.is_array()) {
      for (const auto& item : j) flatten(item, out);
    } else if (j.is_boolean()) {
      out.push_back(Scalar::of_bool(j.get<bool>()));
    } else if (j.is_number_integer()) {
      out.push_back(Scalar::of_int(j.get<int64_t>()));
    } else if (j.is_number()) {
      out.push_back(Scalar::of_float(j.get<double>()));
    } else if (std::optional<double> x = non_finite(j)) {
      out.push_back(Scalar::of_float(*x));
    } else {
      throw Error("a constant's value must hold numbers, got " + j.dump());
    }
  }

  Tensor constant(const Node& n, const std::vector<int64_t>& sizes) const {
    std::vector<Scalar> flat;
    flatten(n.value, flat);
    Tensor t = Tensor::zeros(*n.dtype, sizes);
    const size_t numel = static_cast<size_t>(t.numel());
    if (is_complex(*n.dtype) && flat.size() == 2 * numel) {
      std::vector<Scalar> pairs;
      for (size_t k = 0; k < numel; ++k) {
        pairs.push_back(
            Scalar::of_complex(Complex(flat[2 * k].as_double(), flat[2 * k + 1].as_double())));
      }
      flat = std::move(pairs);
    }
    if (flat.size() != numel) {
      throw Error("its value holds " + std::to_string(flat.size()) +
                  " numbers for a tensor of shape " + sizes_text(sizes));
    }
    return Tensor::from(*n.dtype, sizes, flat);
  }

  // ---- execution ----

  void execute() {
    const size_t count = graph_.nodes.size();
    ranks_.assign(world_, std::vector<RValue>(count));
    const KernelRegistry& registry =
        options_.kernels ? *options_.kernels : KernelRegistry::instance();
    size_t i = 0;
    try {
      for (; i < count; ++i) {
        const Node& n = graph_.nodes[i];
        for (size_t r = 0; r < world_; ++r) {
          ranks_[r][i] = laid_out(i, r, run_node(registry, n, r, r, nullptr));
        }
      }
    } catch (const RunInputError& e) {
      fail(e.what(), i, true);
      return;
    } catch (const RunError& e) {
      fail(e.what(), i, !in_op(i));
      return;
    } catch (const std::exception& e) {
      fail(i < count ? label(graph_.nodes[i]) + ": " + e.what() : std::string(e.what()), i,
           !in_op(i));
      return;
    }
    result_.ok = true;
    finish();
  }

  // Node n on rank r, whose values are ranks_[slot] (slot == r unless one rank runs here).
  RValue run_node(const KernelRegistry& registry, const Node& n, size_t slot, size_t r,
                  ProcessGroup* group) {
    switch (n.op) {
      case NodeOp::Placeholder:
      case NodeOp::GetAttr: {
        auto it = options_.inputs.find(n.name);
        if (it == options_.inputs.end()) return RValue::of(generate(n, r));
        if (n.dtype && it->second.dtype() != *n.dtype) {
          throw Error("input '" + n.name + "' is declared " + std::string(to_string(*n.dtype)) +
                      " but was given " + it->second.str());
        }
        // Every rank gets its own copy, so that an in-place op on one rank leaves the others'.
        return RValue::of(r == 0 ? it->second : it->second.clone());
      }
      case NodeOp::Output: {
        std::mt19937_64 rng(0);
        KernelContext ctx(graph_, n, ranks_, slot, dims_, rng);
        return n.args.empty() ? RValue::none() : ctx.value_of(n.args[0]);
      }
      case NodeOp::CallFunction: break;
    }
    const Kernel* kernel = registry.find(n.target);
    if (!kernel) throw RunInputError(n, "unknown op '" + n.target + "' (no kernel)");
    // Seeded by the node's name, not its position: a pass that inserts or erases nodes before a
    // random op must not change what it draws (--verify-numerics compares the two graphs).
    std::mt19937_64 rng(stream_seed(options_.seed, "node", n.name, r));
    KernelContext ctx(graph_, n, ranks_, slot, dims_, rng);
    if (group) ctx.set_process_group(group, r, world_);
    ctx.set_eval_mode(options_.eval_mode);
    return (*kernel)(ctx);
  }

  // ---- layouts ----

  // Every node's metadata at this run's dims (propagation with them as hints), from which the
  // values take their strides. A node propagation cannot reach keeps its kernel's layout.
  void propagate_layouts() {
    metadata_.clear();
    seen_.assign(world_, Bindings());
    if (!options_.layouts) return;
    PropagateOptions po;
    for (const auto& [name, v] : dims_) {
      DimDecl d = decl(name);
      d.hint = v;
      po.dims[name] = d;
    }
    // The layouts are the shape rules' own: an op's declared metadata is not checked here (a
    // traced graph may declare what its tracer's meta functions said where the rule follows
    // the CPU kernel, e.g. batch norm's statistics outside training, and a failed check would
    // leave every later node without metadata).
    std::optional<Graph> given;
    for (size_t k = 0; k < graph_.nodes.size(); ++k) {
      const Node& n = graph_.nodes[k];
      if (n.op != NodeOp::CallFunction || (!n.dtype && !n.shape && !n.stride)) continue;
      if (!given) given = graph_;
      Node& copy = given->nodes[k];
      copy.dtype.reset();
      copy.shape.reset();
      copy.stride.reset();
    }
    // A given input keeps the layout it was given, and the metadata follows it: its strides
    // are declared (at this run's sizes) in a copy of the graph.
    for (const auto& [name, t] : options_.inputs) {
      const size_t k = graph_.index_of(name);
      if (k >= graph_.nodes.size() || !t.defined()) continue;
      const Node& n = graph_.nodes[k];
      std::vector<int64_t> declared = contiguous_strides(t.sizes());
      if (n.stride) {
        declared.clear();
        try {
          for (const Expr& e : *n.stride) declared.push_back(eval_int(e, "stride"));
        } catch (const Error&) {
          continue;
        }
      }
      if (t.strides_equivalent(declared)) continue;
      if (!given) given = graph_;
      std::vector<Expr> strides;
      for (int64_t st : t.strides()) strides.emplace_back(st);
      given->nodes[k].stride = std::move(strides);
    }
    ShapeEnv env;
    metadata_ = propagate(given ? *given : graph_, env, po).values;
  }

  // The strides meta gives a tensor of t's sizes at this run's dims (data-dependent sizes bound
  // from the sizes the run produced, per rank); nullopt when they cannot be evaluated or the
  // sizes disagree (a data-dependent size whose symbol is not seen bare yet).
  std::optional<std::vector<int64_t>> metadata_strides(const TensorMeta& meta, const Tensor& t,
                                                       size_t slot) {
    if (meta.sizes.size() != t.rank() || meta.dtype != t.dtype()) return std::nullopt;
    Bindings& seen = seen_[slot];
    Bindings all = dims_;
    for (const auto& [name, v] : seen) all[name] = v;
    try {
      for (size_t k = 0; k < t.rank(); ++k) {
        const Expr& e = meta.sizes[k];
        if (e.is_symbol() && !all.count(e.symbol_name())) {
          all[e.symbol_name()] = seen[e.symbol_name()] = Int(t.sizes()[k]);
        }
        if (evaluate(e, all) != Int(t.sizes()[k])) return std::nullopt;
      }
      if (meta.strides.empty()) return contiguous_strides(t.sizes());
      if (meta.strides.size() != t.rank()) return std::nullopt;
      std::vector<int64_t> strides;
      for (const Expr& e : meta.strides) {
        std::optional<int64_t> v = to_int64(evaluate(e, all));
        if (!v || *v < 0) return std::nullopt;
        strides.push_back(*v);
      }
      return strides;
    } catch (const Error&) {
      return std::nullopt;
    }
  }

  // The tensors node i read (its arguments' values, lists' items included).
  void argument_tensors(const RValue& v, std::vector<const Tensor*>& out) const {
    if (v.is_tensor()) out.push_back(&v.tensor);
    for (const RValue& item : v.items) argument_tensors(item, out);
  }
  void argument_tensors(const Arg& a, size_t slot, std::vector<const Tensor*>& out) const {
    if (a.kind == Arg::Kind::Node) {
      const size_t k = graph_.index_of(a.text);
      if (k < ranks_[slot].size()) argument_tensors(ranks_[slot][k], out);
    }
    for (const Arg& item : a.items) argument_tensors(item, slot, out);
  }

  // v (node i's value on the rank whose values are ranks_[slot]) with the strides its metadata
  // says, as PyTorch lays it out. A view (sharing storage with an argument) keeps its elements
  // and takes the metadata's strides only where they address the same ones (size-1 dims);
  // any other result is copied into a fresh storage with those strides when its own differ.
  RValue laid_out(size_t i, size_t slot, RValue v) {
    // Inputs and constants are as given or generated (with their declared strides).
    if (i >= metadata_.size() || graph_.nodes[i].op != NodeOp::CallFunction) return v;
    std::vector<const Tensor*> read;
    const Node& n = graph_.nodes[i];
    for (const Arg& a : n.args) argument_tensors(a, slot, read);
    for (const auto& [key, a] : n.kwargs) argument_tensors(a, slot, read);
    conform(metadata_[i], v, read, slot);
    return v;
  }

  void conform(const Value& meta, RValue& v, const std::vector<const Tensor*>& read, size_t slot) {
    if (v.kind == RValue::Kind::List && meta.kind == Value::Kind::List &&
        v.items.size() == meta.items.size()) {
      for (size_t k = 0; k < v.items.size(); ++k) conform(meta.items[k], v.items[k], read, slot);
      return;
    }
    if (!v.is_tensor() || !meta.is_tensor() || !v.tensor.defined()) return;
    Tensor& t = v.tensor;
    const std::optional<std::vector<int64_t>> strides = metadata_strides(meta.tensor, t, slot);
    if (!strides || *strides == t.strides()) return;
    if (t.strides_equivalent(*strides)) {
      t = t.as_strided(t.sizes(), *strides, t.offset());
      return;
    }
    for (const Tensor* r : read) {
      if (r->shares_storage(t)) return;  // a view: its elements are its base's
    }
    t = t.laid_out(*strides);
  }

  // Whether node i is an op: a failure elsewhere (an input, a constant) is bad input.
  bool in_op(size_t i) const {
    return i < graph_.nodes.size() && graph_.nodes[i].op == NodeOp::CallFunction;
  }

  void fail(std::string message, size_t i, bool input_error) {
    result_.ok = false;
    result_.error = std::move(message);
    result_.failed_node = i;
    result_.input_error = input_error;
    for (auto& values : ranks_) {
      for (size_t k = i; k < values.size(); ++k) values[k] = RValue::none();
    }
    finish();
  }

  void finish() {
    result_.world_size = world_;
    if (ranks_.empty()) return;
    result_.values = ranks_[0];
    if (ranks_.size() > 1) result_.ranks = ranks_;
  }

  const Graph& graph_;
  const RunOptions& options_;
  RunResult& result_;
  std::vector<std::string> symbols_;
  Bindings dims_;
  std::vector<Pending> pending_;
  std::map<std::string, std::string> given_by_;  // a given dim's origin: "--dim n"
  size_t world_ = 1;
  size_t rank_ = 0;  // this process's rank in a multi-process run
  std::vector<std::vector<RValue>> ranks_;
  std::vector<Value> metadata_;  // every node's propagated value at dims_ (empty: none)
  std::vector<Bindings> seen_;   // per slot: data-dependent sizes seen so far (u0 = 3)
};

}  // namespace

RunResult run(const Graph& graph, const RunOptions& options) {
  RunResult result;
  result.values.assign(graph.nodes.size(), RValue::none());
  auto budget = std::make_shared<MemoryBudget>();
  budget->limit = std::max<int64_t>(options.memory_budget, 0);
  MemoryBudgetScope scope(budget);
  try {
    Runner(graph, options, result).run();
  } catch (const std::exception& e) {
    // Errors before any node ran (dims, inputs): no node to name beyond the message's own.
    result.ok = false;
    result.error = e.what();
    result.failed_node = graph.nodes.size();  // no node ran into it
    result.input_error = true;
  }
  result.over_budget = !result.ok && budget->exceeded;
  if (result.values.size() != graph.nodes.size()) {
    result.values.assign(graph.nodes.size(), RValue::none());
  }
  return result;
}

}  // namespace symshape::interp
