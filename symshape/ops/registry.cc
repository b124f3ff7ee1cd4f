#include "symshape/ops/families.h"

namespace symshape {

void OpRegistry::add(const std::string& target, ShapeRule rule) {
  rules_[target] = std::move(rule);
}

const ShapeRule* OpRegistry::find(std::string_view target) const {
  auto exact = rules_.find(target);
  if (exact != rules_.end()) return &exact->second;
  // `aten.add.Tensor` -> `aten.add`: an overload (a third name part) falls back to its packet.
  size_t first = target.find('.'), last = target.rfind('.');
  if (first != std::string_view::npos && last != first) {
    auto packet = rules_.find(target.substr(0, last));
    if (packet != rules_.end()) return &packet->second;
  }
  return nullptr;
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
    return r;
  }();
  return *registry;
}

}  // namespace symshape
