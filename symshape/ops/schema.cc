#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <span>

#include "symshape/ops/schema_table.h"
#include "symshape/schema.h"

namespace symshape {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

[[noreturn]] void bad_schema(std::string_view text, const std::string& what) {
  throw Error("bad operator signature '" + std::string(text) + "': " + what);
}

// Splits at the commas outside brackets, parentheses and quotes.
std::vector<std::string_view> split_top_level(std::string_view s) {
  std::vector<std::string_view> parts;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[') {
      ++depth;
    } else if (c == ')' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string_view last = trim(s.substr(start));
  if (!last.empty() || !parts.empty()) parts.push_back(last);
  return parts;
}

ParamType element_type(std::string_view base, bool list, std::string_view text) {
  struct Entry {
    std::string_view name;
    ParamType one, many;
  };
  static const Entry kTypes[] = {
      {"Tensor", ParamType::Tensor, ParamType::TensorList},
      {"int", ParamType::Int, ParamType::IntList},
      {"SymInt", ParamType::Int, ParamType::IntList},
      {"float", ParamType::Float, ParamType::FloatList},
      {"bool", ParamType::Bool, ParamType::BoolList},
      {"SymBool", ParamType::Bool, ParamType::BoolList},
      {"str", ParamType::Str, ParamType::StrList},
      {"Scalar", ParamType::Scalar, ParamType::ScalarList},
      {"ScalarType", ParamType::ScalarType, ParamType::Any},
      {"Layout", ParamType::Layout, ParamType::Any},
      {"Device", ParamType::Device, ParamType::Any},
      {"MemoryFormat", ParamType::MemoryFormat, ParamType::Any},
      {"Generator", ParamType::Generator, ParamType::Any},
  };
  for (const Entry& e : kTypes)
    if (e.name == base) return list ? e.many : e.one;
  for (char c : base)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      bad_schema(text, "unknown type '" + std::string(base) + "'");
  return ParamType::Any;  // t, Any, Storage, Stream, complex, ...
}

bool is_integer(std::string_view s) {
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// A default as an argument: None, True/False, numbers, lists of them, strings, and the names
// of dtypes, layouts and memory formats.
Arg parse_default(std::string_view s, ParamType type, std::string_view text) {
  s = trim(s);
  Arg a;
  if (s == "None") return a;
  if (s == "True" || s == "False") {
    a.kind = Arg::Kind::Bool;
    a.boolean = s == "True";
    return a;
  }
  if (is_integer(s)) {
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size())
      bad_schema(text, "default " + std::string(s));
    if (type == ParamType::Float || type == ParamType::FloatList) {
      a.kind = Arg::Kind::Float;
      a.real = static_cast<double>(v);
    } else {
      a = Arg::of_int(Expr(v));
    }
    return a;
  }
  if (!s.empty() && s.front() == '[') {
    if (s.back() != ']') bad_schema(text, "default " + std::string(s));
    std::vector<Arg> items;
    ParamType item_type = type == ParamType::FloatList ? ParamType::Float : ParamType::Any;
    for (std::string_view item : split_top_level(s.substr(1, s.size() - 2)))
      items.push_back(parse_default(item, item_type, text));
    return Arg::list(std::move(items));
  }
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    a.kind = Arg::Kind::String;
    a.text = std::string(s.substr(1, s.size() - 2));
    return a;
  }
  char* end = nullptr;
  std::string copy(s);
  double d = std::strtod(copy.c_str(), &end);
  if (end && *end == '\0' && !copy.empty()) {
    a.kind = Arg::Kind::Float;
    a.real = d;
    return a;
  }
  switch (type) {
    case ParamType::ScalarType: {
      // ATen's names for dtypes (c10::ScalarType's), else symshape's own.
      static const std::pair<std::string_view, std::string_view> kNames[] = {
          {"long", "int64"},        {"int", "int32"},    {"short", "int16"},
          {"char", "int8"},         {"byte", "uint8"},   {"float", "float32"},
          {"double", "float64"},    {"half", "float16"}, {"cfloat", "complex64"},
          {"cdouble", "complex128"}};
      for (const auto& [aten, ours] : kNames)
        if (s == aten) s = ours;
      if (auto dt = parse_dtype(s)) {
        a.kind = Arg::Kind::DType;
        a.dtype = *dt;
        return a;
      }
      break;
    }
    case ParamType::Layout: a.kind = Arg::Kind::Layout; break;
    case ParamType::MemoryFormat: a.kind = Arg::Kind::MemoryFormat; break;
    case ParamType::Device: a.kind = Arg::Kind::Device; break;
    default: break;
  }
  if (a.kind == Arg::Kind::None) bad_schema(text, "cannot read the default '" + copy + "'");
  a.text = copy;
  return a;
}

Param parse_param(std::string_view p, bool kwarg_only, std::string_view text) {
  Param param;
  param.kwarg_only = kwarg_only;
  // The default: after an `=` outside parentheses (an alias annotation has none).
  int depth = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '(' || p[i] == '[') ++depth;
    if (p[i] == ')' || p[i] == ']') --depth;
    if (p[i] == '=' && depth == 0) {
      param.default_text = std::string(trim(p.substr(i + 1)));
      p = trim(p.substr(0, i));
      break;
    }
  }
  size_t space = p.find_last_of(" \t");
  if (space == std::string_view::npos)
    bad_schema(text, "parameter '" + std::string(p) + "' has no name");
  param.name = std::string(trim(p.substr(space + 1)));
  std::string_view type = trim(p.substr(0, space));
  param.type_text = std::string(type);
  // Alias annotations: `Tensor(a!)`, `Tensor(a)[]`, `Tensor[](a!)`.
  std::string plain;
  for (size_t i = 0; i < type.size(); ++i) {
    if (type[i] == '(') {
      size_t close = type.find(')', i);
      if (close == std::string_view::npos) bad_schema(text, "unclosed '(' in " + param.type_text);
      std::string_view note = type.substr(i + 1, close - i - 1);
      if (note.find('!') != std::string_view::npos) param.writes = true;
      param.alias_set = std::string(trim(note.substr(0, note.find_first_of("!-"))));
      i = close;
      continue;
    }
    plain += type[i];
  }
  std::string_view t = plain;
  if (!t.empty() && t.back() == '?') {
    param.optional = true;
    t.remove_suffix(1);
  }
  bool list = false, optional_items = false;
  if (!t.empty() && t.back() == ']') {
    size_t open = t.rfind('[');
    if (open == std::string_view::npos) bad_schema(text, "unbalanced ']' in " + param.type_text);
    list = true;
    t = t.substr(0, open);
    if (!t.empty() && t.back() == '?') {
      optional_items = true;
      t.remove_suffix(1);
    }
  }
  param.type = element_type(t, list, text);
  if (optional_items && param.type == ParamType::TensorList)
    param.type = ParamType::OptionalTensorList;
  if (param.default_text)
    param.default_value = parse_default(*param.default_text, param.type, text);
  return param;
}

}  // namespace

OpSchema parse_schema(std::string_view text) {
  std::string_view s = trim(text);
  size_t open = s.find('(');
  if (open == std::string_view::npos) bad_schema(text, "no '(' after the name");
  OpSchema schema;
  std::string full(trim(s.substr(0, open)));
  if (size_t colons = full.find("::"); colons != std::string::npos) full.replace(colons, 2, ".");
  size_t dot = full.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == full.size())
    bad_schema(text, "the name must be namespace.op[.overload]");
  size_t second = full.find('.', dot + 1);
  schema.name = full.substr(0, second);
  if (second != std::string::npos) schema.overload = full.substr(second + 1);
  // The parameters end at the ')' that closes the first '('.
  int depth = 0;
  size_t close = std::string_view::npos;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth == 0) {
      close = i;
      break;
    }
  }
  if (close == std::string_view::npos) bad_schema(text, "unclosed parameter list");
  bool kwarg_only = false;
  for (std::string_view p : split_top_level(s.substr(open + 1, close - open - 1))) {
    if (p == "*") {
      kwarg_only = true;
      continue;
    }
    if (p.empty()) bad_schema(text, "an empty parameter");
    schema.params.push_back(parse_param(p, kwarg_only, text));
    for (size_t i = 0; i + 1 < schema.params.size(); ++i)
      if (schema.params[i].name == schema.params.back().name)
        bad_schema(text, "parameter '" + schema.params.back().name + "' appears twice");
  }
  std::string_view rest = trim(s.substr(close + 1));
  if (!rest.empty()) {
    if (rest.substr(0, 2) != "->") bad_schema(text, "expected '->' after the parameters");
    schema.returns = std::string(trim(rest.substr(2)));
  }
  return schema;
}

std::string OpSchema::target() const { return overload.empty() ? name : name + "." + overload; }

std::string OpSchema::str() const {
  std::string out = target() + "(";
  bool star = false;
  for (size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    if (i) out += ", ";
    if (p.kwarg_only && !star) {
      out += "*, ";
      star = true;
    }
    out += p.type_text + " " + p.name;
    if (p.default_text) out += "=" + *p.default_text;
  }
  out += ")";
  if (!returns.empty()) out += " -> " + returns;
  return out;
}

const Param* OpSchema::param(std::string_view n) const {
  for (const Param& p : params)
    if (p.name == n) return &p;
  return nullptr;
}

std::optional<size_t> OpSchema::position(std::string_view n) const {
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == n) return i;
  return std::nullopt;
}

size_t OpSchema::positional_count() const {
  size_t n = 0;
  while (n < params.size() && !params[n].kwarg_only) ++n;
  return n;
}

std::vector<std::string> OpSchema::return_alias_sets() const {
  std::string_view r = trim(returns);
  if (r.size() >= 2 && r.front() == '(' && r.back() == ')') r = r.substr(1, r.size() - 2);
  std::vector<std::string> out;
  if (r.empty()) return out;
  for (std::string_view item : split_top_level(r)) {
    std::string set;
    size_t open = item.find('(');
    if (open != std::string_view::npos) {
      size_t close = item.find(')', open);
      std::string_view note = item.substr(
          open + 1, close == std::string_view::npos ? std::string_view::npos : close - open - 1);
      set = std::string(trim(note.substr(0, note.find_first_of("!-"))));
    }
    out.push_back(std::move(set));
  }
  return out;
}

// ---- the table ----

namespace {
std::mutex table_mutex;  // tables are shared between threads; packets are parsed on first use
std::mutex define_mutex;

std::string_view packet_of(std::string_view target) {
  size_t dot = target.find('.');
  if (dot == std::string_view::npos) return target;
  size_t second = target.find('.', dot + 1);
  return second == std::string_view::npos ? target : target.substr(0, second);
}

// The packet of one signature of the generated table.
std::string_view packet_at(std::string_view text) {
  return packet_of(text.substr(0, text.find('(')));
}

// The generated table's signatures of one packet. The generator sorts the table by packet, so
// they are one run of it, found by binary search (tests/ops/schema_test.cc finds every one).
std::span<const std::string_view> generated_packet(std::string_view name) {
  const std::string_view* begin = detail::kSchemaTable;
  const std::string_view* end = begin + detail::kSchemaTableSize;
  const std::string_view* lo =
      std::partition_point(begin, end, [&](std::string_view t) { return packet_at(t) < name; });
  const std::string_view* hi =
      std::partition_point(lo, end, [&](std::string_view t) { return packet_at(t) == name; });
  return {lo, static_cast<size_t>(hi - lo)};
}
}  // namespace

const SchemaTable& SchemaTable::instance() {
  static const SchemaTable* table = new SchemaTable();
  return *table;
}

const SchemaTable::Packet* SchemaTable::packet(std::string_view name) const {
  std::lock_guard<std::mutex> lock(table_mutex);
  auto it = packets_.find(name);
  if (it == packets_.end()) {
    // First use: parse the generated table's signatures (an absence is remembered too).
    Packet p;
    for (std::string_view text : generated_packet(name)) p.schemas.push_back(parse_schema(text));
    p.exists = !p.schemas.empty();
    it = packets_.emplace(std::string(name), std::move(p)).first;
  }
  return it->second.exists ? &it->second : nullptr;
}

void SchemaTable::add(OpSchema schema) {
  std::string key = schema.name;
  packet(key);  // parse what is there, so that a replacement replaces
  std::lock_guard<std::mutex> lock(table_mutex);
  Packet& p = packets_[key];
  p.exists = true;
  for (OpSchema& s : p.schemas)
    if (s.overload == schema.overload) {
      s = std::move(schema);
      return;
    }
  if (schema.overload.empty())
    p.schemas.insert(p.schemas.begin(), std::move(schema));
  else
    p.schemas.push_back(std::move(schema));
}

void SchemaTable::define(std::string_view text) {
  OpSchema schema = parse_schema(text);
  auto& table = const_cast<SchemaTable&>(instance());
  for (const OpSchema* s : table.overloads(schema.target())) {
    if (s->overload != schema.overload) continue;  // `.default` also lists a packet's others
    if (s->str() == schema.str()) return;
    throw Error("cannot define " + schema.str() + ": " + schema.target() +
                " already has the signature " + s->str());
  }
  std::lock_guard<std::mutex> lock(define_mutex);
  table.add(std::move(schema));
}

std::vector<const OpSchema*> SchemaTable::overloads(std::string_view target) const {
  std::vector<const OpSchema*> out;
  TargetName t = parse_target(target);
  auto collect = [&](std::string_view packet_name, std::string_view overload) {
    const Packet* p = packet(packet_name);
    if (!p) return;
    for (const OpSchema& s : p->schemas) {
      bool named = !overload.empty();
      if (!named || s.overload == overload || (overload == "default" && s.overload.empty()))
        out.push_back(&s);
    }
  };
  collect(t.packet, t.overload);
  // Hand-written graphs say `.default` for a packet without a default overload (aten.empty).
  if (out.empty() && t.overload == "default") collect(t.packet, "");
  if (out.empty() && t.in_place) {
    std::string name = t.functional();
    TargetName functional = parse_target(name);
    collect(functional.packet, functional.overload);
    if (out.empty() && functional.overload == "default") collect(functional.packet, "");
  }
  return out;
}

std::vector<std::string> SchemaTable::packets() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < detail::kSchemaTableSize; ++i) {
    const std::string_view name = packet_at(detail::kSchemaTable[i]);
    if (out.empty() || out.back() != name) out.emplace_back(name);
  }
  {
    std::lock_guard<std::mutex> lock(table_mutex);
    for (const auto& [name, p] : packets_) {
      if (p.exists) out.push_back(name);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// ---- binding ----

const Arg* BoundArgs::get(std::string_view name) const {
  if (!schema_) throw Error("no signature to read argument '" + std::string(name) + "' by");
  auto i = schema_->position(name);
  if (!i)
    throw Error("internal: reading argument '" + std::string(name) + "', which " + schema_->str() +
                " does not have");
  if (given_[*i]) return given_[*i];
  const Param& p = schema_->params[*i];
  return p.default_value ? &*p.default_value : nullptr;
}

bool BoundArgs::declares(std::string_view name) const {
  return schema_ && schema_->position(name).has_value();
}

bool BoundArgs::given(std::string_view name) const {
  if (!schema_) return false;
  auto i = schema_->position(name);
  return i && given_[*i] != nullptr;
}

namespace {

// What kinds of value an argument holds, for matching it against parameter types.
struct Shape {
  ArgClass cls = ArgClass::Other;
  bool list = false;
  // For lists: which element classes occur.
  bool has_tensor = false, has_none = false, has_int = false, has_float = false, has_bool = false,
       has_string = false, has_other = false;
};

ArgClass literal_class(const Arg& a, const ArgClassifier& classify) {
  switch (a.kind) {
    case Arg::Kind::None: return ArgClass::None;
    case Arg::Kind::Bool: return ArgClass::Bool;
    case Arg::Kind::Int: return ArgClass::Int;
    case Arg::Kind::Float: return ArgClass::Float;
    case Arg::Kind::String: return ArgClass::String;
    case Arg::Kind::DType: return ArgClass::DType;
    case Arg::Kind::Device: return ArgClass::Device;
    case Arg::Kind::Layout: return ArgClass::Layout;
    case Arg::Kind::MemoryFormat: return ArgClass::MemoryFormat;
    case Arg::Kind::Node: return classify(a);
    case Arg::Kind::List: return ArgClass::Sequence;
  }
  return ArgClass::Other;
}

Shape shape_of(const Arg& a, const ArgClassifier& classify) {
  Shape s;
  s.cls = literal_class(a, classify);
  if (a.kind != Arg::Kind::List) return s;
  s.list = true;
  for (const Arg& item : a.items) {
    switch (literal_class(item, classify)) {
      case ArgClass::Tensor: s.has_tensor = true; break;
      case ArgClass::None: s.has_none = true; break;
      case ArgClass::Int: s.has_int = true; break;
      case ArgClass::Float: s.has_float = true; break;
      case ArgClass::Bool: s.has_bool = true; break;
      case ArgClass::String: s.has_string = true; break;
      default: s.has_other = true; break;
    }
  }
  return s;
}

bool is_number(ArgClass c) {
  return c == ArgClass::Int || c == ArgClass::Float || c == ArgClass::Bool;
}

// Whether an argument of shape s fits a parameter: exactly, or (loose) as PyTorch's dispatcher
// and symshape's hand-written graphs allow (a number for a Tensor, 0/1 for a bool, ...).
bool fits(const Param& p, const Shape& s, bool loose) {
  if (s.cls == ArgClass::None) return p.optional || p.type == ParamType::Any || loose;
  if (s.cls == ArgClass::Other) return true;  // a value the binder cannot see into
  auto list_of = [&](bool tensor, bool none, bool ints, bool floats, bool bools, bool strings) {
    if (s.cls == ArgClass::Sequence && !s.list) return true;  // a node's tuple: unknown items
    if (!s.list) return false;
    return (tensor || !s.has_tensor) && (none || !s.has_none) && (ints || !s.has_int) &&
           (floats || !s.has_float) && (bools || !s.has_bool) && (strings || !s.has_string);
  };
  switch (p.type) {
    case ParamType::Any: return true;
    case ParamType::Tensor: return s.cls == ArgClass::Tensor || (loose && is_number(s.cls));
    case ParamType::TensorList: return list_of(true, loose, false, false, false, false);
    case ParamType::OptionalTensorList: return list_of(true, true, false, false, false, false);
    case ParamType::Int:  // loosely also a one-int list, as hand-written graphs pass a dim
      return s.cls == ArgClass::Int ||
             (loose && (s.cls == ArgClass::Bool ||
                        (s.list && list_of(false, false, true, false, false, false))));
    case ParamType::IntList:
      return s.cls == ArgClass::Int || list_of(false, false, true, false, loose, false);
    case ParamType::Float:
      return s.cls == ArgClass::Float || s.cls == ArgClass::Int ||
             (loose && s.cls == ArgClass::Bool);
    case ParamType::FloatList:
      return is_number(s.cls) || list_of(false, false, true, true, loose, false);
    case ParamType::Bool: return s.cls == ArgClass::Bool || (loose && s.cls == ArgClass::Int);
    case ParamType::BoolList:
      return s.cls == ArgClass::Bool || list_of(false, false, loose, false, true, false);
    case ParamType::Str: return s.cls == ArgClass::String;
    case ParamType::StrList:
      return s.cls == ArgClass::String || list_of(false, false, false, false, false, true);
    case ParamType::Scalar: return is_number(s.cls) || (loose && s.cls == ArgClass::Tensor);
    case ParamType::ScalarList:
      return is_number(s.cls) || list_of(false, false, true, true, true, false);
    case ParamType::ScalarType:
      return s.cls == ArgClass::DType ||
             (loose && (s.cls == ArgClass::String || s.cls == ArgClass::Int));
    case ParamType::Layout: return s.cls == ArgClass::Layout || s.cls == ArgClass::String;
    case ParamType::Device: return s.cls == ArgClass::Device || s.cls == ArgClass::String;
    case ParamType::MemoryFormat:
      return s.cls == ArgClass::MemoryFormat || s.cls == ArgClass::String;
    case ParamType::Generator: return false;  // only None, handled above
  }
  return false;
}

std::string describe(const Arg& a, const Shape& s) {
  switch (s.cls) {
    case ArgClass::Tensor: return "a tensor " + a.str();
    case ArgClass::Sequence: return "a list " + a.str();
    case ArgClass::None: return "None";
    default: return a.str();
  }
}

}  // namespace

struct Binder {
  const Node& node;
  const ArgClassifier& classify;

  // Binds to s; on failure returns false and says why in `why`.
  bool bind(const OpSchema& s, bool loose, BoundArgs& out, std::string& why) const {
    BoundArgs b;
    b.schema_ = &s;
    b.given_.assign(s.params.size(), nullptr);
    size_t positional = s.positional_count();
    if (node.args.size() > positional) {
      why = "takes " + std::to_string(positional) + " positional argument" +
            (positional == 1 ? "" : "s") + ", got " + std::to_string(node.args.size());
      return false;
    }
    auto place = [&](size_t i, const Arg& a) {
      const Param& p = s.params[i];
      Shape shape = shape_of(a, classify);
      if (!fits(p, shape, loose)) {
        why = "argument '" + p.name + "' is " + p.type_text + ", got " + describe(a, shape);
        return false;
      }
      b.given_[i] = &a;
      return true;
    };
    for (size_t i = 0; i < node.args.size(); ++i)
      if (!place(i, node.args[i])) return false;
    for (const auto& [key, value] : node.kwargs) {
      auto i = s.position(key);
      if (!i) {
        why = "has no argument '" + key + "'";
        return false;
      }
      if (b.given_[*i]) {
        why = "argument '" + key + "' is given twice (by position and by keyword)";
        return false;
      }
      if (!place(*i, value)) return false;
    }
    if (!loose) {
      for (size_t i = 0; i < s.params.size(); ++i) {
        const Param& p = s.params[i];
        if (!b.given_[i] && !p.default_value && !p.optional) {
          why = "argument '" + p.name + "' is missing";
          return false;
        }
      }
    }
    out = std::move(b);
    return true;
  }
};

BoundArgs bind_arguments(const Node& node, const std::vector<const OpSchema*>& overloads,
                         const ArgClassifier& classify) {
  if (overloads.empty()) throw Error("no operator signature for " + node.target);
  Binder binder{node, classify};
  BoundArgs out;
  std::string why;
  for (bool loose : {false, true})
    for (const OpSchema* s : overloads)
      if (binder.bind(*s, loose, out, why)) return out;
  // None fits: say why for each (a few), loosely, which is the kinder reading.
  std::string message;
  if (overloads.size() == 1) {
    binder.bind(*overloads[0], true, out, why);
    message = overloads[0]->target() + " " + why + "; its signature: " + overloads[0]->str();
  } else {
    message = "no overload of " + overloads[0]->name + " takes these arguments:";
    size_t shown = 0;
    for (const OpSchema* s : overloads) {
      if (shown++ == 6) {
        message += "\n  ... and " + std::to_string(overloads.size() - 6) + " more";
        break;
      }
      binder.bind(*s, true, out, why);
      message += "\n  " + s->str() + ": " + why;
    }
  }
  throw Error(message);
}

}  // namespace symshape

namespace symshape::detail {

std::string argument_label(const OpSchema* schema, std::string_view name) {
  std::string label = "argument '" + std::string(name) + "'";
  auto i = schema ? schema->position(name) : std::nullopt;
  if (i && !schema->params[*i].kwarg_only) label += " (position " + std::to_string(*i) + ")";
  return label;
}

BoundArgs bind_call(const Node& node, const ArgClassifier& classify) {
  return bind_arguments(node, SchemaTable::instance().overloads(node.target), classify);
}

const Arg* read_argument(const Node& node, const BoundArgs& bound, std::string_view name) {
  if (bound.declares(name)) return bound.get(name);
  // A rule shared by several overloads (or by an op and its in-place form) asks for a parameter
  // only some of them have; a name none of them has is a misspelling in the rule or kernel.
  TargetName t = parse_target(node.target);
  std::string functional = t.functional();
  for (std::string_view packet : {t.packet, parse_target(functional).packet}) {
    if (packet.empty()) continue;
    for (const OpSchema* s : SchemaTable::instance().overloads(packet))
      if (s->position(name)) return nullptr;
  }
  throw Error("internal: " + node.target + " reads an argument '" + std::string(name) +
              "', which none of its signatures has (" + bound.schema()->str() + ")");
}

}  // namespace symshape::detail
