#include <mutex>

#include "symshape/ops/families.h"

namespace symshape {

void OpRegistry::add(const std::string& target, ShapeRule rule) {
  rules_[target] = std::move(rule);
  in_place_.clear();
}

void OpRegistry::remove(std::string_view target) {
  auto it = rules_.find(target);
  if (it != rules_.end()) rules_.erase(it);
  in_place_.clear();
}

namespace {
std::mutex in_place_mutex;  // registries are shared between threads that each own an env
}  // namespace

const ShapeRule* OpRegistry::find(std::string_view target) const {
  auto match = resolve_target(target, [&](std::string_view t) { return rules_.count(t) > 0; });
  if (!match) return nullptr;
  const ShapeRule& rule = rules_.find(match->key)->second;
  if (!match->in_place) return &rule;
  std::lock_guard<std::mutex> lock(in_place_mutex);
  auto it = in_place_.find(target);
  if (it == in_place_.end()) it = in_place_.emplace(std::string(target), ops::in_place(rule)).first;
  return &it->second;
}

std::vector<std::string> OpRegistry::targets() const {
  std::vector<std::string> out;
  for (const auto& [name, rule] : rules_) out.push_back(name);
  return out;
}

const OpRegistry& OpRegistry::instance() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    ops::register_elementwise(*r);
    ops::register_reductions(*r);
    ops::register_linalg(*r);
    ops::register_conv_pool(*r);
    ops::register_norm(*r);
    ops::register_views(*r);
    ops::register_indexing(*r);
    ops::register_creation(*r);
    ops::register_complex(*r);
    ops::register_data_dependent(*r);
    ops::register_symbolic(*r);
    ops::register_collectives(*r);
    ops::register_structured(*r);
    return r;
  }();
  return *registry;
}

}  // namespace symshape
