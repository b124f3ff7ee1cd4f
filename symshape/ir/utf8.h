// UTF-8 decoding as Python's strict codec does it: a name is bytes, and the printers must say
// exactly which bytes, whatever they are.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace symshape::detail {

// The length of the well-formed UTF-8 sequence starting at text[i] (1 to 4), with its code point
// in cp; 0 when none starts there (a stray continuation byte, an overlong form, a surrogate, a
// truncated sequence, a code point above U+10FFFF).
inline size_t utf8_sequence(std::string_view text, size_t i, char32_t& cp) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char b0 = byte(i);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  size_t length = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte (Unicode table 3-7)
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  char32_t value = b0 & (0x7F >> length);
  for (size_t k = 1; k < length; ++k) {
    unsigned char b = byte(i + k);
    if (k > 1 && (b < 0x80 || b > 0xBF)) return 0;
    value = (value << 6) | (b & 0x3F);
  }
  cp = value;
  return length;
}

// Text that is UTF-8 whatever bytes it was made of: a byte that starts no well-formed UTF-8
// sequence becomes the four characters `\xNN` (a name read from a damaged file keeps saying
// which byte it holds); everything else is kept. For messages and JSON documents.
inline std::string escape_invalid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const size_t length = utf8_sequence(text, i, cp);
    if (length == 0) {
      static constexpr char kHex[] = "0123456789abcdef";
      const auto byte = static_cast<unsigned char>(text[i]);
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

}  // namespace symshape::detail
