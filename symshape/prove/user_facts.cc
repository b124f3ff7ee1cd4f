#include <set>

#include "symshape/prove.h"
#include "symshape/user_facts.h"

namespace symshape {

namespace {

std::string single_quoted(const std::string& text) { return "'" + text + "'"; }

std::string end_text(const std::optional<Int>& v, const char* infinite) {
  return v ? to_string(*v) : std::string(infinite);
}

// The spelling's any-integer hint with NAME replaced by `name`.
std::string any_integer_for(const FactSpelling& spelling, const std::string& name) {
  std::string out = spelling.any_integer;
  const size_t at = out.find("NAME");
  if (at != std::string::npos) out.replace(at, 4, name);
  return out;
}

// True when the prover shows that the negation of one of the facts holds wherever all of them
// do: then no point satisfies them all, so the facts contradict each other. Sound because
// prove() answers True only when it is so.
bool jointly_contradictory(const Facts& facts, const std::vector<Cond>& conds) {
  for (const Cond& c : conds) {
    if (prove(!c, facts) == Truth::True) return true;
  }
  return false;
}

}  // namespace

UserFacts::UserFacts(FactSpelling spelling, ValueRange default_range)
    : spelling_(std::move(spelling)), default_range_(default_range), facts_(default_range) {}

void UserFacts::set_range(const std::string& symbol, const std::optional<Int>& lo,
                          const std::optional<Int>& hi) {
  ValueRange range(lo, hi);
  if (range.is_empty()) {
    throw ContradictoryFacts("contradictory facts: the " + spelling_.range + " [" +
                             end_text(lo, "-inf") + ", " + end_text(hi, "inf") + "] of " + symbol +
                             " is empty (its low end is greater than its high end)");
  }
  ranges_[symbol] = range;
  // Ranges come before the assumptions, which may narrow them: rebuild when some are in.
  if (conds_.empty()) {
    facts_.set_range(symbol, range);
  } else {
    facts_ = build(default_range_, true);
    for (const auto& [name, r] : facts_.ranges()) {
      if (!r.is_empty()) continue;
      throw ContradictoryFacts("contradictory facts: no value of " + name + " satisfies " +
                               spelling_.assume + " " + assumed_list() + " with its " +
                               spelling_.range);
    }
    checked_ = false;
  }
}

void UserFacts::assume(const Cond& c, std::string text) {
  conds_.push_back(c);
  texts_.push_back(single_quoted(text));
  facts_.assume(c);
  checked_ = false;
  for (const auto& [name, range] : facts_.ranges()) {
    if (!range.is_empty()) continue;
    const bool ranged = ranges_.count(name) > 0;
    throw ContradictoryFacts("contradictory facts: no value of " + name + " satisfies " +
                             spelling_.assume + " " + assumed_list() +
                             (ranged ? " with its " + spelling_.range
                                     : " in its default range " + default_range_.str() + " (give " +
                                           any_integer_for(spelling_, name) + " for any integer)"));
  }
}

void UserFacts::check() {
  if (checked_) return;
  if (!jointly_contradictory(facts_, conds_)) {
    checked_ = true;
    return;
  }
  std::set<std::string> symbols;
  for (const Cond& c : conds_) {
    for (const std::string& name : c.free_symbols()) symbols.insert(name);
  }
  std::string names, unranged;
  bool any_ranged = false;
  for (const std::string& name : symbols) {
    names += (names.empty() ? "" : ", ") + name;
    if (ranges_.count(name)) {
      any_ranged = true;
    } else {
      unranged += (unranged.empty() ? "" : ", ") + name;
    }
  }
  std::string why = symbols.empty() ? "contradictory facts: " + spelling_.assume + " " +
                                          assumed_list() + " never holds"
                                    : "contradictory facts: no values of " + names + " satisfy " +
                                          spelling_.assume + " " + assumed_list();
  // Say which ranges take part: none when the facts contradict each other over all integers.
  const ValueRange any_integer(std::nullopt, std::nullopt);
  if (!jointly_contradictory(build(any_integer, false), conds_)) {
    if (!unranged.empty() && !jointly_contradictory(build(any_integer, true), conds_)) {
      why += " with " + unranged + " in the default range " + default_range_.str() + " (give " +
             any_integer_for(spelling_, "NAME") + " for any integer)";
    } else if (any_ranged) {
      why += " with their " + spelling_.range;
    }
  }
  throw ContradictoryFacts(why);
}

Facts UserFacts::build(const ValueRange& fallback, bool with_ranges) const {
  Facts facts(fallback);
  if (with_ranges) {
    for (const auto& [name, range] : ranges_) facts.set_range(name, range);
  }
  for (const Cond& c : conds_) facts.assume(c);
  return facts;
}

std::string UserFacts::assumed_list() const {
  std::string list;
  for (size_t i = 0; i < texts_.size(); ++i) list += (i ? ", " : "") + texts_[i];
  return list;
}

}  // namespace symshape
