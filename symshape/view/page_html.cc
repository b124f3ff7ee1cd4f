// The page `symshape view` writes: one HTML file with its style, script and data inline, so it
// works from file:// with no network. The script and style are this project's own.
#include <string>

#include "symshape/view.h"

namespace symshape::view {

namespace {

const char kStyle[] =
#include "symshape/view/page_style.css.inc"
    ;

const char kScript[] =
#include "symshape/view/page_script.js.inc"
    ;

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

const char* page_script() { return kScript; }
const char* page_style() { return kStyle; }

std::string page_html(const nlohmann::ordered_json& data, const std::string& title) {
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
  out += html_escape(title);
  out += "</title>\n<style>";
  out += kStyle;
  out +=
      "</style>\n</head>\n<body>\n<header>\n<span class=\"brand\">symshape view</span>"
      "<span class=\"title\" id=\"title\"></span>\n"
      "<select id=\"stage\" title=\"the graph before the passes, and after each one\">"
      "</select><button id=\"before\" title=\"show the graph before this pass, its removed "
      "nodes marked\">before</button>\n"
      "<input id=\"search\" type=\"search\" placeholder=\"search: node, op or symbol (s0)\" "
      "autocomplete=\"off\"><span id=\"search-count\"></span>\n"
      "<button id=\"home\" title=\"the top of the graph at full size\">top</button>"
      "<button id=\"fit\" title=\"the whole graph\">fit</button>\n"
      "<span class=\"legend\"><span class=\"k-c\">static</span><span class=\"k-s\">symbol"
      "</span><span class=\"k-e\">expression</span><span class=\"k-u\">unbacked</span>"
      "<span class=\"k-x\">specialized</span></span>\n</header>\n<main>\n"
      "<div id=\"canvas\"><svg id=\"svg\"><g id=\"world\"></g></svg>"
      "<div id=\"status\"></div><div id=\"error\"></div></div>\n<aside>\n<nav>";
  const char* tabs[][2] = {{"node", "Node"},       {"guards", "Guards"},     {"symbols", "Symbols"},
                           {"asserts", "Asserts"}, {"problems", "Problems"}, {"nodes", "Nodes"},
                           {"diff", "Diff"}};
  for (const auto& t : tabs) {
    out += std::string("<button data-tab=\"") + t[0] + "\"" +
           (std::string(t[0]) == "node" ? " class=\"on\"" : "") + ">" + t[1] +
           (std::string(t[0]) == "node"
                ? ""
                : std::string("<span class=\"n\" id=\"n-") + t[0] + "\"></span>") +
           "</button>";
  }
  out += "</nav>\n";
  for (const auto& t : tabs) {
    out += std::string("<div class=\"tab") + (std::string(t[0]) == "node" ? " on" : "") +
           "\" id=\"tab-" + t[0] + "\"></div>\n";
  }
  out += "</aside>\n</main>\n<script type=\"application/json\" id=\"symshape-data\">";
  out += data_text(data);
  out += "</script>\n<script>";
  out += kScript;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace symshape::view
