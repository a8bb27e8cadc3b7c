#include "json.h"

#include <unordered_set>

#include "reader_util.h"

namespace ndp::io {

const char* json_kind_name(JsonValue::Kind k) {
  switch (k) {
    case JsonValue::Kind::kNull: return "null";
    case JsonValue::Kind::kBool: return "boolean";
    case JsonValue::Kind::kInt: return "integer";
    case JsonValue::Kind::kString: return "string";
    case JsonValue::Kind::kArray: return "array";
    case JsonValue::Kind::kObject: return "object";
  }
  return "?";
}

namespace {

class JsonParser {
 public:
  JsonParser(const char* t, size_t n, const std::string& what, uint64_t base, const JsonLimits& lim)
      : t_(t), n_(n), what_(what), base_(base), lim_(lim) {}

  Status parse_document(JsonValue* v) {
    values_left_ = lim_.max_values;
    NDP_RETURN_IF_ERROR(value(v, 0));
    return end_of_document();
  }

  // The top-level object, one member tree at a time (parse_json_object).
  Status parse_members(const std::function<Status(std::string&, JsonValue&)>& fn) {
    ws();
    if (eof() || c() != '{') return err("expected a JSON object");
    Status st = members(1, [&](std::string& key) {
      values_left_ = lim_.max_values;
      JsonValue v;
      Status vs = value(&v, 1);
      return vs.ok() ? fn(key, v) : vs;
    });
    return st.ok() ? end_of_document() : st;
  }

 private:
  Status err(const std::string& m) const { return reader_error(what_, base_ + i_, "JSON: " + m); }
  bool eof() const { return i_ >= n_; }
  unsigned char c() const { return static_cast<unsigned char>(t_[i_]); }
  void ws() {
    while (!eof() && (c() == ' ' || c() == '\t' || c() == '\n' || c() == '\r')) ++i_;
  }

  Status end_of_document() {
    ws();
    if (i_ != n_) return err("unexpected data after the JSON value");
    return Status::Ok();
  }

  Status value(JsonValue* v, int depth) {
    ws();
    if (eof()) return err("unexpected end of text, expected a value");
    if (values_left_ == 0) return err("more than " + std::to_string(lim_.max_values) + " values");
    --values_left_;
    v->pos = base_ + i_;
    switch (c()) {
      case '{': return object(v, depth + 1);
      case '[': return array(v, depth + 1);
      case '"': v->kind = JsonValue::Kind::kString; return string(&v->s);
      case 't': return literal("true", v, JsonValue::Kind::kBool, true);
      case 'f': return literal("false", v, JsonValue::Kind::kBool, false);
      case 'n': return literal("null", v, JsonValue::Kind::kNull, false);
      default:
        if (c() == '-' || (c() >= '0' && c() <= '9')) return integer(v);
        return err(std::string("unexpected character '") + static_cast<char>(c()) + "'");
    }
  }

  Status literal(const char* word, JsonValue* v, JsonValue::Kind k, bool b) {
    size_t len = std::strlen(word);
    if (n_ - i_ < len || std::memcmp(t_ + i_, word, len) != 0) return err("invalid literal");
    i_ += len;
    v->kind = k;
    v->b = b;
    return Status::Ok();
  }

  Status integer(JsonValue* v) {
    bool neg = false;
    if (c() == '-') {
      neg = true;
      ++i_;
    }
    if (eof() || c() < '0' || c() > '9') return err("'-' not followed by a digit");
    if (c() == '0' && i_ + 1 < n_ && t_[i_ + 1] >= '0' && t_[i_ + 1] <= '9')
      return err("number with a leading zero");
    uint64_t m = 0;
    const uint64_t limit = neg ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
    while (!eof() && c() >= '0' && c() <= '9') {
      uint64_t d = c() - '0';
      if (m > (limit - d) / 10) return err("integer does not fit in 64 bits");
      m = m * 10 + d;
      ++i_;
    }
    if (!eof() && (c() == '.' || c() == 'e' || c() == 'E'))
      return err("non-integer numbers are not supported in a safetensors header");
    v->kind = JsonValue::Kind::kInt;
    v->i = neg ? static_cast<int64_t>(0 - m) : static_cast<int64_t>(m);
    return Status::Ok();
  }

  Status hex4(uint32_t* cp) {
    if (n_ - i_ < 4) return err("truncated \\u escape");
    uint32_t r = 0;
    for (int k = 0; k < 4; ++k) {
      char h = t_[i_ + k];
      uint32_t d;
      if (h >= '0' && h <= '9') d = h - '0';
      else if (h >= 'a' && h <= 'f') d = h - 'a' + 10;
      else if (h >= 'A' && h <= 'F') d = h - 'A' + 10;
      else return err("invalid hex digit in \\u escape");
      r = r * 16 + d;
    }
    i_ += 4;
    *cp = r;
    return Status::Ok();
  }

  static void put_utf8(uint32_t cp, std::string* s) {
    if (cp < 0x80) {
      s->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      s->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      s->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      s->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  Status escape(std::string* s) {
    if (eof()) return err("truncated escape");
    char e = t_[i_++];
    switch (e) {
      case '"': s->push_back('"'); return Status::Ok();
      case '\\': s->push_back('\\'); return Status::Ok();
      case '/': s->push_back('/'); return Status::Ok();
      case 'b': s->push_back('\b'); return Status::Ok();
      case 'f': s->push_back('\f'); return Status::Ok();
      case 'n': s->push_back('\n'); return Status::Ok();
      case 'r': s->push_back('\r'); return Status::Ok();
      case 't': s->push_back('\t'); return Status::Ok();
      case 'u': break;
      default: --i_; return err("invalid escape character");
    }
    uint32_t cp;
    NDP_RETURN_IF_ERROR(hex4(&cp));
    if (cp >= 0xDC00 && cp <= 0xDFFF) return err("unpaired low surrogate in \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (n_ - i_ < 2 || t_[i_] != '\\' || t_[i_ + 1] != 'u') return err("unpaired high surrogate in \\u escape");
      i_ += 2;
      uint32_t lo;
      NDP_RETURN_IF_ERROR(hex4(&lo));
      if (lo < 0xDC00 || lo > 0xDFFF) return err("high surrogate not followed by a low surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    put_utf8(cp, s);
    return Status::Ok();
  }

  // One UTF-8 encoded code point starting at i_ (first byte >= 0x80), validated strictly.
  Status utf8(std::string* s) {
    unsigned char b0 = c();
    int len;
    uint32_t cp, min;
    if (b0 >= 0xC2 && b0 <= 0xDF) { len = 2; cp = b0 & 0x1F; min = 0x80; }
    else if (b0 >= 0xE0 && b0 <= 0xEF) { len = 3; cp = b0 & 0x0F; min = 0x800; }
    else if (b0 >= 0xF0 && b0 <= 0xF4) { len = 4; cp = b0 & 0x07; min = 0x10000; }
    else return err("invalid UTF-8 lead byte in string");
    if (n_ - i_ < static_cast<size_t>(len)) return err("truncated UTF-8 sequence in string");
    for (int k = 1; k < len; ++k) {
      unsigned char b = static_cast<unsigned char>(t_[i_ + k]);
      if ((b & 0xC0) != 0x80) return err("invalid UTF-8 continuation byte in string");
      cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return err("invalid UTF-8 code point in string");
    s->append(t_ + i_, len);
    i_ += len;
    return Status::Ok();
  }

  Status string(std::string* s) {
    ++i_;  // opening quote
    for (;;) {
      if (eof()) return err("unterminated string");
      unsigned char ch = c();
      if (ch == '"') {
        ++i_;
        return Status::Ok();
      }
      if (ch < 0x20) return err("control character in string");
      if (ch == '\\') {
        ++i_;
        NDP_RETURN_IF_ERROR(escape(s));
      } else if (ch >= 0x80) {
        NDP_RETURN_IF_ERROR(utf8(s));
      } else {
        s->push_back(static_cast<char>(ch));
        ++i_;
      }
    }
  }

  Status array(JsonValue* v, int depth) {
    if (depth > kJsonMaxDepth) return err("nesting deeper than " + std::to_string(kJsonMaxDepth));
    v->kind = JsonValue::Kind::kArray;
    ++i_;
    ws();
    if (!eof() && c() == ']') {
      ++i_;
      return Status::Ok();
    }
    for (;;) {
      v->arr.emplace_back();
      NDP_RETURN_IF_ERROR(value(&v->arr.back(), depth));
      ws();
      if (eof()) return err("unterminated array");
      if (c() == ']') {
        ++i_;
        return Status::Ok();
      }
      if (c() != ',') return err("expected ',' or ']' in array");
      ++i_;
    }
  }

  Status object(JsonValue* v, int depth) {
    v->kind = JsonValue::Kind::kObject;
    return members(depth, [&](std::string& key) {
      v->keys.push_back(std::move(key));
      v->vals.emplace_back();
      return value(&v->vals.back(), depth);
    });
  }

  // Object syntax at i_ ('{'); member(key) parses the value that follows "key":.
  Status members(int depth, const std::function<Status(std::string&)>& member) {
    if (depth > kJsonMaxDepth) return err("nesting deeper than " + std::to_string(kJsonMaxDepth));
    std::unordered_set<std::string> keys;
    ++i_;
    ws();
    if (!eof() && c() == '}') {
      ++i_;
      return Status::Ok();
    }
    for (;;) {
      ws();
      if (eof() || c() != '"') return err("expected a string key in object");
      size_t key_pos = i_;
      std::string key;
      NDP_RETURN_IF_ERROR(string(&key));
      if (!keys.insert(key).second) {  // hash set: linear in the number of keys
        i_ = key_pos;
        return err("duplicate key \"" + key + "\"");
      }
      ws();
      if (eof() || c() != ':') return err("expected ':' after object key");
      ++i_;
      NDP_RETURN_IF_ERROR(member(key));
      ws();
      if (eof()) return err("unterminated object");
      if (c() == '}') {
        ++i_;
        return Status::Ok();
      }
      if (c() != ',') return err("expected ',' or '}' in object");
      ++i_;
    }
  }

  const char* t_;
  size_t n_;
  size_t i_ = 0;
  const std::string& what_;
  uint64_t base_;
  JsonLimits lim_;
  uint64_t values_left_ = 0;
};

}  // namespace

Result<JsonValue> parse_json(const char* text, size_t n, const std::string& what, uint64_t base,
                             const JsonLimits& limits) {
  JsonValue v;
  JsonParser p(text, n, what, base, limits);
  NDP_RETURN_IF_ERROR(p.parse_document(&v));
  return v;
}

Status parse_json_object(const char* text, size_t n, const std::string& what, uint64_t base,
                         const JsonLimits& member_limits,
                         const std::function<Status(std::string& key, JsonValue& value)>& fn) {
  JsonParser p(text, n, what, base, member_limits);
  return p.parse_members(fn);
}

}  // namespace ndp::io
