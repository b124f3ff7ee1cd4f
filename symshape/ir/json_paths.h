// The two paths of read_graph (symshape/ir/json.cc), for the tests that hold them to each other.
#pragma once

#include <optional>
#include <string_view>

#include "symshape/ir.h"

namespace symshape::detail {

// The fast path: the graph when the text uses only the common forms (strings without escapes,
// numbers that fit, a node's usual keys), nullopt for anything else, errors included.
std::optional<Graph> read_graph_fast(std::string_view text);
// The document path: every form, and every error as a message naming where it is.
Expected<Graph> read_graph_document(std::string_view text);

}  // namespace symshape::detail
