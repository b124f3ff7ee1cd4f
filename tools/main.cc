// The `symshape` command-line program: picks a subcommand from the table and turns every error
// into one line on stderr and an exit code, so no input can crash it.
#include <algorithm>
#include <exception>
#include <iostream>
#include <string>

#include "symshape/expr.h"
#include "tools/cli.h"

namespace symshape::cli {

namespace {

// Add a subcommand here (and its entry point to cli.h); `symshape --help` lists them in order.
constexpr Subcommand kSubcommands[] = {
    {"check", "propagate a graph's shapes; print shapes, guards and errors", run_check},
    {"expr", "simplify, bound, prove and evaluate integer expressions", run_expr},
    {"guards", "print the guards under which a graph's shapes stay valid", run_guards},
    {"check-inputs", "check concrete input sizes against a graph's guards", run_check_inputs},
    {"run", "run a graph on small concrete tensors; print outputs and checksums", run_run},
    {"lower", "rewrite a graph with lowering passes, keeping its symbolic sizes", run_lower},
    {"passes", "list the lowering passes, their options and the pipelines", run_passes},
    {"ops", "list every op with a shape rule, and whether it has a kernel", run_ops},
    {"partition", "split a graph into backend and fallback partitions", run_partition},
    {"gen", "write a generated Llama-style or ResNet-style graph of any size", run_gen},
    {"infer", "write an ONNX model's inferred shapes into it (value_info, outputs)", run_infer},
    {"view", "write one HTML page of a graph, its shapes, guards and symbols", run_view},
};

void print_usage(std::ostream& out) {
  out << "usage: symshape COMMAND [ARGS]...\n"
         "\n"
         "Symbolic-shape reasoning from the shell.\n"
         "\n"
         "commands:\n";
  size_t width = 0;
  for (const Subcommand& c : kSubcommands) width = std::max(width, c.name.size());
  for (const Subcommand& c : kSubcommands) {
    out << "  " << c.name << std::string(width - c.name.size() + 2, ' ') << c.summary << "\n";
  }
  out << "\n"
         "Run `symshape COMMAND --help` for a command's usage, `symshape --version` for the\n"
         "version.\n"
         "Exit codes: 0 ok, 1 the input is wrong (a shape error, a violated declaration,\n"
         "rejected inputs, a run-time error), 2 bad input.\n";
}

const Subcommand* find_subcommand(std::string_view name) {
  for (const Subcommand& c : kSubcommands) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

int dispatch(const Args& args) {
  if (args.empty()) {
    print_usage(std::cerr);
    return kExitBadInput;
  }
  const std::string& first = args[0];
  if (first == "-h" || first == "--help") {
    print_usage(std::cout);
    return kExitOk;
  }
  if (first == "--version") {
    std::cout << "symshape " << SYMSHAPE_VERSION << "\n";
    return kExitOk;
  }
  // `symshape help [COMMAND]`, as git and cargo accept it.
  if (first == "help") {
    if (args.size() == 1) {
      print_usage(std::cout);
      return kExitOk;
    }
    const Subcommand* c = find_subcommand(args[1]);
    if (c == nullptr)
      throw UsageError("unknown command " + quote(args[1]) + " (see symshape --help)");
    return c->run({"--help"});
  }
  const Subcommand* c = find_subcommand(first);
  if (c == nullptr) {
    std::string what = first.starts_with("-") ? "unknown flag " : "unknown command ";
    throw UsageError(what + quote(first) + " (see symshape --help)");
  }
  return c->run(Args(args.begin() + 1, args.end()));
}

}  // namespace

}  // namespace symshape::cli

int main(int argc, char** argv) {
  using namespace symshape::cli;
  try {
    return dispatch(Args(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    print_error(e.what());
  } catch (const symshape::Error& e) {
    print_error(e.what());
  } catch (const std::exception& e) {
    // Last resort: CLN and GiNaC throw standard exceptions on input the engine did not screen.
    print_error(e.what());
  } catch (...) {
    print_error("unexpected internal error");
  }
  return kExitBadInput;
}
