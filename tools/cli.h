// Shared pieces of the `symshape` command-line program: the subcommand table, flag parsing and
// error reporting. Subcommands stay thin: they parse their arguments, call the library, print.
#pragma once

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symshape/expr.h"
#include "symshape/graph_dims.h"
#include "symshape/passes.h"
#include "symshape/propagate.h"
#include "symshape/ranges.h"

namespace symshape::cli {

// Exit codes, the same for every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitShapeError = 1;  // reserved for `check`: the input's shapes are wrong
inline constexpr int kExitBadInput = 2;    // malformed arguments, expressions or files

// Bad input noticed by the CLI itself (an unknown flag, a malformed --range). main() prints it
// as `symshape: error: <message>` and exits with kExitBadInput, as it does for symshape::Error.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The arguments after the subcommand's name.
using Args = std::vector<std::string>;

// One row of the dispatcher's table in main.cc: `symshape <name> ARGS...`.
struct Subcommand {
  std::string_view name;
  std::string_view summary;      // one line, shown by `symshape --help`
  int (*run)(const Args& args);  // returns the exit code; may throw UsageError or Error
};

// Subcommand entry points (one file each in tools/).
int run_expr(const Args& args);          // expr_command.cc
int run_check(const Args& args);         // check_command.cc
int run_guards(const Args& args);        // guards_command.cc
int run_check_inputs(const Args& args);  // check_inputs_command.cc
int run_run(const Args& args);           // run_command.cc
int run_lower(const Args& args);         // lower_command.cc
int run_passes(const Args& args);        // lower_command.cc
int run_ops(const Args& args);           // ops_command.cc
int run_partition(const Args& args);     // partition_command.cc
int run_gen(const Args& args);           // gen_command.cc
int run_infer(const Args& args);         // infer_command.cc
int run_view(const Args& args);          // view_command.cc

// Writes the page of a lowering (`lower --view`): the graph as propagated, then after each of
// the passes, each run on the graph before it. Throws Error when a pass fails or the file
// cannot be written (view_command.cc).
void write_lowering_view(const Graph& graph, const std::vector<PassSpec>& specs,
                         const PassManagerOptions& options, const std::string& path,
                         const std::string& title);

// A flag a subcommand accepts. A flag with a metavar takes a value and may be repeated.
struct FlagSpec {
  std::string_view name;     // "--range"
  std::string_view metavar;  // "NAME=LO..HI"; empty for a switch such as "--verbose"
  std::string_view help;     // one line
};

// What parse_flags found: positionals in order, each flag's values in order.
struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>, std::less<>> values;  // switches: one "" each
  bool help = false;                                                    // -h or --help

  // The values given for a flag (empty when it was not given).
  const std::vector<std::string>& all(std::string_view flag) const;
  bool has(std::string_view flag) const { return values.find(flag) != values.end(); }
};

// Splits args into positionals and the given flags. `--flag VALUE` and `--flag=VALUE` both work;
// `--` ends the flags. Only words starting with `--` (and `-h`) are flags, so `-7//2` and
// `-x + 1` are positional. Throws UsageError on an unknown flag or a missing value.
ParsedArgs parse_flags(const Args& args, std::span<const FlagSpec> flags);

// The flags as aligned help lines ("  --range NAME=LO..HI  the symbol's range"), plus -h.
std::string format_flags(std::span<const FlagSpec> flags);

// Throws UsageError unless exactly `count` positionals were given; `what` names them for the
// message ("EXPR").
void expect_positionals(const ParsedArgs& parsed, size_t count, std::string_view what);

// `NAME=LO..HI` (LO an integer or -inf, HI an integer or inf) as a symbol name and a non-empty
// range. Throws UsageError naming the flag text when it is malformed.
std::pair<std::string, ValueRange> parse_range_spec(std::string_view spec);

// `NAME=INT` (any size, may be negative) as a symbol name and its value. Throws UsageError.
std::pair<std::string, Int> parse_binding(std::string_view spec);

// `NAME=N,N,...` (integers of any size; `NAME=` is the empty list) as a name and its values:
// the sizes or strides of an input. Throws UsageError naming the spec when it is malformed.
std::pair<std::string, std::vector<Int>> parse_int_list_spec(std::string_view spec);

// The text in single quotes, for messages: 'x=a..b'.
std::string quote(std::string_view text);

// Prints `symshape: error: <message>` on one line to stderr.
void print_error(std::string_view message);

// Prints a `--json` document, indented by 2 and followed by a newline. A byte that is not UTF-8
// (in a name or an expression) is spelled `\xNN` (detail::escape_invalid_utf8), as in the
// error messages and `guards --lang json`, so no text can make the printer fail; quotes and
// control characters are escaped by the JSON writer.
void print_json(std::ostream& os, const nlohmann::ordered_json& doc);
// An integer as a JSON number when it fits in int64, else as its decimal string.
nlohmann::ordered_json int_json(const Int& v);

// did_you_mean and graph_dim_names: symshape/graph_dims.h.
// The graph's inputs (placeholders), in order.
std::vector<std::string> graph_input_names(const Graph& graph);
// Throws UsageError, with a suggestion, unless name is one of the graph's dims: `flag` (--dim)
// names a dim the graph does not have.
void expect_dim_of(const Graph& graph, std::string_view flag, const std::string& name);

// The text of standard input (for an argument `-`), without its trailing newlines.
std::string read_stdin();
// Everything left in the stream buffer, read in blocks (an istreambuf_iterator reads one
// character per call, which for standard input is a getc and often an ungetc).
std::string read_all(std::streambuf& in);
// Whether path names an ONNX model (by its .onnx suffix).
bool is_onnx_path(const std::string& path);
// The graph in the file at path (JSON, or an ONNX model for a .onnx path), or on standard input
// when path is `-`. Throws Error naming the file (`<stdin>`) and the problem.
Graph read_graph_arg(const std::string& path);

// A graph read from a file and propagated under its own ShapeEnv (graph_loading.cc).
struct LoadedGraph {
  Graph graph;
  std::unique_ptr<ShapeEnv> env;
  Propagation result;
  // CPU seconds spent reading the file (and parsing it into the Graph) and propagating.
  double read_seconds = 0;
  double propagate_seconds = 0;
};
// The CPU time this process has used so far, in seconds (for `--time`).
double cpu_seconds();
// Reads the graph, applies `--dim NAME=MIN..MAX` specs over its "dims" (a dim keeps the graph's
// hint when the hint lies in the new range), and propagates. Throws Error when the file cannot
// be read or parsed, UsageError for a malformed spec.
LoadedGraph load_and_propagate(const std::string& path, const std::vector<std::string>& dim_specs,
                               ShapeEnvOptions env_options = {});
// The graph's dims with `--dim NAME=MIN..MAX` specs applied (a dim keeps the graph's hint when
// it lies in the new range). Throws UsageError for a malformed spec.
PropagateOptions dim_overrides(const Graph& graph, const std::vector<std::string>& dim_specs);
// The exit code for a propagation's status: 0, 1 (shape error) or 2 (bad input).
int exit_code(Propagation::Status status);

}  // namespace symshape::cli
