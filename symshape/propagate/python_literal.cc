// Names as Python string literals: the guard text pastes them into `L['...']`, and a runtime
// evaluates that text, so a name must never end the literal or the line.
#include <cstdio>

#include "symshape/ir/utf8.h"
#include "symshape/propagate.h"

namespace symshape {

namespace {

std::string hex_escape(char prefix, unsigned long value, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\%c%0*lx", prefix, digits, value);
  return buf;
}

}  // namespace

std::string python_string_literal(std::string_view text) {
  std::string out = "'";
  for (size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    size_t length = detail::utf8_sequence(text, i, cp);
    if (length == 0) {
      // A byte that is no UTF-8: Python's surrogateescape code point U+DC80..U+DCFF, which
      // encode('utf-8', 'surrogateescape') turns back into the byte.
      out += hex_escape('u', 0xDC00 + static_cast<unsigned char>(text[i]), 4);
      ++i;
      continue;
    }
    i += length;
    switch (cp) {
      case '\\': out += "\\\\"; continue;
      case '\'': out += "\\'"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      default: break;
    }
    // ASCII only, as Python's ascii() writes it: no control character, no line or paragraph
    // separator, no bidirectional override can reach the guard text.
    if (cp >= 0x20 && cp < 0x7F) {
      out += static_cast<char>(cp);
    } else if (cp <= 0xFF) {
      out += hex_escape('x', cp, 2);
    } else if (cp <= 0xFFFF) {
      out += hex_escape('u', cp, 4);
    } else {
      out += hex_escape('U', cp, 8);
    }
  }
  return out + "'";
}

}  // namespace symshape
