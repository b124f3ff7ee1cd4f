// An evaluator for the Python subset the guard printer writes, independent of symshape's own
// expression code: it reads the printed text back, as CPython would, and evaluates it with
// Python's integer semantics (floor division, modulo with the divisor's sign, chained
// comparisons, `and` / `or`). Sources are looked up by their printed names.
#pragma once

#include <cln/integer.h>

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

#include "symshape/expr.h"

namespace symshape::testing {

class PythonGuardEval {
 public:
  // values: source name (`L['x'].size()[0]`, `dims['W']`) -> value.
  PythonGuardEval(std::string_view text, const std::map<std::string, Int>& values)
      : text_(text), values_(values) {}

  // The truth of the whole line. Throws std::runtime_error on a syntax error, an unknown
  // source, or a division by zero (Python's ZeroDivisionError).
  bool truth() {
    bool v = disjunction();
    skip();
    if (pos_ != text_.size()) fail("trailing text");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error(why + " at column " + std::to_string(pos_ + 1) + " of '" +
                             std::string(text_) + "'");
  }
  void skip() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool eat(std::string_view token) {
    skip();
    if (text_.substr(pos_, token.size()) != token) return false;
    // A keyword must not run into an identifier (`and` in `andx`).
    if (std::isalpha(static_cast<unsigned char>(token[0])) && pos_ + token.size() < text_.size() &&
        std::isalnum(static_cast<unsigned char>(text_[pos_ + token.size()])))
      return false;
    pos_ += token.size();
    return true;
  }

  bool disjunction() {
    bool v = conjunction();
    while (eat("or")) v = conjunction() || v;  // both sides parsed; no short circuit needed
    return v;
  }
  bool conjunction() {
    bool v = comparison();
    while (eat("and")) v = comparison() && v;
    return v;
  }
  // A chain `a <= b <= c`, or a parenthesized condition, or True / False.
  bool comparison() {
    skip();
    size_t start = pos_;
    if (eat("True")) return true;
    if (eat("False")) return false;
    if (eat("(")) {
      // A parenthesized condition, unless it is an arithmetic operand: try it as a condition
      // first and fall back.
      size_t inner = pos_;
      try {
        bool v = disjunction();
        if (eat(")")) {
          skip();
          if (!starts_comparison_or_arith()) return v;
        }
      } catch (const std::runtime_error&) {
      }
      pos_ = start;
      (void)inner;
    }
    Int left = sum();
    bool result = true, any = false;
    while (true) {
      std::string op = relation();
      if (op.empty()) break;
      any = true;
      Int right = sum();
      result = result && compare(op, left, right);
      left = right;
    }
    if (!any) fail("expected a comparison");
    return result;
  }
  bool starts_comparison_or_arith() const {
    if (pos_ >= text_.size()) return false;
    char c = text_[pos_];
    return c == '=' || c == '!' || c == '<' || c == '>' || c == '+' || c == '-' || c == '*' ||
           c == '/' || c == '%';
  }
  std::string relation() {
    for (const char* op : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (eat(op)) return op;
    }
    return "";
  }
  static bool compare(const std::string& op, const Int& a, const Int& b) {
    if (op == "==") return a == b;
    if (op == "!=") return a != b;
    if (op == "<") return a < b;
    if (op == "<=") return a <= b;
    if (op == ">") return a > b;
    return a >= b;
  }

  Int sum() {
    Int v = product();
    while (true) {
      if (eat("+")) {
        v = v + product();
      } else if (peek_minus() && eat("-")) {
        v = v - product();
      } else {
        return v;
      }
    }
  }
  bool peek_minus() {
    skip();
    return pos_ < text_.size() && text_[pos_] == '-';
  }
  Int product() {
    Int v = unary();
    while (true) {
      if (eat("//")) {
        Int d = unary();
        if (cln::zerop(d)) fail("ZeroDivisionError");
        v = cln::floor1(v, d);
      } else if (eat("*")) {
        v = v * unary();
      } else if (eat("%")) {
        Int d = unary();
        if (cln::zerop(d)) fail("ZeroDivisionError");
        v = cln::mod(v, d);
      } else {
        return v;
      }
    }
  }
  Int unary() {
    if (eat("-")) return -unary();
    if (eat("+")) return unary();
    return power();
  }
  Int power() {
    Int base = atom();
    skip();
    if (text_.substr(pos_, 2) == "**") {
      pos_ += 2;
      Int e = unary();  // right-associative, binds tighter than unary minus on its left
      if (cln::minusp(e)) fail("negative exponent");
      return cln::expt_pos(base, cln::cl_I_to_UL(e));
    }
    return base;
  }
  Int atom() {
    skip();
    if (pos_ >= text_.size()) fail("unexpected end");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      Int v = sum();
      if (!eat(")")) fail("expected ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      return *parse_int(text_.substr(start, pos_ - start));
    }
    for (const char* f : {"max", "min"}) {
      if (eat(f)) {
        if (!eat("(")) fail("expected '('");
        Int v = sum();
        while (eat(",")) {
          Int w = sum();
          v = std::string(f) == "max" ? cln::max(v, w) : cln::min(v, w);
        }
        if (!eat(")")) fail("expected ')'");
        return v;
      }
    }
    // A source: L['x'].size()[0], L['x'].stride()[1], dims['W']: the longest known name here.
    size_t best = 0;
    const Int* value = nullptr;
    for (const auto& [name, v] : values_) {
      if (name.size() > best && text_.substr(pos_, name.size()) == name) {
        best = name.size();
        value = &v;
      }
    }
    if (!value) fail("unknown name");
    pos_ += best;
    return *value;
  }

  std::string_view text_;
  const std::map<std::string, Int>& values_;
  size_t pos_ = 0;
};

}  // namespace symshape::testing
