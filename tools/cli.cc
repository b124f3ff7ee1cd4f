#include <algorithm>
#include <iostream>
#include <optional>
#include <set>

#include "symshape/ir/utf8.h"
#include "tools/cli.h"

namespace symshape::cli {

namespace {

const FlagSpec* find_flag(std::span<const FlagSpec> flags, std::string_view name) {
  for (const FlagSpec& f : flags) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

// A decimal integer as a user may type it: an optional sign ('+' too, as Python's int() takes).
std::optional<Int> parse_integer(std::string_view text) {
  if (text.size() > 1 && text[0] == '+' && text[1] != '-') text.remove_prefix(1);
  return parse_int(text);
}

// A symbol name as the expression parser reads it, so that `--range max=...` or `x y=1..2`
// cannot name something no expression can mention.
bool is_symbol_name(std::string_view name) {
  if (name.empty()) return false;
  Expected<Expr> e = parse_expr(name);
  return e.ok() && e->is_symbol() && e->symbol_name() == name;
}

// Splits `NAME=REST` at the first '='; `form` spells the whole argument, for messages.
std::pair<std::string, std::string_view> split_name(std::string_view spec, std::string_view form) {
  size_t eq = spec.find('=');
  if (eq == std::string_view::npos) {
    throw UsageError("expected " + std::string(form) + ", got " + quote(spec));
  }
  std::string name(spec.substr(0, eq));
  if (!is_symbol_name(name)) {
    throw UsageError("bad symbol name " + quote(name) + " in " + quote(spec) + " (expected " +
                     std::string(form) + ")");
  }
  return {name, spec.substr(eq + 1)};
}

}  // namespace

const std::vector<std::string>& ParsedArgs::all(std::string_view flag) const {
  static const std::vector<std::string> none;
  auto it = values.find(flag);
  return it == values.end() ? none : it->second;
}

ParsedArgs parse_flags(const Args& args, std::span<const FlagSpec> flags) {
  ParsedArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") {
      out.positional.insert(out.positional.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (word == "-h" || word == "--help") {
      out.help = true;
      continue;
    }
    if (!word.starts_with("--")) {
      out.positional.push_back(word);
      continue;
    }
    size_t eq = word.find('=');
    std::string_view name = std::string_view(word).substr(0, eq);
    const FlagSpec* spec = find_flag(flags, name);
    if (spec == nullptr) throw UsageError("unknown flag " + quote(name));
    std::vector<std::string>& slot = out.values[std::string(name)];
    if (spec->metavar.empty()) {
      if (eq != std::string::npos) throw UsageError("flag " + quote(name) + " takes no value");
      slot.emplace_back();
    } else if (eq != std::string::npos) {
      slot.push_back(word.substr(eq + 1));
    } else if (i + 1 < args.size()) {
      slot.push_back(args[++i]);
    } else {
      throw UsageError("flag " + quote(name) + " needs a value (" + std::string(spec->metavar) +
                       ")");
    }
  }
  return out;
}

std::string format_flags(std::span<const FlagSpec> flags) {
  std::vector<std::pair<std::string, std::string_view>> rows;
  for (const FlagSpec& f : flags) {
    std::string left(f.name);
    if (!f.metavar.empty()) left += " " + std::string(f.metavar);
    rows.emplace_back(std::move(left), f.help);
  }
  rows.emplace_back("-h, --help", "show this help and exit");
  size_t width = 0;
  for (const auto& row : rows) width = std::max(width, row.first.size());
  std::string out;
  for (const auto& [left, help] : rows) {
    out += "  " + left + std::string(width - left.size() + 2, ' ') + std::string(help) + "\n";
  }
  return out;
}

void expect_positionals(const ParsedArgs& parsed, size_t count, std::string_view what) {
  if (parsed.positional.size() < count) throw UsageError("missing " + std::string(what));
  if (parsed.positional.size() > count) {
    throw UsageError("unexpected argument " + quote(parsed.positional[count]) +
                     " (quote an expression that contains spaces)");
  }
}

std::pair<std::string, ValueRange> parse_range_spec(std::string_view spec) {
  constexpr std::string_view form = "NAME=LO..HI";
  auto [name, rest] = split_name(spec, form);
  size_t dots = rest.find("..");
  if (dots == std::string_view::npos) {
    throw UsageError("bad range " + quote(spec) + " (expected " + std::string(form) +
                     ", e.g. x=0..100 or x=-inf..inf)");
  }
  std::string_view lo_text = rest.substr(0, dots), hi_text = rest.substr(dots + 2);
  // An end is an integer, or the infinity on its own side.
  auto end = [&](std::string_view text, bool is_lo) -> std::optional<Int> {
    if (is_lo ? text == "-inf" : (text == "inf" || text == "+inf")) return std::nullopt;
    std::optional<Int> v = parse_integer(text);
    if (!v) {
      throw UsageError("bad range " + quote(spec) + ": " + (is_lo ? "LO " : "HI ") + quote(text) +
                       " is not an integer or " + (is_lo ? "-inf" : "inf"));
    }
    return v;
  };
  // Two statements, so LO is checked (and reported) before HI.
  std::optional<Int> lo = end(lo_text, true);
  std::optional<Int> hi = end(hi_text, false);
  ValueRange range(lo, hi);
  if (range.is_empty()) {
    throw UsageError("bad range " + quote(spec) + ": empty (LO is greater than HI)");
  }
  return {name, range};
}

std::pair<std::string, Int> parse_binding(std::string_view spec) {
  auto [name, rest] = split_name(spec, "NAME=INT");
  std::optional<Int> v = parse_integer(rest);
  if (!v) throw UsageError("bad value " + quote(rest) + " for " + name + " (expected an integer)");
  return {name, *v};
}

std::pair<std::string, std::vector<Int>> parse_int_list_spec(std::string_view spec) {
  auto [name, rest] = split_name(spec, "NAME=N,N,...");
  std::vector<Int> values;
  // An empty list (`x=`) is a 0-dim tensor's sizes.
  size_t start = 0;
  while (!rest.empty() && start <= rest.size()) {
    size_t comma = rest.find(',', start);
    std::string_view item = std::string_view(rest).substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    std::optional<Int> v = parse_integer(item);
    if (!v) {
      throw UsageError("bad value " + quote(item) + " in " + quote(spec) +
                       " (expected comma-separated integers)");
    }
    values.push_back(*v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return {name, values};
}

std::string quote(std::string_view text) { return "'" + std::string(text) + "'"; }

void print_error(std::string_view message) {
  // One line whatever the message holds, so scripts can read it with a single `read`.
  std::string line = detail::escape_invalid_utf8(message);  // names are bytes; the line is UTF-8
  std::replace(line.begin(), line.end(), '\n', ' ');
  std::cerr << "symshape: error: " << line << std::endl;
}

namespace {

// The document with every string (and key) UTF-8, as the messages are: \xNN for a stray byte.
nlohmann::ordered_json escaped_strings(const nlohmann::ordered_json& doc) {
  if (doc.is_string()) return detail::escape_invalid_utf8(doc.get_ref<const std::string&>());
  if (doc.is_array()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& item : doc) out.push_back(escaped_strings(item));
    return out;
  }
  if (doc.is_object()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& [key, value] : doc.items())
      out[detail::escape_invalid_utf8(key)] = escaped_strings(value);
    return out;
  }
  return doc;
}

}  // namespace

void print_json(std::ostream& os, const nlohmann::ordered_json& doc) {
  os << escaped_strings(doc).dump(2) << "\n";
}

nlohmann::ordered_json int_json(const Int& v) {
  std::optional<int64_t> small = to_int64(v);
  if (small) return *small;
  return to_string(v);
}

std::vector<std::string> graph_input_names(const Graph& graph) {
  std::vector<std::string> names;
  for (const Node& n : graph.nodes) {
    if (n.op == NodeOp::Placeholder) names.push_back(n.name);
  }
  return names;
}

void expect_dim_of(const Graph& graph, std::string_view flag, const std::string& name) {
  if (std::optional<std::string> problem =
          unknown_dim_problem(graph, std::string(flag) + " " + quote(name), name)) {
    throw UsageError(*problem);
  }
}

}  // namespace symshape::cli
