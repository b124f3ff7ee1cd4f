// Guard printers: Python (PyTorch's strings), verbose Python, C++ over GuardInt, and JSON.
#include <ginac/ginac.h>

#include <cctype>
#include <map>

#include "guards/internal.h"
#include "symshape/expr/functions.h"
#include "symshape/guards.h"
#include "symshape/ir/utf8.h"
#include "symshape/propagate.h"

namespace symshape {

namespace {

// ceildiv(a, b) spelled as Python can run it: -((-a)//b).
struct PythonForm : GiNaC::map_function {
  GiNaC::ex operator()(const GiNaC::ex& e) override {
    if (function_of(e) == Fn::CeilDiv) {
      Expr a((*this)(e.op(0))), b((*this)(e.op(1)));
      return (-floordiv(-a, b)).ex();
    }
    return e.map(*this);
  }
};

Expr python_form(const Expr& e) {
  PythonForm f;
  return Expr(f(e.ex()));
}

Cond python_form(const Cond& c) {
  switch (c.kind()) {
    case Cond::Kind::True:
    case Cond::Kind::False: return c;
    case Cond::Kind::Rel: return Cond::rel(c.op(), python_form(c.lhs()), python_form(c.rhs()));
    case Cond::Kind::And:
    case Cond::Kind::Or: {
      std::vector<Cond> parts;
      for (const Cond& o : c.operands()) parts.push_back(python_form(o));
      return c.kind() == Cond::Kind::And ? Cond::all(parts) : Cond::any(parts);
    }
  }
  return c;
}

// Renames every identifier token of text found in names.
std::string rename_identifiers(const std::string& text,
                               const std::map<std::string, std::string>& names) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = text[i];
    if (std::isalpha(c) || c == '_') {
      size_t j = i;
      while (j < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
        ++j;
      std::string word = text.substr(i, j - i);
      auto it = names.find(word);
      out += it == names.end() ? word : it->second;
      i = j;
    } else {
      out += text[i++];
    }
  }
  return out;
}

std::map<std::string, std::string> source_names(const GuardSet& set) {
  std::map<std::string, std::string> names;
  for (const Source& s : set.sources) names[s.identifier] = s.name;
  return names;
}

// `lo <= X <= hi` for a range guard, as PyTorch chains it; nullopt for any other shape.
std::optional<std::string> chained(const Cond& c, const std::map<std::string, std::string>& names) {
  if (c.kind() != Cond::Kind::And || c.operands().size() != 2) return std::nullopt;
  const Cond& lo = c.operands()[0];
  const Cond& hi = c.operands()[1];
  if (lo.kind() != Cond::Kind::Rel || hi.kind() != Cond::Kind::Rel || lo.op() != RelOp::Le ||
      hi.op() != RelOp::Le || !lo.rhs().identical(hi.lhs()))
    return std::nullopt;
  return rename_identifiers(
      lo.lhs().str() + " <= " + python_form(lo.rhs()).str() + " <= " + hi.rhs().str(), names);
}

std::string python_line(const ProducedGuard& g, const std::map<std::string, std::string>& names) {
  if (g.kind == ProducedGuard::Kind::Range) {
    if (auto text = chained(g.cond, names)) return *text;
  }
  return rename_identifiers(python_form(g.cond).str(), names);
}

// ---- C++ ----

std::string cpp_constant(const Int& v) {
  std::optional<int64_t> small = Expr(v).as_int64();
  if (small && *small > INT64_MIN) {
    // Negative literals are parenthesized so that `x - -3` never appears.
    return *small < 0 ? "(" + std::to_string(*small) + ")" : std::to_string(*small);
  }
  return "symshape::GuardInt(\"" + to_string(v) + "\")";
}

// C++ text of a lowered expression; `atomic` is set when it needs no parentheses as an operand.
std::string cpp(const guards::Lowered& l, bool& atomic) {
  using Op = guards::Lowered::Op;
  auto operand = [](const guards::Lowered& x) {
    bool a = false;
    std::string t = cpp(x, a);
    return a ? t : "(" + t + ")";
  };
  auto call = [&](const char* f) {
    bool a = false;
    return std::string(f) + "(" + cpp(l.args[0], a) + ", " + cpp(l.args[1], a) + ")";
  };
  atomic = true;
  switch (l.op) {
    case Op::Const: return cpp_constant(l.value);
    case Op::Var: return l.name;
    case Op::Neg: return "-" + operand(l.args[0]);
    case Op::FloorDiv: return call("floordiv");
    case Op::Mod: return call("mod");
    case Op::Max: return call("max");
    case Op::Min: return call("min");
    case Op::Pow: {
      bool a = false;
      return "pow(" + cpp(l.args[0], a) + ", " + to_string(l.value) + "u)";
    }
    case Op::Add:
    case Op::Mul: {
      atomic = false;
      std::string text;
      for (const guards::Lowered& a : l.args)
        text += (text.empty() ? "" : l.op == Op::Add ? " + " : " * ") + operand(a);
      return text;
    }
  }
  return "";
}

std::string cpp(const Cond& c) {
  switch (c.kind()) {
    case Cond::Kind::True: return "true";
    case Cond::Kind::False: return "false";
    case Cond::Kind::Rel: {
      bool a = false;
      std::string lhs = cpp(guards::lower(c.lhs()), a);
      std::string rhs = cpp(guards::lower(c.rhs()), a);
      return lhs + " " + std::string(to_string(c.op())) + " " + rhs;
    }
    case Cond::Kind::And:
    case Cond::Kind::Or: {
      std::string text;
      for (const Cond& o : c.operands())
        text += (text.empty()                  ? ""
                 : c.kind() == Cond::Kind::And ? " && "
                                               : " || ") +
                ("(" + cpp(o) + ")");
      return text;
    }
  }
  return "";
}

// Text as JSON can hold it: a byte that is not UTF-8 is spelled \xNN (nlohmann would throw on
// dump). Sources keep every byte in their escaped `name`.
std::string json_text(std::string_view text) { return detail::escape_invalid_utf8(text); }

nlohmann::ordered_json provenance_json(const Provenance& p) {
  nlohmann::ordered_json j;
  j["node"] = json_text(p.node);
  j["op"] = json_text(p.op);
  j["rule"] = json_text(p.rule);
  return j;
}

// A provenance as a Python comment: as it is when it is printable ASCII, else as an escaped
// literal, so that no name can end the comment's line.
std::string python_comment(const Provenance& where) {
  std::string p = where.str();
  for (char c : p) {
    if (c < 0x20 || c >= 0x7F) return python_string_literal(p);
  }
  return p;
}

nlohmann::ordered_json bound_json(const std::optional<Int>& v) {
  if (!v) return nullptr;
  std::optional<int64_t> small = Expr(*v).as_int64();
  if (small) return *small;
  return to_string(*v);
}

}  // namespace

std::string_view kind_name(ProducedGuard::Kind k) {
  switch (k) {
    case ProducedGuard::Kind::Equality: return "equality";
    case ProducedGuard::Kind::Guard: return "guard";
    case ProducedGuard::Kind::Range: return "range";
  }
  return "?";
}

std::string_view kind_name(Source::Kind k) {
  switch (k) {
    case Source::Kind::Size: return "size";
    case Source::Kind::Stride: return "stride";
    case Source::Kind::StorageOffset: return "storage_offset";
    case Source::Kind::Dim: return "dim";
  }
  return "?";
}

std::string python_text(const GuardSet& set, const Cond& cond) {
  return rename_identifiers(python_form(cond).str(), source_names(set));
}

std::string print_python(const GuardSet& set) {
  auto names = source_names(set);
  std::string out;
  for (const ProducedGuard& g : set.guards) out += python_line(g, names) + "\n";
  if (!set.runtime_asserts.empty()) {
    out += "# runtime asserts (on data-dependent values, checked when the graph runs):\n";
    for (const RuntimeAssert& a : set.runtime_asserts)
      out += "# " + rename_identifiers(python_form(a.cond).str(), names) + "\n";
  }
  return out;
}

std::string print_verbose(const GuardSet& set) {
  auto names = source_names(set);
  std::string out;
  auto line = [&](const std::string& text, const Provenance& where) {
    std::string p = python_comment(where);
    out += text + (p.empty() ? "" : "  # " + p) + "\n";
  };
  for (const ProducedGuard& g : set.guards) {
    std::string text = python_line(g, names);
    std::string p = python_comment(g.where);
    // A merged guard: the deciding requirement, then every other one with what it asks.
    for (const Requirement& r : g.merged) {
      if (r.where.str() == g.where.str()) continue;
      p += (p.empty() ? "also " : "; also ") + python_comment(r.where) + ": " +
           rename_identifiers(python_form(r.cond).str(), names);
    }
    out += text + (p.empty() ? "" : "  # " + p) + "\n";
  }
  if (!set.runtime_asserts.empty()) {
    out += "# runtime asserts (on data-dependent values, checked when the graph runs):\n";
    for (const RuntimeAssert& a : set.runtime_asserts)
      line("# " + rename_identifiers(python_form(a.cond).str(), names), a.where);
  }
  return out;
}

std::string print_cpp(const GuardSet& set) {
  std::string out;
  for (size_t i = 0; i < set.guards.size(); ++i) {
    out += "(" + cpp(set.guards[i].cond) + ")" + (i + 1 < set.guards.size() ? " &&" : "") + "\n";
  }
  if (set.guards.empty()) out = "true\n";
  return out;
}

nlohmann::ordered_json to_json(const GuardSet& set) {
  auto names = source_names(set);
  nlohmann::ordered_json j;
  j["sources"] = nlohmann::ordered_json::array();
  for (const Source& s : set.sources) {
    nlohmann::ordered_json o;
    o["name"] = s.name;
    o["identifier"] = s.identifier;
    o["kind"] = kind_name(s.kind);
    o["input"] = json_text(s.input);
    if (s.kind == Source::Kind::Size || s.kind == Source::Kind::Stride) o["dim"] = s.dim;
    j["sources"].push_back(o);
  }
  j["symbols"] = nlohmann::ordered_json::array();
  for (const SymbolDefinition& d : set.symbols) {
    nlohmann::ordered_json o;
    o["symbol"] = json_text(d.symbol);
    o["value"] = rename_identifiers(python_form(d.value).str(), names);
    o["range"] = {bound_json(d.range.lo()), bound_json(d.range.hi())};
    j["symbols"].push_back(o);
  }
  j["guards"] = nlohmann::ordered_json::array();
  for (const ProducedGuard& g : set.guards) {
    nlohmann::ordered_json o;
    o["kind"] = kind_name(g.kind);
    o["python"] = python_line(g, names);
    o["expr"] = g.cond.str();
    o["provenance"] = provenance_json(g.where);
    if (!g.merged.empty()) {
      o["merged"] = nlohmann::ordered_json::array();
      for (const Requirement& r : g.merged) {
        nlohmann::ordered_json m;
        m["python"] = rename_identifiers(python_form(r.cond).str(), names);
        m["provenance"] = provenance_json(r.where);
        o["merged"].push_back(m);
      }
    }
    j["guards"].push_back(o);
  }
  j["runtime_asserts"] = nlohmann::ordered_json::array();
  for (const RuntimeAssert& a : set.runtime_asserts) {
    nlohmann::ordered_json o;
    o["python"] = rename_identifiers(python_form(a.cond).str(), names);
    o["expr"] = a.cond.str();
    o["provenance"] = provenance_json(a.where);
    j["runtime_asserts"].push_back(o);
  }
  return j;
}

}  // namespace symshape
