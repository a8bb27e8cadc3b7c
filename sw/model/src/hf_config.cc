// parse_hf_llama_config: the fields of a Hugging Face Llama config.json the forward pass needs
// (JSON parsed by nlohmann::json, without exceptions).
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "ndp/llama.h"

namespace ndp {
namespace {

using json = nlohmann::json;

// Integer field: required unless def >= 0 is given.
Status int_field(const json& o, const char* k, int& out, int def = -1) {
  auto it = o.find(k);
  if (it == o.end() || it->is_null()) {
    if (def < 0) return Status::Error(std::string("field ") + k + " missing");
    out = def;
    return Status::Ok();
  }
  if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > (int64_t{1} << 30))
    return Status::Error(std::string("field ") + k + " is not a non-negative integer");
  out = static_cast<int>(it->get<int64_t>());
  return Status::Ok();
}

// Number field; absent or null keeps the default. The value must be a finite float: converting a
// double beyond FLT_MAX to float is undefined behaviour, so the range is checked first.
Status float_field(const json& o, const char* k, float& out) {
  auto it = o.find(k);
  if (it == o.end() || it->is_null()) return Status::Ok();
  if (!it->is_number()) return Status::Error(std::string("field ") + k + " is not a number");
  const double d = it->get<double>();
  if (!(std::fabs(d) <= static_cast<double>(std::numeric_limits<float>::max())))
    return Status::Error(std::string("field ") + k + " is out of the float range");
  out = static_cast<float>(d);
  return Status::Ok();
}

Status rope_scaling(const json& rs, LlamaConfig& c) {
  if (rs.is_null()) return Status::Ok();
  if (!rs.is_object()) return Status::Error("rope_scaling is neither an object nor null");
  std::string type;
  for (const char* k : {"rope_type", "type"})
    if (auto it = rs.find(k); it != rs.end() && it->is_string()) {
      type = it->get<std::string>();
      break;
    }
  if (type.empty() || type == "default") return Status::Ok();
  if (type != "llama3") return Status::Error("rope_scaling type '" + type + "' is not supported (only llama3)");
  NDP_RETURN_IF_ERROR(float_field(rs, "factor", c.rope_scale_factor));
  NDP_RETURN_IF_ERROR(float_field(rs, "low_freq_factor", c.rope_low_freq_factor));
  NDP_RETURN_IF_ERROR(float_field(rs, "high_freq_factor", c.rope_high_freq_factor));
  NDP_RETURN_IF_ERROR(int_field(rs, "original_max_position_embeddings", c.rope_orig_context, 8192));
  if (!(c.rope_scale_factor > 0.0f) || !(c.rope_high_freq_factor > c.rope_low_freq_factor))
    return Status::Error("rope_scaling: factors out of range");
  return Status::Ok();
}

}  // namespace

Status parse_hf_llama_config(const std::string& text, LlamaConfig& c) {
  const json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return Status::Error("not valid JSON");
  if (!root.is_object()) return Status::Error("top level is not an object");
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
  if (auto mt = root.find("model_type"); mt != root.end() && mt->is_string()) {
    const std::string t = mt->get<std::string>();
    if (t != "llama" && t != "mistral") return Status::Error("model_type '" + t + "' is not a Llama-family decoder");
  }
  if (auto rs = root.find("rope_scaling"); rs != root.end()) NDP_RETURN_IF_ERROR(rope_scaling(*rs, c));
  return Status::Ok();
}

}  // namespace ndp
