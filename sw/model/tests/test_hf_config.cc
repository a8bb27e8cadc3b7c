// Hugging Face config.json parsing for safetensors Llama models.
#include <gtest/gtest.h>

#include "ndp/llama.h"

namespace {

// Shape of Llama 3.2 1B's config.json (values as published).
const char* kLlama32 = R"({
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "bos_token_id": 128000,
  "eos_token_id": [128001, 128008, 128009], "head_dim": 64, "hidden_act": "silu",
  "hidden_size": 2048, "intermediate_size": 8192, "max_position_embeddings": 131072,
  "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05, "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
  "original_max_position_embeddings": 8192, "rope_type": "llama3"}, "rope_theta": 500000.0,
  "tie_word_embeddings": true, "torch_dtype": "bfloat16", "vocab_size": 128256, "name": "a \"quoted\" \u00e9"
})";

TEST(HfConfig, ParsesLlama32) {
  ndp::LlamaConfig c;
  ndp::Status st = ndp::parse_hf_llama_config(kLlama32, c);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(c.dim, 2048);
  EXPECT_EQ(c.hidden_dim, 8192);
  EXPECT_EQ(c.n_layers, 16);
  EXPECT_EQ(c.n_heads, 32);
  EXPECT_EQ(c.n_kv_heads, 8);
  EXPECT_EQ(c.head_size, 64);
  EXPECT_EQ(c.vocab_size, 128256);
  EXPECT_EQ(c.seq_len, 131072);
  EXPECT_FLOAT_EQ(c.norm_eps, 1e-5f);
  EXPECT_FLOAT_EQ(c.rope_theta, 500000.0f);
  EXPECT_FLOAT_EQ(c.rope_scale_factor, 32.0f);
  EXPECT_EQ(c.rope_orig_context, 8192);
  EXPECT_EQ(c.rope_style, ndp::RopeStyle::kHalf);
  EXPECT_TRUE(ndp::validate_config(c).ok());
}

TEST(HfConfig, DefaultsKvHeadsAndHeadDim) {
  ndp::LlamaConfig c;
  ASSERT_TRUE(ndp::parse_hf_llama_config(R"({"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": 100, "max_position_embeddings": 256})", c).ok());
  EXPECT_EQ(c.n_kv_heads, 4);
  EXPECT_EQ(c.head_size, 16);
  EXPECT_FLOAT_EQ(c.rope_scale_factor, 0.0f);
}

TEST(HfConfig, Errors) {
  ndp::LlamaConfig c;
  EXPECT_FALSE(ndp::parse_hf_llama_config("", c).ok());
  EXPECT_FALSE(ndp::parse_hf_llama_config("[1, 2]", c).ok());
  EXPECT_FALSE(ndp::parse_hf_llama_config(R"({"hidden_size": 64,)", c).ok());
  EXPECT_FALSE(ndp::parse_hf_llama_config(R"({"hidden_size": "64"})", c).ok());
  auto st = ndp::parse_hf_llama_config(R"({"hidden_size": 64, "intermediate_size": 128})", c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("num_hidden_layers"), std::string::npos) << st.message();
  const std::string yarn = R"({"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": 100, "max_position_embeddings": 256,
      "rope_scaling": {"type": "yarn", "factor": 4.0}})";
  EXPECT_FALSE(ndp::parse_hf_llama_config(yarn, c).ok());
  std::string deep(100, '[');
  EXPECT_FALSE(ndp::parse_hf_llama_config(deep, c).ok());
  const std::string gpt2 = R"({"model_type": "gpt2", "hidden_size": 64, "intermediate_size": 128,
      "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "max_position_embeddings": 256})";
  st = ndp::parse_hf_llama_config(gpt2, c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("gpt2"), std::string::npos) << st.message();
  // Issue 15 (fuzz_hf_config): a double beyond FLT_MAX was converted to float (undefined behaviour).
  const std::string big = R"({"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
      "num_attention_heads": 4, "vocab_size": 100, "max_position_embeddings": 256, "rms_norm_eps": 1e300})";
  st = ndp::parse_hf_llama_config(big, c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("rms_norm_eps is out of the float range"), std::string::npos) << st.message();
}

}  // namespace
