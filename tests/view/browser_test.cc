// The page in a real browser: headless Chromium (Debian's `chromium`, which scripts/setup
// installs) loads pages `symshape view` and `lower --view` wrote, runs their script, and dumps
// the DOM or a screenshot. Skipped, saying so, where no chromium is installed.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "tests/cli/golden.h"

namespace symshape::view {
namespace {

using json = nlohmann::ordered_json;
using cli_test::read_text;
using cli_test::run_in_root;

std::string chromium_path() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    for (const char* name : {"chromium", "chromium-browser"}) {
      const std::filesystem::path p = std::filesystem::path(dir) / name;
      if (std::filesystem::exists(p)) return p.string();
    }
  }
  return "";
}

class Browser : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = chromium_path();
    if (chromium_.empty()) {
      // Under CI a missing chromium is a failure: scripts/setup installs it.
      if (std::getenv("CI")) FAIL() << "CI is set but no chromium is on PATH (scripts/setup)";
      GTEST_SKIP() << "no chromium on PATH (scripts/setup installs it)";
    }
    dir_ = std::filesystem::temp_directory_path() /
           ("symshape_browser_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_ / "profile");
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // Chromium's headless flags: no network, no first-run work, a throwaway profile.
  cli_test::CliResult chromium(const std::vector<std::string>& extra, const std::string& url) {
    std::vector<std::string> args = {"--headless",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--no-first-run",
                                     "--disable-background-networking",
                                     "--disable-component-update",
                                     "--disable-sync",
                                     "--user-data-dir=" + (dir_ / "profile").string(),
                                     "--window-size=1280,800"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(url);
    return cli_test::run_program(chromium_, args, {}, std::chrono::seconds(90));
  }
  // The DOM after the page's script ran, for the page at path with a URL fragment.
  std::string dom(const std::filesystem::path& page, const std::string& fragment) {
    const cli_test::CliResult r = chromium({"--dump-dom"}, "file://" + page.string() + fragment);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("data-ready=\"1\""), std::string::npos)
        << "the page's script did not finish: " << r.out.substr(0, 2000);
    EXPECT_EQ(r.out.find("data-error="), std::string::npos) << "script error in " << page;
    // The elements only: the scripts (at the end of the body) hold the same words as text.
    return r.out.substr(0, r.out.find("<script"));
  }

  std::string chromium_;
  std::filesystem::path dir_;
};

std::string html_attr(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      default: out += c;
    }
  }
  return out;
}

json data_in_page(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"symshape-data\">";
  const size_t begin = html.find(open) + open.size();
  return json::parse(html.substr(begin, html.find("</script>", begin) - begin));
}

// The values of attribute `attr` of the elements whose class list starts with `cls`.
std::vector<std::string> attribute_of_class(const std::string& dom, const std::string& cls,
                                            const std::string& attr) {
  std::vector<std::string> out;
  const std::regex re("<(li|td|a|g)[^>]*class=\"" + cls + "( [^\"]*)?\"[^>]*" + attr +
                      "=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), re); it != std::sregex_iterator();
       ++it) {
    out.push_back((*it)[3]);
  }
  return out;
}

TEST_F(Browser, GptSmallPageNodesGuardsSearchAndScreenshot) {
  const std::filesystem::path page = dir_ / "gpt.html";
  // seq may exceed the 512 positions of wpe: the slice adds a guard, tied to node emb.
  const std::vector<std::string> args = {
      "view", "examples/gpt_small.json", "-o", page.string(), "--dim", "seq=1..1024"};
  const cli_test::CliResult r = run_in_root(args);
  ASSERT_EQ(r.exit_code, 0) << cli_test::describe(args, r);
  const json data = data_in_page(read_text(page));
  const json& stage = data["stages"][0];
  ASSERT_FALSE(stage["guards"].empty());

  const std::string d = dom(page, "#search=batch");
  // Every node is on the page (the outline lists them all; the canvas draws what is on screen).
  std::set<std::string> listed;
  for (const std::string& name : attribute_of_class(d, "ol", "data-node")) listed.insert(name);
  std::set<std::string> names;
  for (const json& n : stage["nodes"]) names.insert(html_attr(n["name"].get<std::string>()));
  EXPECT_EQ(listed, names);
  EXPECT_EQ(names.size(), 313u);
  EXPECT_NE(d.find("<g class=\"node"), std::string::npos) << "no node drawn on the first screen";

  // Each guard's link names an existing node.
  const std::vector<std::string> guard_links = attribute_of_class(d, "nl", "data-node");
  const std::regex guard_cell(
      "<td class=\"guard-node\"><a class=\"nl\" data-i=\"[0-9]+\" "
      "data-node=\"([^\"]*)\"");
  size_t guard_rows = 0;
  for (auto it = std::sregex_iterator(d.begin(), d.end(), guard_cell); it != std::sregex_iterator();
       ++it) {
    ++guard_rows;
    EXPECT_TRUE(names.count((*it)[1])) << "guard link to " << (*it)[1];
  }
  EXPECT_EQ(guard_rows, stage["guards"].size());
  EXPECT_NE(d.find("data-node=\"emb\""), std::string::npos);

  // The search for `batch` marks exactly the nodes whose shapes use it (or whose name or op
  // holds the word).
  std::set<std::string> expected;
  for (const json& n : stage["nodes"]) {
    const std::string name = n["name"], target = n["target"];
    bool uses =
        name.find("batch") != std::string::npos || target.find("batch") != std::string::npos;
    for (const json& s : n["syms"]) uses = uses || s == "batch";
    if (uses) expected.insert(html_attr(name));
  }
  std::set<std::string> marked;
  for (const std::string& name : attribute_of_class(d, "ol match", "data-node"))
    marked.insert(name);
  EXPECT_FALSE(expected.empty());
  EXPECT_EQ(marked, expected);
  EXPECT_NE(d.find("data-matches=\"" + std::to_string(expected.size()) + "\""), std::string::npos);

  // A screenshot is written and is not blank: far larger than one of an empty page.
  const std::filesystem::path shot = dir_ / "gpt.png", blank = dir_ / "blank.png";
  ASSERT_EQ(chromium({"--screenshot=" + shot.string()}, "file://" + page.string()).exit_code, 0);
  ASSERT_EQ(chromium({"--screenshot=" + blank.string()}, "about:blank").exit_code, 0);
  ASSERT_TRUE(std::filesystem::exists(shot));
  ASSERT_TRUE(std::filesystem::exists(blank));
  EXPECT_GT(std::filesystem::file_size(shot), 20000u);
  EXPECT_GT(std::filesystem::file_size(shot), 4 * std::filesystem::file_size(blank));
}

TEST_F(Browser, LowerViewPageShowsTheDiffMarks) {
  const std::filesystem::path page = dir_ / "lower.html";
  const std::vector<std::string> args = {"lower",
                                         "examples/gpt_small.json",
                                         "--passes",
                                         "decompose",
                                         "--decompose-only",
                                         "layer_norm",
                                         "--view",
                                         page.string()};
  const cli_test::CliResult r = run_in_root(args);
  ASSERT_EQ(r.exit_code, 0) << cli_test::describe(args, r);
  const json data = data_in_page(read_text(page));
  const json& diff = data["stages"][1]["diff"];

  // After the pass, at a decomposed layer_norm's user: the diff lists, and added nodes drawn.
  const std::string after = dom(page, "#stage=1&node=h0_ln1_2d");
  EXPECT_EQ(attribute_of_class(after, "diff-added", "data-node").size(), diff["added"].size());
  EXPECT_EQ(attribute_of_class(after, "diff-removed", "data-node").size(), diff["removed"].size());
  EXPECT_EQ(attribute_of_class(after, "diff-rewritten", "data-node").size(),
            diff["rewritten"].size());
  EXPECT_NE(after.find("d-add\" data-i="), std::string::npos) << "no added node drawn";
  EXPECT_NE(after.find("d-rw"), std::string::npos) << "no rewritten node drawn";
  EXPECT_NE(after.find("in place of h0_ln1"), std::string::npos);
  // Before the pass, at the layer_norm it removed.
  const std::string before = dom(page, "#stage=1&before=1&node=h0_ln1");
  EXPECT_NE(before.find("d-rm"), std::string::npos) << "no removed node drawn";
  EXPECT_NE(before.find("removed by the next pass"), std::string::npos);
}

}  // namespace
}  // namespace symshape::view
