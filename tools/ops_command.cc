// `symshape ops [--json] [--onnx]`: every op with a shape rule, and whether the interpreter has
// a kernel for it (so users and backends can see coverage); with --onnx, the ONNX operators.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <set>

#include "symshape/interp.h"
#include "symshape/onnx.h"
#include "symshape/ops.h"
#include "tools/cli.h"

namespace symshape::cli {

namespace {

constexpr FlagSpec kFlags[] = {
    {"--json", "", "print one JSON document instead of text"},
    {"--onnx", "", "list the ONNX operators (onnx.<OpType>) that .onnx models may use instead"},
};

// The ONNX operators: the targets onnx::registry() adds to the standard ones.
std::vector<std::string> onnx_targets() {
  const std::vector<std::string> standard = OpRegistry::instance().targets();
  const std::set<std::string> aten(standard.begin(), standard.end());
  std::vector<std::string> out;
  for (const std::string& t : onnx::registry().targets())
    if (!aten.count(t)) out.push_back(t);
  return out;
}

}  // namespace

int run_ops(const Args& args) {
  ParsedArgs parsed = parse_flags(args, kFlags);
  if (parsed.help) {
    std::cout << "usage: symshape ops [--json] [--onnx]\n\n"
                 "Lists every op with a shape rule (its target, as a graph names it) and whether\n"
                 "the reference interpreter has a kernel for it (`symshape run`). An in-place\n"
                 "form (aten.add_) uses its functional op's rule and kernel and is not listed.\n"
                 "With --onnx: the ONNX operators a .onnx model may use (docs/onnx.md).\n\n"
              << format_flags(kFlags);
    return kExitOk;
  }
  expect_positionals(parsed, 0, "nothing");
  const std::vector<std::string> rules =
      parsed.has("--onnx") ? onnx_targets() : OpRegistry::instance().targets();
  const interp::KernelRegistry& kernels = interp::KernelRegistry::instance();
  size_t with_kernel = 0;
  for (const std::string& op : rules) with_kernel += kernels.find(op) != nullptr;
  if (parsed.has("--json")) {
    nlohmann::ordered_json doc;
    doc["ops"] = nlohmann::ordered_json::array();
    for (const std::string& op : rules) {
      nlohmann::ordered_json e;
      e["name"] = op;
      e["rule"] = true;
      e["kernel"] = kernels.find(op) != nullptr;
      doc["ops"].push_back(std::move(e));
    }
    doc["count"] = rules.size();
    doc["with_kernel"] = with_kernel;
    print_json(std::cout, doc);
    return kExitOk;
  }
  size_t width = 0;
  for (const std::string& op : rules) width = std::max(width, op.size());
  for (const std::string& op : rules) {
    std::cout << std::left << std::setw(static_cast<int>(width)) << op << "  rule"
              << (kernels.find(op) != nullptr ? "  kernel" : "") << "\n";
  }
  std::cout << rules.size() << " ops with a shape rule, " << with_kernel << " with a kernel\n";
  return kExitOk;
}

}  // namespace symshape::cli
