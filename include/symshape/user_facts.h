// Facts as a user states them (ranges by name, conditions with their text), refused when they
// contradict each other: facts no point satisfies make every answer vacuous (`prove` says true,
// `bounds` an empty range), so the error names them instead. The CLI's `expr --range/--assume`
// and the Python API (prove, bounds, simplify, Facts) build their facts here.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "symshape/expr.h"
#include "symshape/facts.h"
#include "symshape/ranges.h"

namespace symshape {

// Facts that no point satisfies; the message names them as the user gave them.
class ContradictoryFacts : public Error {
 public:
  using Error::Error;
};

// How the messages name the user's facts: the CLI's flags (the default) or Python's arguments.
struct FactSpelling {
  std::string assume = "--assume";  // precedes the list of assumed conditions
  std::string range = "--range";    // "... with its --range"
  // How to give NAME every integer ("give ... for any integer"); NAME stands for the symbol.
  std::string any_integer = "--range NAME=-inf..inf";
};

// Ranges first, then the assumptions in the order given (an assumption may narrow a range).
class UserFacts {
 public:
  explicit UserFacts(FactSpelling spelling = {},
                     ValueRange default_range = ValueRange::at_least(Int(1)));

  // Gives the symbol the range [lo, hi] (nullopt: infinite), replacing an earlier one.
  // ContradictoryFacts when lo > hi.
  void set_range(const std::string& symbol, const std::optional<Int>& lo,
                 const std::optional<Int>& hi);
  // Assumes c; `text` is how the user wrote it (the messages quote it). ContradictoryFacts when
  // the facts so far leave a symbol no value (cheap: the ranges the assumptions narrow).
  void assume(const Cond& c, std::string text);
  // ContradictoryFacts when the prover shows the facts contradict each other only together
  // (`x < y`, `y < x`): one proof per assumption, so call it once all the facts are in (sound;
  // incomplete, as the prover may not see every contradiction). A no-op until the facts change.
  void check();

  const Facts& facts() const { return facts_; }
  const ValueRange& default_range() const { return default_range_; }

 private:
  Facts build(const ValueRange& fallback, bool with_ranges) const;
  std::string assumed_list() const;

  FactSpelling spelling_;
  ValueRange default_range_;
  std::map<std::string, ValueRange> ranges_;
  std::vector<Cond> conds_;
  std::vector<std::string> texts_;
  Facts facts_;
  bool checked_ = true;
};

}  // namespace symshape
