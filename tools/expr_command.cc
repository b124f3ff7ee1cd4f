// `symshape expr`: simplify, bound, prove and evaluate one integer expression or condition.
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/prove.h"
#include "symshape/prove/limits.h"
#include "symshape/ranges.h"
#include "symshape/simplify.h"
#include "symshape/user_facts.h"
#include "tools/cli.h"

namespace symshape::cli {

namespace {

constexpr FlagSpec kFactFlags[] = {
    {"--range", "NAME=LO..HI",
     "NAME ranges over [LO, HI] (LO may be -inf, HI inf); default 1..inf"},
    {"--assume", "COND", "assume COND holds, e.g. \"a < b\" (repeatable)"},
    {"--json", "", "print one JSON document instead of the line"},
    {"--batch", "FILE", "one input per line of FILE (`-`: stdin), one answer per line"},
};

constexpr FlagSpec kEvalFlags[] = {
    {"--json", "", "print one JSON document instead of the line"},
    {"--batch", "FILE", "one input per line of FILE (`-`: stdin), one answer per line"},
};

// What an action found: the line the text output prints, and for --json the same answer in
// typed keys (bounds: lo and hi; eval: value).
struct Answer {
  std::string text;
  nlohmann::ordered_json fields = nlohmann::ordered_json::object();
};

// What --batch builds once for all its lines: the facts of --range and --assume, and one
// Simplification under them (a sub-expression met on an earlier line is not simplified again).
struct Given {
  explicit Given(Facts f) : facts(std::move(f)), simplification(facts) {}
  Facts facts;
  Simplification simplification;
};

struct Action {
  std::string_view name;
  std::string_view usage;    // the arguments after `symshape expr <name>`
  std::string_view summary;  // one line for the help
  bool takes_facts;          // accepts --range and --assume
  // Throws UsageError or Error on bad input. `input` is the first positional (standard input's
  // text for `-`). `given`: the facts of --range and --assume when already built (--batch
  // builds them once), else nullptr.
  Answer (*run)(const ParsedArgs& args, const std::string& input, Given* given);
};

Answer run_simplify(const ParsedArgs& args, const std::string& input, Given* given);
Answer run_bounds(const ParsedArgs& args, const std::string& input, Given* given);
Answer run_prove(const ParsedArgs& args, const std::string& input, Given* given);
Answer run_eval(const ParsedArgs& args, const std::string& input, Given* given);

constexpr Action kActions[] = {
    {"simplify", "EXPR [--range NAME=LO..HI]... [--assume COND]... [--json]",
     "print EXPR in simplest form under the ranges and assumptions", true, run_simplify},
    {"bounds", "EXPR [--range NAME=LO..HI]... [--assume COND]... [--json]",
     "print the range [LO, HI] of EXPR's values (inf / -inf when unbounded)", true, run_bounds},
    {"prove", "COND [--range NAME=LO..HI]... [--assume COND]... [--json]",
     "print true, false or unknown: does COND hold at every point?", true, run_prove},
    {"eval", "EXPR|COND [NAME=INT]... [--json]",
     "print the value at one point (true / false for a condition)", false, run_eval},
};

void print_usage(std::ostream& out) {
  size_t width = 0;
  for (const Action& a : kActions) width = std::max(width, a.name.size());
  std::string_view lead = "usage: ";
  for (const Action& a : kActions) {
    out << lead << "symshape expr " << a.name << std::string(width - a.name.size() + 1, ' ')
        << a.usage << "\n";
    lead = "       ";
  }
  out << "\n"
         "Integer expressions with Python semantics: // floors, % takes the sign of the divisor,\n"
         "plus ceildiv(a, b), max(a, b, ...), min(a, b, ...) and x**n. Conditions use\n"
         "== != < <= > >= and, or, not. Every symbol ranges over [1, inf] unless --range says\n"
         "otherwise. Quote each expression; put `--` before one that starts with `--` or\n"
         "is `-h`.\n"
         "\n"
         "commands:\n";
  for (const Action& a : kActions) {
    out << "  " << a.name << std::string(width - a.name.size() + 2, ' ') << a.summary << "\n";
  }
  out << "\noptions (simplify, bounds, prove; eval takes only --json and --batch):\n"
      << format_flags(kFactFlags);
  out << "\nWith --json, one JSON document: the command, the input, the status (ok or\n"
         "input_error), the result as the line prints it (bounds adds lo and hi, eval adds\n"
         "value) and the error or null; errors other than a flag's go in the document.\n";
  out << "\nWith --batch FILE, each line of FILE (`-`: standard input) is one input, answered\n"
         "on one line of output (with --json, one compact document per line); for eval, a line\n"
         "may end with a tab and NAME=INT bindings. A failing line prints `error: MESSAGE`\n"
         "in its place and `line N` on stderr; the exit code is 0 only when every line\n"
         "succeeded.\n";
  out << "\nexamples:\n"
         "  symshape expr simplify \"(4*x + 3)//4\" --range x=0..100         # x\n"
         "  symshape expr bounds \"(n*320 + 255) % 256\"                     # [63, 255]\n"
         "  symshape expr prove \"a < c\" --assume \"a < b\" --assume \"b < c\"  # true\n"
         "  symshape expr eval \"x % y\" x=-7 y=2                            # 1\n";
}

const Action* find_action(std::string_view name) {
  for (const Action& a : kActions) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

Expr parse_expr_text(const std::string& text) {
  Expected<Expr> e = parse_expr(text);
  if (!e) throw UsageError(parse_failure("expression", text, e.error()));
  return *e;
}

Cond parse_cond_text(const std::string& text, std::string_view what) {
  Expected<Cond> c = parse_cond(text);
  if (!c) throw UsageError(parse_failure(what, text, c.error()));
  return *c;
}

// `-` stands for standard input.
Cond parse_cond_arg(const std::string& arg, std::string_view what) {
  return parse_cond_text(arg == "-" ? read_stdin() : arg, what);
}

// Symbols are dimensions ([1, inf]) unless --range says otherwise; --assume adds facts (and
// may narrow ranges further, so it is applied after every --range). Facts that contradict each
// other are refused (ContradictoryFacts names them).
Facts facts_from(const ParsedArgs& args) {
  UserFacts facts;
  std::set<std::string> ranged;
  for (const std::string& spec : args.all("--range")) {
    auto [name, range] = parse_range_spec(spec);
    if (!ranged.insert(name).second) throw UsageError("--range given twice for " + quote(name));
    facts.set_range(name, range.lo(), range.hi());
  }
  for (const std::string& text : args.all("--assume")) {
    facts.assume(parse_cond_arg(text, "--assume"), text);
  }
  facts.check();
  return facts.facts();
}

// The given facts, or those of args built into `storage`.
const Facts& facts_or_build(const ParsedArgs& args, const Given* given,
                            std::optional<Facts>& storage) {
  if (given != nullptr) return given->facts;
  storage.emplace(facts_from(args));
  return *storage;
}

Answer run_simplify(const ParsedArgs& args, const std::string& input, Given* given) {
  expect_positionals(args, 1, "EXPR (usage: symshape expr simplify EXPR)");
  Expr e = parse_expr_text(input);
  if (given != nullptr) return {given->simplification.simplify(e).str()};
  std::optional<Facts> storage;
  const Facts& facts = facts_or_build(args, given, storage);
  return {simplify(e, facts).str()};
}

// An end of a range for --json: an integer (a string beyond int64), null when unbounded.
nlohmann::ordered_json end_json(const std::optional<Int>& v) {
  return v ? int_json(*v) : nlohmann::ordered_json(nullptr);
}

Answer run_bounds(const ParsedArgs& args, const std::string& input, Given* given) {
  expect_positionals(args, 1, "EXPR (usage: symshape expr bounds EXPR)");
  Expr e = parse_expr_text(input);
  std::optional<Facts> storage;
  const Facts& facts = facts_or_build(args, given, storage);
  // Simplifying first lets range analysis see through cancellations such as (4*x + 3)//4.
  ValueRange r =
      bound(given != nullptr ? given->simplification.simplify(e) : simplify(e, facts), facts);
  Answer a{r.str()};
  a.fields["lo"] = end_json(r.lo());
  a.fields["hi"] = end_json(r.hi());
  return a;
}

Answer run_prove(const ParsedArgs& args, const std::string& input, Given* given) {
  expect_positionals(args, 1, "COND (usage: symshape expr prove COND)");
  Cond c = parse_cond_text(input, "condition");
  std::optional<Facts> storage;
  const Facts& facts = facts_or_build(args, given, storage);
  detail::reset_prove_limit();
  const Truth t = prove(c, facts);
  Answer a{std::string(to_string(t))};
  if (t == Truth::Unknown && detail::prove_limit_hit()) {
    // Not a silent cap: the answer says that facts were left out.
    a.fields["note"] = "the prover used only the first " +
                       std::to_string(detail::kMaxProveAssumptions) +
                       " facts connected to the condition (its limit); the rest may decide it";
  }
  return a;
}

Answer run_eval(const ParsedArgs& args, const std::string& input, Given* /*given*/) {
  if (args.positional.empty())
    throw UsageError("missing EXPR (usage: symshape expr eval EXPR NAME=INT...)");
  const std::string& text = input;
  Bindings values;
  for (size_t i = 1; i < args.positional.size(); ++i) {
    auto [name, value] = parse_binding(args.positional[i]);
    if (!values.emplace(name, value).second) {
      throw UsageError("symbol " + quote(name) + " is given twice");
    }
  }

  // An integer expression, else a condition; a text that is neither reports the expression
  // parser's error (both parsers stop at the same place on a syntax error).
  Expected<Expr> e = parse_expr(text);
  std::optional<Cond> c;
  if (!e) {
    Expected<Cond> parsed = parse_cond(text);
    if (!parsed) throw UsageError(parse_failure("expression", text, e.error()));
    c = *parsed;
  }

  std::vector<std::string> unbound;
  for (const std::string& name : e ? e->free_symbols() : c->free_symbols()) {
    if (values.find(name) == values.end()) unbound.push_back(name);
  }
  if (!unbound.empty()) {
    std::string names;
    for (const std::string& name : unbound) names += (names.empty() ? "" : ", ") + quote(name);
    throw UsageError("unbound symbol" + std::string(unbound.size() > 1 ? "s " : " ") + names +
                     " in " + quote(text) + " (give a value as NAME=INT)");
  }

  try {
    Answer a;
    if (e) {
      Int v = evaluate(*e, values);
      a.text = to_string(v);
      a.fields["value"] = int_json(v);
    } else {
      bool v = evaluate(*c, values);
      a.text = v ? "true" : "false";
      a.fields["value"] = v;
    }
    return a;
  } catch (const Error& err) {
    throw UsageError("cannot evaluate " + quote(text) + ": " + err.what());
  }
}

// Appends one answer's line (without its newline) to out: the text (with its note), or with
// --json a one-line JSON document.
void append_answer_line(std::string& out, const Action& action, const std::string& input,
                        const Answer* answer, const std::string& error, bool json) {
  if (!json) {
    if (answer == nullptr) {
      out += "error: ";
      out += error;
      return;
    }
    out += answer->text;
    if (answer->fields.contains("note")) {
      out += " (";
      out += answer->fields["note"].get<std::string>();
      out += ')';
    }
    return;
  }
  nlohmann::ordered_json doc;
  doc["command"] = std::string(action.name);
  doc["input"] = input;
  doc["status"] = answer ? "ok" : "input_error";
  doc["result"] = answer ? nlohmann::ordered_json(answer->text) : nlohmann::ordered_json(nullptr);
  if (answer) {
    for (const auto& [key, value] : answer->fields.items()) doc[key] = value;
  }
  doc["error"] = answer ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(error);
  out += doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// The batch's Simplification, left to the process's end. The command exits right after the batch,
// and freeing what the Simplification kept (every sub-expression of every line, node by node)
// is work for nothing: the operating system takes the memory back whole, as compilers leave
// their syntax trees at exit. A static pointer keeps it reachable (no leak for
// LeakSanitizer); a later batch in the same process frees the one before.
void keep_until_exit(std::unique_ptr<Given> given) {
  static Given* kept = nullptr;
  delete std::exchange(kept, given.release());
}

// `--batch FILE`: every line of FILE is one input (for eval, the expression, then optionally a
// tab and its NAME=INT bindings separated by spaces, added to those on the command line). One
// line of output per line of input, in order; a line that fails prints `error: MESSAGE` there
// and `symshape: error: line N: MESSAGE` on stderr. The facts are built once for all lines.
// Exit 0 only when every line succeeded.
int run_batch(const Action& action, const ParsedArgs& parsed) {
  const std::string& path = parsed.all("--batch").back();
  const bool is_eval = !action.takes_facts;
  if (!is_eval) {
    expect_positionals(parsed, 0, "nothing besides --batch (the inputs are FILE's lines)");
  } else {
    for (const std::string& binding : parsed.positional) parse_binding(binding);
  }
  std::string text;
  if (path == "-") {
    text = read_all(*std::cin.rdbuf());
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UsageError("cannot read --batch file " + quote(path));
    text = read_all(*in.rdbuf());
  }
  std::unique_ptr<Given> given;
  if (action.takes_facts) given = std::make_unique<Given>(facts_from(parsed));
  const bool json = parsed.has("--json");
  ParsedArgs line_args = parsed;
  std::string out;
  size_t failures = 0, line_no = 0, pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // The input is the first positional, assigned in place (its buffer is reused line to line).
    line_args.positional.resize(1);
    if (!is_eval) {
      line_args.positional[0].assign(line);
    } else {
      const size_t tab = line.find('\t');
      line_args.positional[0].assign(line.substr(0, tab));
      line_args.positional.insert(line_args.positional.end(), parsed.positional.begin(),
                                  parsed.positional.end());
      for (size_t at = tab; at != std::string_view::npos;) {
        const size_t from = at + 1;
        at = line.find_first_of(" \t", from);
        std::string_view word = line.substr(from, at == std::string_view::npos ? at : at - from);
        if (!word.empty()) line_args.positional.emplace_back(word);
      }
    }
    const std::string& input = line_args.positional[0];
    std::optional<Answer> answer;
    std::string error;
    try {
      answer = action.run(line_args, input, given.get());
    } catch (const UsageError& e) {
      error = e.what();
    } catch (const Error& e) {
      error = e.what();
    }
    if (!answer) {
      ++failures;
      print_error("line " + std::to_string(line_no) + ": " + error);
    }
    append_answer_line(out, action, input, answer ? &*answer : nullptr, error, json);
    out += '\n';
  }
  std::cout << out;
  keep_until_exit(std::move(given));
  return failures == 0 ? kExitOk : kExitBadInput;
}

}  // namespace

int run_expr(const Args& args) {
  if (args.empty()) {
    print_usage(std::cerr);
    return kExitBadInput;
  }
  if (args[0] == "-h" || args[0] == "--help") {
    print_usage(std::cout);
    return kExitOk;
  }
  const Action* action = find_action(args[0]);
  if (action == nullptr) {
    throw UsageError("unknown expr command " + quote(args[0]) +
                     " (expected simplify, bounds, prove or eval; see symshape expr --help)");
  }
  std::span<const FlagSpec> flags = kEvalFlags;
  if (action->takes_facts) flags = kFactFlags;
  ParsedArgs parsed = parse_flags(Args(args.begin() + 1, args.end()), flags);
  if (parsed.help) {
    print_usage(std::cout);
    return kExitOk;
  }
  if (parsed.has("--batch")) return run_batch(*action, parsed);
  // `-` stands for standard input, read once.
  std::optional<std::string> input;
  if (!parsed.positional.empty()) {
    input = parsed.positional[0] == "-" ? read_stdin() : parsed.positional[0];
  }
  if (!parsed.has("--json")) {
    const Answer answer = action->run(parsed, input.value_or(""), nullptr);
    std::cout << answer.text;
    if (answer.fields.contains("note"))
      std::cout << " (" << answer.fields["note"].get<std::string>() << ")";
    std::cout << "\n";
    return kExitOk;
  }
  // As `check --json`: the document holds the error, and nothing goes to stderr. Only a flag
  // parse_flags refused (above) has no document.
  nlohmann::ordered_json doc;
  doc["command"] = std::string(action->name);
  doc["input"] = input ? nlohmann::ordered_json(*input) : nlohmann::ordered_json(nullptr);
  std::optional<Answer> answer;
  std::string error;
  try {
    answer = action->run(parsed, input.value_or(""), nullptr);
  } catch (const UsageError& e) {
    error = e.what();
  } catch (const Error& e) {
    error = e.what();
  }
  doc["status"] = answer ? "ok" : "input_error";
  doc["result"] = answer ? nlohmann::ordered_json(answer->text) : nlohmann::ordered_json(nullptr);
  if (answer) {
    for (const auto& [key, value] : answer->fields.items()) doc[key] = value;
  }
  doc["error"] = answer ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(error);
  print_json(std::cout, doc);
  return answer ? kExitOk : kExitBadInput;
}

}  // namespace symshape::cli
