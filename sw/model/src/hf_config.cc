// parse_hf_llama_config: the few fields of a Hugging Face Llama config.json the forward pass needs.
// A small strict JSON reader (objects, arrays, strings, numbers, true/false/null); errors give the
// byte offset.
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "ndp/llama.h"

namespace ndp {
namespace {

struct JValue {
  enum Kind { kNull, kBool, kNum, kStr, kObj, kArr } kind = kNull;
  double num = 0;
  std::string str;
  std::map<std::string, std::shared_ptr<JValue>> obj;
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& s) : s_(s) {}

  Status parse(JValue& out) {
    NDP_RETURN_IF_ERROR(value(out, 0));
    ws();
    if (i_ != s_.size()) return err("trailing characters");
    return Status::Ok();
  }

 private:
  Status err(const std::string& what) const { return Status::Error(what + " at byte " + std::to_string(i_)); }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool lit(const char* w) {
    const std::string t(w);
    if (s_.compare(i_, t.size(), t) != 0) return false;
    i_ += t.size();
    return true;
  }

  Status string(std::string& out) {
    if (i_ >= s_.size() || s_[i_] != '"') return err("expected a string");
    ++i_;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\') {
        if (i_ + 1 >= s_.size()) return err("unterminated escape");
        const char e = s_[i_ + 1];
        if (e == 'u') {
          if (i_ + 6 > s_.size()) return err("short \\u escape");
          out += '?';  // key names we need are ASCII; other code points are not interpreted
          i_ += 6;
          continue;
        }
        const std::string from = "\"\\/bfnrt", to = "\"\\/\b\f\n\r\t";
        auto k = from.find(e);
        if (k == std::string::npos) return err("bad escape");
        out += to[k];
        i_ += 2;
        continue;
      }
      out += s_[i_++];
    }
    if (i_ >= s_.size()) return err("unterminated string");
    ++i_;
    return Status::Ok();
  }

  Status value(JValue& v, int depth) {
    if (depth > 64) return err("nesting too deep");
    ws();
    if (i_ >= s_.size()) return err("unexpected end");
    const char ch = s_[i_];
    if (ch == '{') return object(v, depth);
    if (ch == '[') return array(v, depth);
    if (ch == '"') {
      v.kind = JValue::kStr;
      return string(v.str);
    }
    if (lit("true")) {
      v.kind = JValue::kBool;
      v.num = 1;
      return Status::Ok();
    }
    if (lit("false")) {
      v.kind = JValue::kBool;
      v.num = 0;
      return Status::Ok();
    }
    if (lit("null")) {
      v.kind = JValue::kNull;
      return Status::Ok();
    }
    const char* begin = s_.c_str() + i_;
    char* end = nullptr;
    v.num = std::strtod(begin, &end);
    if (end == begin || !std::isfinite(v.num)) return err("expected a value");
    v.kind = JValue::kNum;
    i_ += static_cast<size_t>(end - begin);
    return Status::Ok();
  }

  Status object(JValue& v, int depth) {
    v.kind = JValue::kObj;
    ++i_;
    ws();
    if (i_ < s_.size() && s_[i_] == '}') {
      ++i_;
      return Status::Ok();
    }
    for (;;) {
      ws();
      std::string key;
      NDP_RETURN_IF_ERROR(string(key));
      ws();
      if (i_ >= s_.size() || s_[i_] != ':') return err("expected ':'");
      ++i_;
      auto child = std::make_shared<JValue>();
      NDP_RETURN_IF_ERROR(value(*child, depth + 1));
      v.obj[key] = child;
      ws();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == '}') {
        ++i_;
        return Status::Ok();
      }
      return err("expected ',' or '}'");
    }
  }

  Status array(JValue& v, int depth) {
    v.kind = JValue::kArr;
    ++i_;
    ws();
    if (i_ < s_.size() && s_[i_] == ']') {
      ++i_;
      return Status::Ok();
    }
    for (;;) {
      JValue elem;  // array contents are not needed; parsed for validity only
      NDP_RETURN_IF_ERROR(value(elem, depth + 1));
      ws();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        return Status::Ok();
      }
      return err("expected ',' or ']'");
    }
  }

  const std::string& s_;
  size_t i_ = 0;
};

const JValue* field(const JValue& o, const char* k) {
  auto it = o.obj.find(k);
  return it == o.obj.end() ? nullptr : it->second.get();
}

// Integer field: required unless def >= 0 is given.
Status int_field(const JValue& o, const char* k, int& out, int def = -1) {
  const JValue* v = field(o, k);
  if (!v || v->kind == JValue::kNull) {
    if (def < 0) return Status::Error(std::string("field ") + k + " missing");
    out = def;
    return Status::Ok();
  }
  if (v->kind != JValue::kNum || v->num != std::floor(v->num) || v->num < 0 || v->num > (1 << 30))
    return Status::Error(std::string("field ") + k + " is not a non-negative integer");
  out = static_cast<int>(v->num);
  return Status::Ok();
}

Status float_field(const JValue& o, const char* k, float& out) {
  const JValue* v = field(o, k);
  if (!v || v->kind == JValue::kNull) return Status::Ok();  // keep the default
  if (v->kind != JValue::kNum) return Status::Error(std::string("field ") + k + " is not a number");
  out = static_cast<float>(v->num);
  return Status::Ok();
}

}  // namespace

Status parse_hf_llama_config(const std::string& json, LlamaConfig& c) {
  JValue root;
  NDP_RETURN_IF_ERROR(JsonReader(json).parse(root));
  if (root.kind != JValue::kObj) return Status::Error("top level is not an object");
  NDP_RETURN_IF_ERROR(int_field(root, "hidden_size", c.dim));
  NDP_RETURN_IF_ERROR(int_field(root, "intermediate_size", c.hidden_dim));
  NDP_RETURN_IF_ERROR(int_field(root, "num_hidden_layers", c.n_layers));
  NDP_RETURN_IF_ERROR(int_field(root, "num_attention_heads", c.n_heads));
  NDP_RETURN_IF_ERROR(int_field(root, "num_key_value_heads", c.n_kv_heads, c.n_heads));
  NDP_RETURN_IF_ERROR(int_field(root, "vocab_size", c.vocab_size));
  NDP_RETURN_IF_ERROR(int_field(root, "max_position_embeddings", c.seq_len));
  if (c.n_heads <= 0) return Status::Error("num_attention_heads must be positive");
  NDP_RETURN_IF_ERROR(int_field(root, "head_dim", c.head_size, c.dim / c.n_heads));
  c.norm_eps = 1e-6f;
  c.rope_theta = 10000.0f;
  NDP_RETURN_IF_ERROR(float_field(root, "rms_norm_eps", c.norm_eps));
  NDP_RETURN_IF_ERROR(float_field(root, "rope_theta", c.rope_theta));
  c.rope_style = RopeStyle::kHalf;
  if (const JValue* mt = field(root, "model_type"); mt && mt->kind == JValue::kStr && mt->str != "llama" &&
                                                     mt->str != "mistral")
    return Status::Error("model_type '" + mt->str + "' is not a Llama-family decoder");
  const JValue* rs = field(root, "rope_scaling");
  if (rs && rs->kind == JValue::kObj) {
    const JValue* type = field(*rs, "rope_type");
    if (!type) type = field(*rs, "type");
    const std::string t = type && type->kind == JValue::kStr ? type->str : "";
    if (t == "default" || t.empty()) return Status::Ok();
    if (t != "llama3") return Status::Error("rope_scaling type '" + t + "' is not supported (only llama3)");
    NDP_RETURN_IF_ERROR(float_field(*rs, "factor", c.rope_scale_factor));
    NDP_RETURN_IF_ERROR(float_field(*rs, "low_freq_factor", c.rope_low_freq_factor));
    NDP_RETURN_IF_ERROR(float_field(*rs, "high_freq_factor", c.rope_high_freq_factor));
    NDP_RETURN_IF_ERROR(int_field(*rs, "original_max_position_embeddings", c.rope_orig_context, 8192));
    if (!(c.rope_scale_factor > 0.0f) || !(c.rope_high_freq_factor > c.rope_low_freq_factor))
      return Status::Error("rope_scaling: factors out of range");
  } else if (rs && rs->kind != JValue::kNull) {
    return Status::Error("rope_scaling is neither an object nor null");
  }
  return Status::Ok();
}

}  // namespace ndp
