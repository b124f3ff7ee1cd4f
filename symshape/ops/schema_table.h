// Internal: the generated signature table (schema_table.cc), read by SchemaTable::instance().
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace symshape::detail {
extern const std::string_view kSchemaTable[];
extern const size_t kSchemaTableSize;
}  // namespace symshape::detail

#include <functional>

#include "symshape/schema.h"

namespace symshape::detail {
// Binds a call to its target's signatures in the standard table (bind_arguments).
BoundArgs bind_call(const Node& node, const ArgClassifier& classify);
// What OpContext::arg and KernelContext::arg read: the bound argument or default; nullptr for a
// parameter only other overloads of the target have; Error (a bug) for a name none has.
const Arg* read_argument(const Node& node, const BoundArgs& bound, std::string_view name);
// "argument 'dim' (position 1)": where a call passes it (no position for a keyword-only one or
// without a signature), for the contexts' messages.
std::string argument_label(const OpSchema* schema, std::string_view name);
}  // namespace symshape::detail
