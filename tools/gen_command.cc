// `symshape gen llama|resnet [OPTIONS] [-o FILE]`: writes a generated graph
// (include/symshape/gen.h) in the JSON format, for benchmarks and for trying the tools on a model
// of any size.
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <optional>
#include <string>

#include "symshape/gen.h"
#include "tools/cli.h"

namespace symshape::cli {

namespace {

constexpr FlagSpec kFlags[] = {
    {"--layers", "L", "llama: decoder layers (default 1)"},
    {"--tp", "W", "llama: tensor-parallel ranks, with all_reduce collectives (default 1: none)"},
    {"--hidden", "N", "llama: model width (default 256)"},
    {"--heads", "N", "llama: attention heads (default 4)"},
    {"--ffn", "N", "llama: MLP width (default 688)"},
    {"--vocab", "N", "llama: vocabulary size (default 512)"},
    {"--blocks", "N", "resnet: basic blocks over four stages (default 2)"},
    {"--width", "N", "resnet: channels of the first stage (default 64)"},
    {"--classes", "N", "resnet: classifier outputs (default 1000)"},
    {"--output", "FILE", "write the graph to FILE instead of standard output; also -o"},
};

// The flag's last value as an integer in [lo, hi], or fallback when the flag was not given.
int64_t int_flag(const ParsedArgs& parsed, std::string_view flag, int64_t fallback, int64_t lo,
                 int64_t hi) {
  if (!parsed.has(flag)) return fallback;
  const std::string& text = parsed.all(flag).back();
  std::optional<Int> v = parse_int(text);
  std::optional<int64_t> n = v ? to_int64(*v) : std::nullopt;
  if (!n || *n < lo || *n > hi) {
    throw UsageError("bad value " + quote(text) + " for " + std::string(flag) +
                     ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "]");
  }
  return *n;
}

void reject_flags(const ParsedArgs& parsed, std::string_view model,
                  std::initializer_list<std::string_view> flags) {
  for (std::string_view f : flags) {
    if (parsed.has(f))
      throw UsageError(std::string(f) + " does not apply to " + std::string(model));
  }
}

}  // namespace

int run_gen(const Args& raw) {
  Args args;
  for (const std::string& a : raw) args.push_back(a == "-o" ? "--output" : a);
  ParsedArgs parsed = parse_flags(args, kFlags);
  if (parsed.help) {
    std::cout
        << "usage: symshape gen llama [--layers L] [--tp W] [-o FILE]\n"
           "       symshape gen resnet [--blocks N] [-o FILE]\n\n"
           "Writes a generated graph in the JSON graph format: a Llama-style decoder (RMSNorm,\n"
           "attention with RoPE through view_as_complex, SwiGLU MLP) over symbolic batch and\n"
           "seq, or a ResNet-style CNN over symbolic batch, h and w. The same options always\n"
           "give the same bytes.\n\n"
        << format_flags(kFlags);
    return kExitOk;
  }
  expect_positionals(parsed, 1, "MODEL (llama or resnet)");
  const std::string& model = parsed.positional[0];
  constexpr int64_t kMax = 1 << 20;
  Expected<std::string> text = Expected<std::string>::failure("");
  if (model == "llama") {
    reject_flags(parsed, model, {"--blocks", "--width", "--classes"});
    gen::LlamaOptions o;
    o.layers = int_flag(parsed, "--layers", o.layers, 1, 100000);
    o.tp = int_flag(parsed, "--tp", o.tp, 1, 1024);
    o.hidden = int_flag(parsed, "--hidden", o.hidden, 1, kMax);
    o.heads = int_flag(parsed, "--heads", o.heads, 1, kMax);
    o.ffn = int_flag(parsed, "--ffn", o.ffn, 1, kMax);
    o.vocab = int_flag(parsed, "--vocab", o.vocab, 1, kMax);
    text = gen::llama_graph(o);
  } else if (model == "resnet") {
    reject_flags(parsed, model, {"--layers", "--tp", "--hidden", "--heads", "--ffn", "--vocab"});
    gen::ResNetOptions o;
    o.blocks = int_flag(parsed, "--blocks", o.blocks, 1, 100000);
    o.width = int_flag(parsed, "--width", o.width, 1, 4096);
    o.classes = int_flag(parsed, "--classes", o.classes, 1, kMax);
    text = gen::resnet_graph(o);
  } else {
    throw UsageError("unknown model " + quote(model) + " (expected llama or resnet)");
  }
  if (!text) throw UsageError(text.error());
  if (!parsed.has("--output")) {
    std::cout << *text;
    return kExitOk;
  }
  const std::string& path = parsed.all("--output").back();
  std::ofstream out(path, std::ios::binary);
  if (out) out << *text;
  if (!out.good()) throw Error("cannot write " + quote(path));
  return kExitOk;
}

}  // namespace symshape::cli
