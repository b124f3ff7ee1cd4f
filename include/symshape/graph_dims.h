// The named dims of a graph, and what a user who names one that the graph lacks is told: shared
// by the CLI's --dim flags and Python's dims= arguments.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "symshape/ir.h"

namespace symshape {

// ` (did you mean 'batch'?)` when one of the candidates is a few edits from name, else "".
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);
// The dims the graph's input shapes and op arguments use (not those it only declares).
std::set<std::string> used_dim_names(const Graph& graph);
// The graph's named dims (sorted): in its inputs' and constants' shapes and strides, its "dims"
// declarations and its symbolic int arguments.
std::vector<std::string> graph_dim_names(const Graph& graph);
// Why `what name` (`--dim 'btch'`, `dims['btch']`) does not name a dim the graph uses, with a
// suggestion; nullopt when it does.
std::optional<std::string> unknown_dim_problem(const Graph& graph, std::string_view what,
                                               const std::string& name);

}  // namespace symshape
