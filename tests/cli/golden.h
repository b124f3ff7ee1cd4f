// Golden files for the end-to-end CLI tests: tests/golden/<name> holds the expected stdout.
// SYMSHAPE_UPDATE_GOLDEN=1 rewrites them from the current output instead of comparing; review
// every changed file before keeping it.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_runner.h"

namespace symshape::cli_test {

inline const std::filesystem::path& source_dir() {
  static const std::filesystem::path dir = SYMSHAPE_SOURCE_DIR;
  return dir;
}

inline bool update_mode() {
  const char* v = std::getenv("SYMSHAPE_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Compares `actual` with tests/golden/<golden> (or rewrites the file in update mode).
inline void expect_golden(const std::string& golden, const std::string& actual) {
  const std::filesystem::path path = source_dir() / "tests/golden" / golden;
  if (update_mode()) {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path))
      << path << " is missing; run with SYMSHAPE_UPDATE_GOLDEN=1 to create it, then review it";
  EXPECT_EQ(actual, read_text(path))
      << "stdout differs from " << path << " (SYMSHAPE_UPDATE_GOLDEN=1 rewrites it)";
}

// Runs `symshape ARGS...` from the repository root, so that graphs are named as a user at the
// root names them and messages holding a path are the same on every machine.
inline CliResult run_in_root(const std::vector<std::string>& args) {
  static const bool in_root = [] {
    std::filesystem::current_path(source_dir());
    return true;
  }();
  (void)in_root;
  return run_cli(args);
}

// Runs `symshape lower ARGS...` from the repository root.
inline CliResult run_lower(std::vector<std::string> args) {
  args.insert(args.begin(), "lower");
  return run_in_root(args);
}

// The examples in docs/cli.md's section `## \`symshape COMMAND\``: each line `$ symshape
// COMMAND ARGS...` inside a code block, with the lines after it (to the next command or the
// block's end) as the expected stdout followed by stderr. Returns (arguments after the
// command, expected text) pairs.
inline std::vector<std::pair<std::vector<std::string>, std::string>> doc_examples(
    const std::string& command) {
  const std::string doc = read_text(source_dir() / "docs/cli.md");
  const size_t begin = doc.find("\n## `symshape " + command + "`");
  if (begin == std::string::npos) return {};
  const size_t end = doc.find("\n## ", begin + 1);
  std::istringstream section(doc.substr(begin, end == std::string::npos ? end : end - begin));
  const std::string prompt = "$ symshape " + command + " ";
  std::vector<std::pair<std::vector<std::string>, std::string>> examples;
  bool in_block = false, in_example = false;
  for (std::string line; std::getline(section, line);) {
    if (line.starts_with("```")) {
      in_block = !in_block;
      in_example = false;
    } else if (in_block && line.starts_with(prompt)) {
      std::vector<std::string> args;
      std::istringstream words(line.substr(prompt.size()));
      for (std::string w; words >> w;) args.push_back(w);
      examples.emplace_back(args, "");
      in_example = true;
    } else if (in_example) {
      examples.back().second += line + "\n";
    }
  }
  return examples;
}

}  // namespace symshape::cli_test
