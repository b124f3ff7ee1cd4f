// The kernel registry: kernels by target, found as OpRegistry finds shape rules.
#include <mutex>

#include "symshape/interp/kernels.h"

namespace symshape::interp {

void KernelRegistry::add(const std::string& target, Kernel kernel) {
  kernels_[target] = std::move(kernel);
}

namespace {

// In-place kernels made from functional ones (`aten.add_.Tensor` from `aten.add.Tensor`), made
// once per registry and target and kept for the process's lifetime so pointers stay valid.
std::mutex in_place_mutex;
std::map<std::pair<const KernelRegistry*, std::string>, Kernel>& in_place_kernels() {
  static auto* m = new std::map<std::pair<const KernelRegistry*, std::string>, Kernel>();
  return *m;
}

Kernel in_place(const Kernel& functional) {
  return [functional](KernelContext& ctx) {
    // What the op writes into is its first argument (self, as in-place ops name it).
    Tensor self = ctx.tensor(ctx.schema().params.at(0).name);
    RValue out = functional(ctx);
    if (!out.is_tensor()) ctx.fail("an in-place op must produce a tensor, got " + out.str());
    return RValue::of(kernels::write_into(ctx, self, out.tensor));
  };
}

}  // namespace

const Kernel* KernelRegistry::find(std::string_view target) const {
  auto match = resolve_target(target, [&](std::string_view t) { return kernels_.count(t) > 0; });
  if (!match) return nullptr;
  const Kernel& kernel = kernels_.find(match->key)->second;
  if (!match->in_place) return &kernel;
  std::lock_guard<std::mutex> lock(in_place_mutex);
  auto& made = in_place_kernels();
  auto key = std::make_pair(this, std::string(target));
  auto it = made.find(key);
  if (it == made.end()) it = made.emplace(key, in_place(kernel)).first;
  return &it->second;
}

std::vector<std::string> KernelRegistry::targets() const {
  std::vector<std::string> out;
  for (const auto& [name, kernel] : kernels_) out.push_back(name);
  return out;
}

const KernelRegistry& KernelRegistry::instance() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    kernels::register_elementwise(*r);
    kernels::register_reductions(*r);
    kernels::register_linalg(*r);
    kernels::register_conv_pool(*r);
    kernels::register_norm(*r);
    kernels::register_views(*r);
    kernels::register_indexing(*r);
    kernels::register_creation(*r);
    kernels::register_complex(*r);
    kernels::register_data_dependent(*r);
    kernels::register_symbolic(*r);
    kernels::register_collectives(*r);
    kernels::register_structured(*r);
    return r;
  }();
  return *registry;
}

}  // namespace symshape::interp
