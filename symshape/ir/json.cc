// The graph's JSON form (docs/graph-format.md): a reader that turns every problem into a message
// naming where it is, and the canonical writer.
//
// The reader parses with nlohmann's SAX interface, which is iterative, into a document it builds
// itself: that lets it stop at a nesting limit (a deep document would otherwise overflow the stack
// in the recursive code that walks it), reject duplicate keys, and see the text of integers that
// do not fit in int64 (they are kept as markers and reported where they are used).
//
// A fast path reads first: a graph in the common forms becomes Nodes straight from the text,
// without a document. It gives up on anything else, errors included, and the document path then
// reads the text, so there is one implementation of every message (FastReader).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "symshape/ir.h"
#include "symshape/ir/float_text.h"
#include "symshape/ir/json_paths.h"
#include "symshape/ir/utf8.h"

namespace symshape {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kVersion = 1;
constexpr std::string_view kFormat = "symshape-graph";
// Containers nested deeper than this are refused (the walkers below recurse once per level).
constexpr size_t kMaxNesting = 1000;
// Objects larger than this check duplicate keys through a hash set instead of a scan.
constexpr size_t kKeyScanLimit = 16;

constexpr std::string_view kLayouts[] = {"strided",    "sparse_coo", "sparse_csr", "sparse_csc",
                                         "sparse_bsr", "sparse_bsc", "_mkldnn",    "jagged"};
constexpr std::string_view kMemoryFormats[] = {"contiguous_format", "channels_last",
                                               "channels_last_3d", "preserve_format"};

// ---------------------------------------------------------------------------------------------
// Parsing JSON text into a document
// ---------------------------------------------------------------------------------------------

// An integer literal outside int64 is stored as a binary value holding its text: JSON text never
// produces binary values, so the marker cannot be confused with anything a user wrote.
Json out_of_range_marker(const std::string& text) {
  return Json::binary(Json::binary_t::container_type(text.begin(), text.end()));
}

std::string marker_text(const Json& j) {
  const auto& bytes = j.get_binary();
  return std::string(bytes.begin(), bytes.end());
}

// Builds the document from SAX events, stopping at the first problem.
class DocumentBuilder final : public nlohmann::json_sax<Json> {
 public:
  Json root;
  bool too_deep = false;
  std::string duplicate_key_error;  // set when a key repeats inside one object
  bool syntax_error = false;
  size_t error_position = 0;  // 1-based byte of the last character read, for syntax errors
  std::string error_reason;
  size_t markers = 0;  // integers out of range seen
  // Called with each element of the top-level "nodes" list that is an object, as soon as it is
  // complete; when it returns true the element is taken (and left null in the document), so
  // that the document never holds every node at once.
  std::function<bool(Json&, size_t index)> on_node;

  bool null() override { return put(Json(nullptr)) != nullptr; }
  bool boolean(bool v) override { return put(Json(v)) != nullptr; }
  bool number_integer(number_integer_t v) override { return put(Json(v)) != nullptr; }
  bool number_unsigned(number_unsigned_t v) override {
    if (v > static_cast<number_unsigned_t>(INT64_MAX)) {
      ++markers;
      return put(out_of_range_marker(std::to_string(v))) != nullptr;
    }
    // Every integer is stored signed, so that readers see one integer type.
    return put(Json(static_cast<number_integer_t>(v))) != nullptr;
  }
  bool number_float(number_float_t v, const string_t& text) override {
    // nlohmann falls back to a double for integer literals that overflow 64 bits.
    if (text.find_first_of(".eE") == std::string::npos) {
      ++markers;
      return put(out_of_range_marker(text)) != nullptr;
    }
    return put(Json(v)) != nullptr;
  }
  bool string(string_t& v) override { return put(Json(std::move(v))) != nullptr; }
  bool binary(binary_t&) override { return put(Json(nullptr)) != nullptr; }  // not in JSON text
  bool start_object(size_t) override { return open(Json::object()); }
  bool end_object() override {
    // frames_: the top-level object, its "nodes" list, and this element of it.
    if (on_node && frames_.size() == 3 && frames_[2].in_array && !frames_[1].in_array &&
        *frames_[1].key == "nodes" && on_node(*frames_[2].container, frames_[2].index)) {
      *frames_[2].container = nullptr;
    }
    frames_.pop_back();
    return true;
  }
  bool start_array(size_t) override { return open(Json::array()); }
  bool end_array() override {
    frames_.pop_back();
    return true;
  }

  bool key(string_t& k) override {
    Frame& f = frames_.back();
    auto& obj = f.container->get_ref<Json::object_t&>();
    bool seen = false;
    if (obj.size() < kKeyScanLimit) {
      seen = std::any_of(obj.begin(), obj.end(), [&](const auto& kv) { return kv.first == k; });
    } else {
      if (!f.keys) {
        f.keys = std::make_unique<std::unordered_set<std::string>>();
        for (const auto& kv : obj) f.keys->insert(kv.first);
      }
      seen = !f.keys->insert(k).second;
    }
    if (seen) {
      duplicate_key_error = "duplicate key \"" + k + "\"" + location_suffix();
      return false;
    }
    // ordered_map is a vector of pairs: appending directly skips its linear duplicate search.
    obj.emplace_back(std::move(k), nullptr);
    pending_key_ = &obj.back().first;
    pending_ = &obj.back().second;
    return true;
  }

  bool parse_error(size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    syntax_error = true;
    error_position = position;
    error_reason = ex.what();
    return false;
  }

 private:
  struct Frame {
    Json* container;
    const std::string* key = nullptr;  // its key, when its parent is an object
    size_t index = 0;                  // its index, when its parent is an array
    bool in_array = false;
    std::unique_ptr<std::unordered_set<std::string>> keys;
  };

  // Stores a finished value where the parser is, and returns where it now lives.
  Json* put(Json v) {
    if (frames_.empty()) {
      root = std::move(v);
      return &root;
    }
    Json* top = frames_.back().container;
    if (top->is_array()) {
      top->get_ref<Json::array_t&>().push_back(std::move(v));
      return &top->get_ref<Json::array_t&>().back();
    }
    *pending_ = std::move(v);
    return pending_;
  }

  bool open(Json container) {
    if (frames_.size() >= kMaxNesting) {
      too_deep = true;
      return false;
    }
    Frame f;
    if (!frames_.empty()) {
      Json* top = frames_.back().container;
      f.in_array = top->is_array();
      if (f.in_array) {
        f.index = top->size();
      } else {
        f.key = pending_key_;
      }
    }
    f.container = put(std::move(container));
    frames_.push_back(std::move(f));
    return true;
  }

  // " in nodes[3]" for a key inside the fourth node, " at top level" for a top-level key.
  std::string location_suffix() const {
    if (frames_.size() <= 1) return " at top level";
    std::string path;
    for (size_t i = 1; i < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      if (f.in_array) {
        path += "[" + std::to_string(f.index) + "]";
      } else {
        path += (path.empty() ? "" : ".") + *f.key;
      }
    }
    return " in " + path;
  }

  std::vector<Frame> frames_;
  // The value slot of the key just read, and the key (stable while the value is being built).
  const std::string* pending_key_ = nullptr;
  Json* pending_ = nullptr;
};

// "line 3, column 7" for a 1-based byte position as nlohmann reports it (the last byte read).
std::string line_column(std::string_view text, size_t position) {
  size_t limit = std::min(position == 0 ? 0 : position - 1, text.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < limit; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(limit - line_start + 1);
}

// nlohmann's message without its "[json.exception...] parse error at line 1, column 2: " prefix.
std::string json_reason(std::string what) {
  if (what.starts_with("[")) {
    size_t close = what.find("] ");
    if (close != std::string::npos) what.erase(0, close + 2);
  }
  if (what.starts_with("parse error")) {
    size_t colon = what.find(": ");
    if (colon != std::string::npos) what.erase(0, colon + 2);
  }
  return what;
}

// The 1-based byte position of the bracket that opens nesting level limit + 1.
size_t too_deep_position(std::string_view text) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNesting) return i + 1;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return text.size() + 1;
}

// ---------------------------------------------------------------------------------------------
// Turning the document into a Graph
// ---------------------------------------------------------------------------------------------

// A problem found while converting. `path` collects list subscripts (`[2][0]`) on the way out,
// so that the level that knows the argument's name can say `arg 1[2][0]: ...`.
struct ReadError {
  std::string message;
  std::string path;
};

[[noreturn]] void fail(std::string message) { throw ReadError{std::move(message), {}}; }

std::string describe(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    case Json::value_t::number_float: return "a float";
    case Json::value_t::string: return "a string";
    case Json::value_t::array: return "a list";
    case Json::value_t::object: return "an object";
    default: return "a value";
  }
}

std::string in_quotes(std::string_view s) { return "'" + std::string(s) + "'"; }

// The first out-of-range marker inside j, or null.
const Json* find_marker(const Json& j) {
  if (j.is_binary()) return &j;
  if (j.is_structured()) {
    for (const Json& item : j) {
      if (const Json* m = find_marker(item)) return m;
    }
  }
  return nullptr;
}

std::optional<std::string_view> known_name(std::string_view text,
                                           std::span<const std::string_view> names) {
  if (text.starts_with("torch.")) text.remove_prefix(6);
  for (std::string_view n : names) {
    if (n == text) return n;
  }
  return std::nullopt;
}

std::string join_names(std::span<const std::string_view> names) {
  std::string out;
  for (std::string_view n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

// The op kind a node's "op" names, or nullopt.
std::optional<NodeOp> node_op_named(std::string_view s) {
  for (NodeOp op : {NodeOp::Placeholder, NodeOp::GetAttr, NodeOp::CallFunction, NodeOp::Output}) {
    if (to_string(op) == s) return op;
  }
  return std::nullopt;
}

// The names an argument object {"layout": ...} or {"memory_format": ...} may hold.
std::span<const std::string_view> names_of_form(bool layout) {
  return layout ? std::span<const std::string_view>(kLayouts) : kMemoryFormats;
}

class Reader {
  friend class FastReader;  // reads "dims" and expression strings through read_dims and expr

 public:
  explicit Reader(size_t markers) : markers_(markers) {}
  void set_markers(size_t markers) { markers_ = markers; }

  // Converts node `index` while the rest of the text is still being parsed
  // (DocumentBuilder::on_node); read() then takes it in its place. After the first node that
  // fails, none is taken: read() reports that failure where it would have met it.
  bool take_node(Json& j, size_t index) {
    if (stream_error_) return false;
    try {
      streamed_.emplace_back(index, read_node(j, index));
      return true;
    } catch (const ReadError& e) {
      stream_error_.emplace(index, e.message);
      return false;
    }
  }

  Graph read(Json& doc) {
    if (!doc.is_object()) fail("top level: expected a JSON object, got " + describe(doc));
    Graph g;
    auto format = doc.find("format");
    if (format == doc.end() || !format->is_string() || *format != kFormat) {
      fail("top level: \"format\" must be \"symshape-graph\"");
    }
    auto version = doc.find("version");
    if (version == doc.end()) fail("top level: missing \"version\"");
    if (version->is_binary() || !version->is_number_integer()) {
      fail("top level: \"version\" must be an integer");
    }
    if (version->get<int64_t>() != kVersion) {
      fail("version " + std::to_string(version->get<int64_t>()) +
           " is not supported (this reader reads version " + std::to_string(kVersion) + ")");
    }
    auto dims = doc.find("dims");
    if (dims != doc.end()) read_dims(*dims, g);
    auto nodes = doc.find("nodes");
    if (nodes == doc.end()) fail("top level: missing \"nodes\"");
    if (!nodes->is_array()) fail("top level: \"nodes\" must be a list, got " + describe(*nodes));
    g.nodes.reserve(nodes->size());
    size_t next = 0;  // into streamed_, which is in index order
    for (size_t i = 0; i < nodes->size(); ++i) {
      if (next < streamed_.size() && streamed_[next].first == i) {
        g.nodes.push_back(std::move(streamed_[next++].second));
        continue;
      }
      if (stream_error_ && stream_error_->first == i) fail(stream_error_->second);
      g.nodes.push_back(read_node((*nodes)[i], i));
    }
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      const std::string& k = it.key();
      if (k == "format" || k == "version" || k == "dims" || k == "nodes") continue;
      check_markers(it.value(), "top level: \"" + k + "\"");
      g.extra[k] = std::move(it.value());
    }
    return g;
  }

 private:
  void check_markers(const Json& j, const std::string& where) const {
    if (markers_ == 0) return;
    if (const Json* m = find_marker(j)) {
      fail(where + ": integer " + marker_text(*m) + " out of range (beyond int64)");
    }
  }

  static Int read_dim_bound(const Json& j, std::string_view key) {
    if (j.is_binary()) {
      fail("\"" + std::string(key) + "\": integer " + marker_text(j) + " out of range");
    }
    if (!j.is_number_integer()) {
      fail("\"" + std::string(key) + "\" must be an integer, got " + describe(j));
    }
    return Int(j.get<int64_t>());
  }

  void read_dims(const Json& dims, Graph& g) {
    if (!dims.is_object()) fail("top level: \"dims\" must be an object, got " + describe(dims));
    for (auto it = dims.begin(); it != dims.end(); ++it) {
      const std::string& name = it.key();
      try {
        if (is_reserved_name(name)) fail("a reserved word cannot name a dim");
        Expected<Expr> sym = parse_expr(name);
        if (!sym || !sym->is_symbol() || sym->symbol_name() != name) {
          fail("not a valid symbol name");
        }
        const Json& v = it.value();
        if (!v.is_object()) {
          fail("expected an object such as {\"min\": 1, \"max\": 64, \"hint\": 8}, got " +
               describe(v));
        }
        DimDecl d;
        for (auto f = v.begin(); f != v.end(); ++f) {
          const std::string& k = f.key();
          const Json& b = f.value();
          if (k != "min" && k != "max" && k != "hint") {
            fail("unknown key \"" + k + "\" (a dim has min, max and hint)");
          }
          if (b.is_null() || (k == "max" && b.is_string() && b == "inf")) continue;
          Int value = read_dim_bound(b, k);
          if (value < 0) fail("negative " + k + " " + to_string(value));
          (k == "min" ? d.min : k == "max" ? d.max : d.hint) = value;
        }
        if (d.min && d.max && *d.min > *d.max) {
          fail("min " + to_string(*d.min) + " > max " + to_string(*d.max));
        }
        if (d.hint && ((d.min && *d.hint < *d.min) || (d.max && *d.hint > *d.max))) {
          fail("hint " + to_string(*d.hint) + " outside [" + (d.min ? to_string(*d.min) : "0") +
               ", " + (d.max ? to_string(*d.max) : "inf") + "]");
        }
        g.dims.emplace_back(name, std::move(d));
      } catch (ReadError& e) {
        fail("dim " + in_quotes(name) + ": " + e.message);
      }
    }
  }

  // Expression text, parsed once per distinct string (shapes repeat the same few).
  const Expr& expr(const std::string& text) {
    auto it = exprs_.find(text);
    if (it != exprs_.end()) return it->second;
    Expected<Expr> e = parse_expr(text);
    if (!e) fail(parse_failure("expression", text, e.error()));
    return exprs_.emplace(text, std::move(e).value()).first->second;
  }

  Expr read_size(const Json& j) {
    if (j.is_number_integer()) return Expr(static_cast<long long>(j.get<int64_t>()));
    if (j.is_string()) return expr(j.get_ref<const std::string&>());
    if (j.is_binary()) {
      std::string text = marker_text(j);
      fail("integer " + text + " out of range; write it as the string \"" + text + "\"");
    }
    fail("expected an integer or an expression string, got " + describe(j));
  }

  std::vector<Expr> read_sizes(const Json& j, std::string_view key) {
    if (!j.is_array()) {
      fail("\"" + std::string(key) + "\" must be a list of integers and expression strings, got " +
           describe(j));
    }
    std::vector<Expr> out;
    out.reserve(j.size());
    for (size_t i = 0; i < j.size(); ++i) {
      try {
        out.push_back(read_size(j[i]));
      } catch (ReadError& e) {
        fail(std::string(key) + "[" + std::to_string(i) + "]: " + e.message);
      }
    }
    return out;
  }

  static std::string text_of(const Json& v, std::string_view form) {
    std::string takes = "{\"" + std::string(form) + "\": ...} takes a non-empty string";
    if (!v.is_string()) fail(takes + ", got " + describe(v));
    if (v.get_ref<const std::string&>().empty()) fail(takes);
    return v.get<std::string>();
  }

  Arg read_arg(const Json& j) {
    Arg a;
    switch (j.type()) {
      case Json::value_t::null: return a;
      case Json::value_t::boolean:
        a.kind = Arg::Kind::Bool;
        a.boolean = j.get<bool>();
        return a;
      case Json::value_t::number_integer:
      case Json::value_t::number_unsigned:
        return Arg::of_int(Expr(static_cast<long long>(j.get<int64_t>())));
      case Json::value_t::number_float:
        a.kind = Arg::Kind::Float;
        a.real = j.get<double>();
        return a;
      case Json::value_t::string:
        a.kind = Arg::Kind::String;
        a.text = j.get<std::string>();
        return a;
      case Json::value_t::binary: {
        std::string text = marker_text(j);
        fail("integer " + text + " out of range; write it as an {\"expr\": \"" + text +
             "\"} string");
      }
      case Json::value_t::array: {
        std::vector<Arg> items;
        items.reserve(j.size());
        for (size_t i = 0; i < j.size(); ++i) {
          try {
            items.push_back(read_arg(j[i]));
          } catch (ReadError& e) {
            e.path = "[" + std::to_string(i) + "]" + e.path;
            throw;
          }
        }
        return Arg::list(std::move(items));
      }
      case Json::value_t::object: return read_arg_object(j);
      default: fail("unsupported argument " + describe(j));
    }
  }

  Arg read_arg_object(const Json& j) {
    static constexpr std::string_view kForms =
        "node, expr, dtype, device, layout, memory_format or float";
    if (j.size() != 1) {
      fail("an argument object has exactly one key (" + std::string(kForms) + "), got " +
           std::to_string(j.size()));
    }
    const std::string& form = j.begin().key();
    const Json& v = j.begin().value();
    Arg a;
    if (form == "node") return Arg::node(text_of(v, form));
    if (form == "expr") {
      if (!v.is_string()) fail("{\"expr\": ...} takes a string, got " + describe(v));
      return Arg::of_int(expr(v.get_ref<const std::string&>()));
    }
    if (form == "dtype") {
      std::string name = text_of(v, form);
      std::optional<DType> d = parse_dtype(name);
      if (!d) fail("unknown dtype " + in_quotes(name));
      a.kind = Arg::Kind::DType;
      a.dtype = *d;
      return a;
    }
    if (form == "device") {
      a.kind = Arg::Kind::Device;
      a.text = text_of(v, form);
      return a;
    }
    if (form == "layout" || form == "memory_format") {
      bool layout = form == "layout";
      std::span<const std::string_view> names = names_of_form(layout);
      std::string name = text_of(v, form);
      std::optional<std::string_view> known = known_name(name, names);
      if (!known)
        fail("unknown " + form + " " + in_quotes(name) + " (known: " + join_names(names) + ")");
      a.kind = layout ? Arg::Kind::Layout : Arg::Kind::MemoryFormat;
      a.text = std::string(*known);
      return a;
    }
    if (form == "float") {
      // Only the values a JSON number cannot hold are written this way.
      std::string name = v.is_string() ? v.get<std::string>() : "";
      a.kind = Arg::Kind::Float;
      if (name == "inf") {
        a.real = std::numeric_limits<double>::infinity();
      } else if (name == "-inf") {
        a.real = -std::numeric_limits<double>::infinity();
      } else if (name == "nan") {
        a.real = std::numeric_limits<double>::quiet_NaN();
      } else {
        fail("{\"float\": ...} takes \"inf\", \"-inf\" or \"nan\"");
      }
      return a;
    }
    fail("unknown argument form {\"" + form + "\": ...} (expected " + std::string(kForms) + ")");
  }

  static NodeOp read_op(const Json& j) {
    if (!j.is_string()) fail("\"op\" must be a string, got " + describe(j));
    const std::string& s = j.get_ref<const std::string&>();
    if (std::optional<NodeOp> op = node_op_named(s)) return *op;
    fail("unknown op kind " + in_quotes(s) +
         " (expected placeholder, get_attr, call_function or output)");
  }

  Node read_node(Json& j, size_t index) {
    std::string where = "node " + std::to_string(index);
    if (!j.is_object()) fail(where + ": expected an object, got " + describe(j));
    auto name = j.find("name");
    if (name == j.end()) fail(where + ": missing \"name\"");
    if (!name->is_string() || name->get_ref<const std::string&>().empty()) {
      fail(where + ": \"name\" must be a non-empty string");
    }
    Node n;
    n.name = name->get<std::string>();
    try {
      bool has_op = false;
      for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string& k = it.key();
        Json& v = it.value();
        if (k == "name") continue;
        if (k == "op") {
          n.op = read_op(v);
          has_op = true;
        } else if (k == "target") {
          if (!v.is_string()) fail("\"target\" must be a string, got " + describe(v));
          n.target = v.get<std::string>();
        } else if (k == "args") {
          if (!v.is_array()) fail("\"args\" must be a list, got " + describe(v));
          n.args.reserve(v.size());
          for (size_t i = 0; i < v.size(); ++i) {
            try {
              n.args.push_back(read_arg(v[i]));
            } catch (ReadError& e) {
              fail("arg " + std::to_string(i) + e.path + ": " + e.message);
            }
          }
        } else if (k == "kwargs") {
          if (!v.is_object()) fail("\"kwargs\" must be an object, got " + describe(v));
          for (auto kw = v.begin(); kw != v.end(); ++kw) {
            try {
              n.kwargs.emplace_back(kw.key(), read_arg(kw.value()));
            } catch (ReadError& e) {
              fail("kwarg " + in_quotes(kw.key()) + e.path + ": " + e.message);
            }
          }
        } else if (k == "dtype") {
          if (!v.is_string())
            fail("\"dtype\" must be a string such as \"float32\", got " + describe(v));
          n.dtype = parse_dtype(v.get_ref<const std::string&>());
          if (!n.dtype) fail("unknown dtype " + in_quotes(v.get_ref<const std::string&>()));
        } else if (k == "shape") {
          n.shape = read_sizes(v, k);
        } else if (k == "stride") {
          n.stride = read_sizes(v, k);
        } else if (k == "value") {
          check_markers(v, "\"value\"");
          n.value = std::move(v);
        } else {
          check_markers(v, "\"" + k + "\"");
          n.extra[k] = std::move(v);
        }
      }
      if (!has_op) fail("missing \"op\"");
    } catch (ReadError& e) {
      fail("node " + in_quotes(n.name) + ": " + e.message);
    }
    return n;
  }

  size_t markers_;
  std::unordered_map<std::string, Expr> exprs_;
  std::vector<std::pair<size_t, Node>> streamed_;               // (index, node), take_node's
  std::optional<std::pair<size_t, std::string>> stream_error_;  // (index, message)
};

// The common case without a document: a graph written the way symshape and its exporters write
// one (plain strings, numbers that fit, the keys a node usually has) is turned into Nodes straight
// from the text, which is several times faster than building a JSON document per node. Anything
// else, from a string escape or a `value` key to every kind of error, makes read() return nullopt
// and the document path read the text from the start: messages and the rarer forms have one
// implementation. The dims object and expression strings go through the Reader itself.
class FastReader {
 public:
  explicit FastReader(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  std::optional<Graph> read() {
    try {
      Graph g = graph();
      return g;
    } catch (const GiveUp&) {
      return std::nullopt;
    } catch (const ReadError&) {
      return std::nullopt;
    }
  }

 private:
  struct GiveUp {};
  [[noreturn]] static void give_up() { throw GiveUp{}; }

  // Nesting allowed here; deeper values are left to the document path and its limit.
  static constexpr int kMaxDepth = 64;

  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  // Skips white space, then takes c when it is next.
  bool take(char c) {
    skip_space();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  void expect(char c) {
    if (!take(c)) give_up();
  }
  char peek() {
    skip_space();
    if (p_ == end_) give_up();
    return *p_;
  }
  // Whether a list or object continues after an element: `,` does, the closing bracket ends it.
  bool more(char close) {
    if (take(',')) return true;
    expect(close);
    return false;
  }
  // A list: element() reads each element.
  template <class Element>
  void elements(Element element) {
    expect('[');
    if (take(']')) return;
    do {
      element();
    } while (more(']'));
  }
  // An object: member(key) reads each member's value.
  template <class Member>
  void members(Member member) {
    expect('{');
    if (take('}')) return;
    do {
      const std::string_view key = string();
      expect(':');
      member(key);
    } while (more('}'));
  }
  // A string of printable ASCII without escapes (what the document path would read unchanged).
  std::string_view string() {
    expect('"');
    const char* start = p_;
    while (p_ != end_ && *p_ != '"') {
      const auto c = static_cast<unsigned char>(*p_);
      if (c < 0x20 || c >= 0x80 || c == '\\') give_up();
      ++p_;
    }
    if (p_ == end_) give_up();
    return {start, static_cast<size_t>(p_++ - start)};
  }
  void literal(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word)
      give_up();
    p_ += word.size();
  }

  // A JSON number: an integer that fits in int64, or a finite double.
  struct Number {
    bool integer;
    int64_t i;
    double d;
  };
  Number number() {
    skip_space();
    const char* start = p_;
    auto digits = [&] {
      const char* from = p_;
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
      if (p_ == from) give_up();
    };
    if (p_ != end_ && *p_ == '-') ++p_;
    if (p_ != end_ && *p_ == '0') {
      ++p_;
    } else {
      digits();
    }
    bool integer = true;
    if (p_ != end_ && *p_ == '.') {
      ++p_;
      digits();
      integer = false;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      digits();
      integer = false;
    }
    Number n{integer, 0, 0};
    const auto r = integer ? std::from_chars(start, p_, n.i) : std::from_chars(start, p_, n.d);
    if (r.ec != std::errc() || r.ptr != p_ || (!integer && !std::isfinite(n.d))) give_up();
    return n;
  }

  // Any value, as a document (for "dims", which the Reader checks).
  Json value(int depth) {
    if (depth > kMaxDepth) give_up();
    switch (peek()) {
      case '{': {
        Json j = Json::object();
        members([&](std::string_view key) {
          if (j.contains(key)) give_up();
          j.emplace(std::string(key), value(depth + 1));
        });
        return j;
      }
      case '[': {
        Json j = Json::array();
        elements([&] { j.push_back(value(depth + 1)); });
        return j;
      }
      case '"': return Json(std::string(string()));
      case 'n': literal("null"); return Json(nullptr);
      case 't': literal("true"); return Json(true);
      case 'f': literal("false"); return Json(false);
      default: {
        const Number n = number();
        return n.integer ? Json(n.i) : Json(n.d);
      }
    }
  }

  Arg arg(int depth) {
    if (depth > kMaxDepth) give_up();
    Arg a;
    switch (peek()) {
      case 'n': literal("null"); return a;
      case 't':
      case 'f':
        a.kind = Arg::Kind::Bool;
        a.boolean = *p_ == 't';
        literal(a.boolean ? "true" : "false");
        return a;
      case '"':
        a.kind = Arg::Kind::String;
        a.text = string();
        return a;
      case '[': {
        std::vector<Arg> items;
        elements([&] { items.push_back(arg(depth + 1)); });
        return Arg::list(std::move(items));
      }
      case '{': {
        // {"node": NAME}, {"expr": TEXT}, {"dtype": NAME}, {"device": NAME}, {"layout": NAME} or
        // {"memory_format": NAME}; {"float": ...} takes the long way.
        ++p_;
        const std::string_view form = string();
        expect(':');
        const std::string_view text = string();
        expect('}');
        if (form == "node" && !text.empty()) return Arg::node(std::string(text));
        if (form == "expr") return Arg::of_int(reader_.expr(std::string(text)));
        if (form == "dtype") {
          std::optional<DType> d = parse_dtype(text);
          if (!d) give_up();
          a.kind = Arg::Kind::DType;
          a.dtype = *d;
          return a;
        }
        if (form == "device" && !text.empty()) {
          a.kind = Arg::Kind::Device;
          a.text = text;
          return a;
        }
        if (form == "layout" || form == "memory_format") {
          const bool layout = form == "layout";
          std::optional<std::string_view> known = known_name(text, names_of_form(layout));
          if (!known) give_up();
          a.kind = layout ? Arg::Kind::Layout : Arg::Kind::MemoryFormat;
          a.text = *known;
          return a;
        }
        give_up();  // {"float": ...}
      }
      default: {
        const Number n = number();
        if (n.integer) return Arg::of_int(Expr(static_cast<long long>(n.i)));
        a.kind = Arg::Kind::Float;
        a.real = n.d;
        return a;
      }
    }
  }

  std::vector<Expr> sizes() {
    std::vector<Expr> out;
    elements([&] {
      if (peek() == '"') {
        out.push_back(reader_.expr(std::string(string())));
      } else {
        const Number n = number();
        if (!n.integer) give_up();
        out.push_back(Expr(static_cast<long long>(n.i)));
      }
    });
    return out;
  }

  Node node() {
    enum Key : unsigned {
      Name = 1,
      Op = 2,
      Target = 4,
      Args = 8,
      Kwargs = 16,
      DTypeKey = 32,
      Shape = 64,
      Stride = 128
    };
    Node n;
    unsigned seen = 0;
    auto first = [&](Key k) {
      if (seen & k) give_up();
      seen |= k;
    };
    members([&](std::string_view key) {
      if (key == "name") {
        first(Name);
        n.name = string();
        if (n.name.empty()) give_up();
      } else if (key == "op") {
        first(Op);
        const std::optional<NodeOp> op = node_op_named(string());
        if (!op) give_up();
        n.op = *op;
      } else if (key == "target") {
        first(Target);
        n.target = string();
      } else if (key == "args") {
        first(Args);
        elements([&] { n.args.push_back(arg(1)); });
      } else if (key == "kwargs") {
        first(Kwargs);
        members([&](std::string_view name) {
          for (const auto& [k, v] : n.kwargs) {
            if (k == name) give_up();
          }
          n.kwargs.emplace_back(std::string(name), arg(1));
        });
      } else if (key == "dtype") {
        first(DTypeKey);
        n.dtype = parse_dtype(string());
        if (!n.dtype) give_up();
      } else if (key == "shape") {
        first(Shape);
        n.shape = sizes();
      } else if (key == "stride") {
        first(Stride);
        n.stride = sizes();
      } else {
        give_up();  // "value" and keys this version keeps as they are
      }
    });
    if (!(seen & Name) || !(seen & Op)) give_up();
    return n;
  }

  Graph graph() {
    Graph g;
    bool format = false, version = false, dims = false, nodes = false;
    auto first = [](bool& seen) {
      if (seen) give_up();
      seen = true;
    };
    members([&](std::string_view key) {
      if (key == "format") {
        first(format);
        if (string() != kFormat) give_up();
      } else if (key == "version") {
        first(version);
        const Number n = number();
        if (!n.integer || n.i != kVersion) give_up();
      } else if (key == "dims") {
        first(dims);
        reader_.read_dims(value(1), g);
      } else if (key == "nodes") {
        first(nodes);
        elements([&] { g.nodes.push_back(node()); });
      } else {
        give_up();
      }
    });
    skip_space();
    if (p_ != end_ || !format || !version || !nodes) give_up();
    return g;
  }

  const char* p_;
  const char* end_;
  Reader reader_{0};
};

// The document path: every form and every message.
Expected<Graph> read_through_document_unescaped(std::string_view text) {
  DocumentBuilder builder;
  Reader reader(0);
  builder.on_node = [&](Json& node, size_t index) {
    reader.set_markers(builder.markers);
    return reader.take_node(node, index);
  };
  bool parsed = Json::sax_parse(text.data(), text.data() + text.size(), &builder,
                                Json::input_format_t::json, /*strict=*/true);
  if (!parsed || builder.syntax_error) {
    if (builder.too_deep) {
      return Expected<Graph>::failure(line_column(text, too_deep_position(text)) +
                                      ": nesting deeper than " + std::to_string(kMaxNesting));
    }
    if (!builder.duplicate_key_error.empty()) {
      return Expected<Graph>::failure(builder.duplicate_key_error);
    }
    return Expected<Graph>::failure(line_column(text, builder.error_position) + ": " +
                                    json_reason(builder.error_reason));
  }
  try {
    reader.set_markers(builder.markers);
    return reader.read(builder.root);
  } catch (const ReadError& e) {
    return Expected<Graph>::failure(e.message);
  }
}

// The text read may hold any bytes (nlohmann quotes the last ones read): the message is UTF-8.
Expected<Graph> read_through_document(std::string_view text) {
  Expected<Graph> g = read_through_document_unescaped(text);
  if (!g) return Expected<Graph>::failure(detail::escape_invalid_utf8(g.error()));
  return g;
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

// Appends s as a JSON string: UTF-8 kept as is, control characters escaped, and bytes that are
// not UTF-8 (possible only in strings built in memory) spelled \xNN (detail::escape_invalid_utf8),
// so that it reads back.
void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    size_t run = i;
    while (run < s.size()) {
      unsigned char c = s[run];
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
      ++run;
    }
    out.append(s.data() + i, run - i);
    i = run;
    if (i == s.size()) break;
    unsigned char c = s[i];
    if (c >= 0x80) {
      char32_t cp = 0;
      size_t n = detail::utf8_sequence(s, i, cp);
      if (n) {
        out.append(s.data() + i, n);
        i += n;
      } else {
        out += '\\';  // the backslash of \xNN, escaped for JSON
        out += detail::escape_invalid_utf8(s.substr(i, 1));
        ++i;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
      }
    }
    ++i;
  }
  out += '"';
}

class Writer {
 public:
  std::string write(const Graph& g) {
    out_ += "{\"format\": ";
    string(kFormat);
    out_ += ", \"version\": " + std::to_string(kVersion) + ",\n";
    if (!g.dims.empty()) {
      out_ += " \"dims\": {";
      for (size_t i = 0; i < g.dims.size(); ++i) {
        if (i) out_ += ", ";
        string(g.dims[i].first);
        out_ += ": ";
        dim(g.dims[i].second);
      }
      out_ += "},\n";
    }
    if (g.extra.is_object()) {
      for (auto it = g.extra.begin(); it != g.extra.end(); ++it) {
        const std::string& k = it.key();
        if (k == "format" || k == "version" || k == "dims" || k == "nodes") continue;
        out_ += " ";
        string(k);
        out_ += ": ";
        json(it.value());
        out_ += ",\n";
      }
    }
    out_ += " \"nodes\": [";
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      out_ += i ? ",\n  " : "\n  ";
      node(g.nodes[i]);
    }
    out_ += "]}\n";
    return std::move(out_);
  }

 private:
  void string(std::string_view s) { append_json_string(out_, s); }

  // Expression text, printed once per distinct expression (shapes repeat the same few).
  const std::string& expr_text(const Expr& e) {
    auto& bucket = expr_texts_[e.hash()];
    for (const auto& [known, text] : bucket) {
      if (known.identical(e)) return text;
    }
    bucket.emplace_back(e, e.str());
    return bucket.back().second;
  }

  void key(std::string_view k) {
    out_ += ", ";
    string(k);
    out_ += ": ";
  }

  void integer(const Int& v) { out_ += to_string(v); }

  void dim(const DimDecl& d) {
    out_ += "{";
    bool first = true;
    auto bound = [&](std::string_view k, const std::optional<Int>& v) {
      if (!v) return;
      if (!first) out_ += ", ";
      first = false;
      string(k);
      out_ += ": ";
      integer(*v);
    };
    bound("min", d.min);
    bound("max", d.max);
    bound("hint", d.hint);
    out_ += "}";
  }

  void json(const Json& j) {
    switch (j.type()) {
      case Json::value_t::boolean: out_ += j.get<bool>() ? "true" : "false"; return;
      case Json::value_t::number_integer: out_ += std::to_string(j.get<int64_t>()); return;
      case Json::value_t::number_unsigned: out_ += std::to_string(j.get<uint64_t>()); return;
      case Json::value_t::number_float: {
        double v = j.get<double>();
        out_ += std::isfinite(v) ? detail::float_text(v) : "null";
        return;
      }
      case Json::value_t::string: string(j.get_ref<const std::string&>()); return;
      case Json::value_t::array: {
        out_ += "[";
        bool first = true;
        for (const Json& item : j) {
          if (!first) out_ += ", ";
          first = false;
          json(item);
        }
        out_ += "]";
        return;
      }
      case Json::value_t::object: {
        out_ += "{";
        bool first = true;
        for (auto it = j.begin(); it != j.end(); ++it) {
          if (!first) out_ += ", ";
          first = false;
          string(it.key());
          out_ += ": ";
          json(it.value());
        }
        out_ += "}";
        return;
      }
      default: out_ += "null"; return;
    }
  }

  // A constant that fits int64 as a number, anything else as its expression text.
  void size(const Expr& e) {
    std::optional<int64_t> v = e.as_int64();
    if (v) {
      out_ += std::to_string(*v);
    } else {
      string(expr_text(e));
    }
  }

  void sizes(const std::vector<Expr>& es) {
    out_ += "[";
    for (size_t i = 0; i < es.size(); ++i) {
      if (i) out_ += ", ";
      size(es[i]);
    }
    out_ += "]";
  }

  void tagged(std::string_view form, std::string_view text) {
    out_ += "{";
    string(form);
    out_ += ": ";
    string(text);
    out_ += "}";
  }

  void arg(const Arg& a) {
    switch (a.kind) {
      case Arg::Kind::None: out_ += "null"; return;
      case Arg::Kind::Bool: out_ += a.boolean ? "true" : "false"; return;
      case Arg::Kind::Int: {
        std::optional<int64_t> v = a.integer.as_int64();
        if (v) {
          out_ += std::to_string(*v);
        } else {
          tagged("expr", expr_text(a.integer));
        }
        return;
      }
      case Arg::Kind::Float:
        if (std::isfinite(a.real)) {
          out_ += detail::float_text(a.real);
        } else {
          tagged("float", detail::float_text(a.real));
        }
        return;
      case Arg::Kind::String: string(a.text); return;
      case Arg::Kind::DType: tagged("dtype", to_string(a.dtype)); return;
      case Arg::Kind::Device: tagged("device", a.text); return;
      case Arg::Kind::Layout: tagged("layout", a.text); return;
      case Arg::Kind::MemoryFormat: tagged("memory_format", a.text); return;
      case Arg::Kind::Node: tagged("node", a.text); return;
      case Arg::Kind::List: {
        out_ += "[";
        for (size_t i = 0; i < a.items.size(); ++i) {
          if (i) out_ += ", ";
          arg(a.items[i]);
        }
        out_ += "]";
        return;
      }
    }
  }

  void node(const Node& n) {
    out_ += "{\"name\": ";
    string(n.name);
    key("op");
    string(to_string(n.op));
    if (!n.target.empty()) {
      key("target");
      string(n.target);
    }
    // Calls and the output always show their arguments, even none; other nodes only when given.
    if (!n.args.empty() || n.op == NodeOp::CallFunction || n.op == NodeOp::Output) {
      key("args");
      out_ += "[";
      for (size_t i = 0; i < n.args.size(); ++i) {
        if (i) out_ += ", ";
        arg(n.args[i]);
      }
      out_ += "]";
    }
    if (!n.kwargs.empty()) {
      key("kwargs");
      out_ += "{";
      for (size_t i = 0; i < n.kwargs.size(); ++i) {
        if (i) out_ += ", ";
        string(n.kwargs[i].first);
        out_ += ": ";
        arg(n.kwargs[i].second);
      }
      out_ += "}";
    }
    if (n.dtype) {
      key("dtype");
      string(to_string(*n.dtype));
    }
    if (n.shape) {
      key("shape");
      sizes(*n.shape);
    }
    if (n.stride) {
      key("stride");
      sizes(*n.stride);
    }
    if (!n.value.is_null()) {
      key("value");
      json(n.value);
    }
    if (n.extra.is_object()) {
      for (auto it = n.extra.begin(); it != n.extra.end(); ++it) {
        if (is_node_key(it.key())) continue;  // would shadow a key written above
        key(it.key());
        json(it.value());
      }
    }
    out_ += "}";
  }

  static bool is_node_key(std::string_view k) {
    for (std::string_view fixed :
         {"name", "op", "target", "args", "kwargs", "dtype", "shape", "stride", "value"}) {
      if (k == fixed) return true;
    }
    return false;
  }

  std::string out_;
  std::unordered_map<unsigned, std::vector<std::pair<Expr, std::string>>> expr_texts_;
};

}  // namespace

namespace detail {

std::optional<Graph> read_graph_fast(std::string_view text) { return FastReader(text).read(); }

Expected<Graph> read_graph_document(std::string_view text) { return read_through_document(text); }

}  // namespace detail

Expected<Graph> read_graph(std::string_view json_text) {
  try {
    if (std::optional<Graph> g = FastReader(json_text).read()) return std::move(*g);
    return read_through_document(json_text);
  } catch (const std::exception& e) {
    return Expected<Graph>::failure(std::string("internal error while reading the graph: ") +
                                    e.what());
  } catch (...) {
    return Expected<Graph>::failure("internal error while reading the graph");
  }
}

Expected<Graph> read_graph_file(const std::string& path) {
  try {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      return Expected<Graph>::failure(path + ": is a directory, not a graph file");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      return Expected<Graph>::failure(path + ": cannot open: " + std::strerror(errno));
    }
    // Read in blocks into a string of the file's size (a character at a time took as long as
    // the JSON lexer; a growing buffer would hold up to twice the text at the peak).
    std::string text;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec) text.reserve(size);
    std::array<char, 1 << 16> block;
    while (in.read(block.data(), block.size()) || in.gcount() > 0)
      text.append(block.data(), in.gcount());
    if (in.bad()) return Expected<Graph>::failure(path + ": read error");
    Expected<Graph> g = read_graph(text);
    if (!g) return Expected<Graph>::failure(path + ": " + g.error());
    return g;
  } catch (const std::exception& e) {
    return Expected<Graph>::failure(path + ": " + e.what());
  }
}

std::string write_graph(const Graph& g) { return Writer().write(g); }

}  // namespace symshape
