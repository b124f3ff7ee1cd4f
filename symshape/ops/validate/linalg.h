// Internal: the argument validation of the linear-algebra ops (einsum's equation), shared by
// their shape rules (symshape/ops/linalg.cc) and their kernels (symshape/interp/linalg.cc). See
// checks.h.
#pragma once

#include <map>
#include <optional>

#include "symshape/ops/validate/checks.h"

namespace symshape::validate {

// One einsum term's subscripts: letters, and at most one ellipsis (kEllipsis where it stands).
constexpr char kEllipsis = '.';
struct Subscripts {
  std::vector<char> labels;
  bool has_ellipsis = false;
  size_t letter_count() const { return labels.size() - (has_ellipsis ? 1 : 0); }
};

// An einsum equation, checked: one term per operand, each with as many subscripts as its
// operand has dims (at most as many with an ellipsis); the output's (when written after "->")
// subscripts each from an operand and at most once.
struct Equation {
  std::string text;
  std::vector<Subscripts> terms;
  std::optional<Subscripts> output;  // nullopt: implicit
};

// Parses one term; `where` names it in messages ("operand 0", "the output").
template <class Ctx>
Subscripts einsum_term(const Ctx& ctx, const std::string& text, const std::string& where) {
  Subscripts s;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (s.has_ellipsis) ctx.bad_input("einsum(): more than one ellipsis for " + where);
      if (text.compare(i, 3, "...") != 0) {
        ctx.bad_input("einsum(): found '.' for " + where + " that is not part of an ellipsis");
      }
      s.labels.push_back(kEllipsis);
      s.has_ellipsis = true;
      i += 2;
      continue;
    }
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
      ctx.bad_input(std::string("einsum(): invalid subscript '") + c + "' for " + where +
                    ": subscripts must be in [a-zA-Z]");
    }
    s.labels.push_back(c);
  }
  return s;
}

// einsum's equation, for operands of these ranks.
template <class Ctx>
Equation einsum_equation(const Ctx& ctx, const std::vector<size_t>& ranks) {
  if (!ctx.has("equation")) ctx.bad_input("missing argument 'equation'");
  const std::string equation = ctx.string("equation", "");
  if (ranks.empty()) ctx.bad_input("einsum(): must provide at least one operand");
  Equation eq;
  eq.text = equation;
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  size_t start = 0;
  for (size_t i = 0; i <= lhs.size(); ++i) {
    if (i == lhs.size() || lhs[i] == ',') {
      eq.terms.push_back(einsum_term(ctx, lhs.substr(start, i - start),
                                     "operand " + std::to_string(eq.terms.size())));
      start = i + 1;
    }
  }
  if (eq.terms.size() != ranks.size()) {
    ctx.bad_input("einsum(): the equation '" + equation + "' has " +
                  std::to_string(eq.terms.size()) + " operands but " +
                  std::to_string(ranks.size()) + " tensors were given");
  }
  std::map<char, bool> in_inputs;
  for (size_t o = 0; o < ranks.size(); ++o) {
    const Subscripts& s = eq.terms[o];
    const size_t letters = s.letter_count();
    if (s.has_ellipsis ? letters > ranks[o] : letters != ranks[o]) {
      ctx.bad_input("einsum(): the number of subscripts in the equation (" +
                    std::to_string(letters) + ") " +
                    (s.has_ellipsis ? "is more than" : "does not match") +
                    " the number of dimensions (" + std::to_string(ranks[o]) + ") for operand " +
                    std::to_string(o) + (s.has_ellipsis ? "" : " and no ellipsis was given"));
    }
    for (char label : s.labels) in_inputs[label] = true;
  }
  if (arrow == std::string::npos) return eq;
  eq.output = einsum_term(ctx, equation.substr(arrow + 2), "the output");
  std::map<char, bool> used;
  for (char label : eq.output->labels) {
    if (label == kEllipsis) continue;
    if (!in_inputs.count(label)) {
      ctx.bad_input(std::string("einsum(): output subscript ") + label +
                    " does not appear in the equation for any input operand");
    }
    if (used[label]) {
      ctx.bad_input(std::string("einsum(): output subscript ") + label +
                    " appears more than once in the output");
    }
    used[label] = true;
  }
  return eq;
}

}  // namespace symshape::validate
