// safetensors reader: a synthetic file written by the test, strict JSON, dtype and offset checks.
#include <gtest/gtest.h>

#include "ndp/model_reader.h"
#include "synth.h"
#include "test_util.h"

namespace ndp {
namespace {

using synth::StTensor;
using testing::expect_error;

Result<Model> parse(const std::vector<uint8_t>& b) { return parse_safetensors(b.data(), b.size(), "t.st"); }

// A file with the given raw JSON header (padded) and `data_bytes` zero bytes of data.
std::vector<uint8_t> with_header(std::string h, size_t data_bytes) {
  synth::Bytes b;
  b.u64(h.size());
  b.str(h);
  b.b.resize(b.b.size() + data_bytes, 0);
  return b.b;
}

TEST(Safetensors, ReadsTinyFile) {
  auto r = parse(synth::tiny_safetensors());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Model& m = r.value();
  EXPECT_EQ(m.format, ModelFormat::kSafetensors);
  ASSERT_EQ(m.tensors.size(), 3u);
  EXPECT_EQ(m.tensors[0].name, "a.weight");
  EXPECT_EQ(m.tensors[0].dtype, DType::kFP32);
  EXPECT_EQ(m.tensors[0].shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(m.tensors[0].elements, 6u);
  EXPECT_FLOAT_EQ(testing::f32_at(m.tensors[0], 0), -1.0f);
  EXPECT_FLOAT_EQ(testing::f32_at(m.tensors[0], 5), 1.5f);
  EXPECT_EQ(m.tensors[1].name, "b\xc3\xa9");
  EXPECT_EQ(m.tensors[1].dtype, DType::kFP16);
  EXPECT_EQ(m.tensors[1].data, synth::f16_ramp(4));
  EXPECT_EQ(m.tensors[2].dtype, DType::kBF16);
  EXPECT_EQ(m.tensors[2].data, synth::bf16_ramp(4, 2.0f, 0.25f));
  EXPECT_EQ(m.meta_str.at("__metadata__.format"), "pt");
  EXPECT_EQ(m.meta_str.at("__metadata__.note"), "quote \" backslash \\ tab \t");
}

TEST(Safetensors, JsonEscapesAndScalars) {
  // \u escapes incl. a surrogate pair, a scalar (shape []), and whitespace around tokens.
  std::string h = "{ \"x\\u00e9\\ud83d\\ude00\\n\" : { \"dtype\" : \"F32\" , \"shape\" : [ ] , "
                  "\"data_offsets\" : [ 0 , 4 ] } }";
  auto r = parse(with_header(h, 4));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->tensors[0].name, "x\xc3\xa9\xf0\x9f\x98\x80\n");
  EXPECT_TRUE(r->tensors[0].shape.empty());
  EXPECT_EQ(r->tensors[0].elements, 1u);
}

TEST(Safetensors, RejectsUnsupportedDtypesNamingTheTensor) {
  for (const char* dt : {"I8", "F64", "U8", "BOOL", "F8_E4M3", "I64"}) {
    auto b = synth::safetensors_file({{"ok", "F32", {1}, synth::f32_ramp(1, 0, 0)},
                                      {"layer.q", dt, {8}, std::vector<uint8_t>(64, 0)}});
    expect_error(parse(b), "t.st", std::string("tensor 'layer.q': dtype ") + dt + " is not supported");
  }
  auto b = synth::safetensors_file({{"w", "Q9", {1}, {0}}});
  expect_error(parse(b), "t.st", "tensor 'w': unknown dtype Q9");
}

TEST(Safetensors, RejectsBadOffsets) {
  const std::string e = R"("dtype":"F32","shape":[2])";
  expect_error(parse(with_header("{\"a\":{" + e + ",\"data_offsets\":[0,8]},\"b\":{" + e + ",\"data_offsets\":[4,12]}}", 12)),
               "t.st", "tensor 'b' data [4, 12) overlaps tensor 'a' [0, 8)");
  expect_error(parse(with_header("{\"a\":{" + e + ",\"data_offsets\":[0,8]}}", 7)), "t.st",
               "beyond the 7-byte data section");
  expect_error(parse(with_header("{\"a\":{" + e + ",\"data_offsets\":[0,12]}}", 12)), "t.st",
               "span 12 bytes but shape [2] x F32 needs 8");
  expect_error(parse(with_header("{\"a\":{" + e + ",\"data_offsets\":[8,0]}}", 12)), "t.st", "is after end");
  expect_error(parse(with_header("{\"a\":{" + e + ",\"data_offsets\":[0]}}", 12)), "t.st", "must have 2 elements");
  expect_error(parse(with_header("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,0]}}", 0)), "t.st",
               "non-negative");
  expect_error(parse(with_header("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,0]}}", 0)),
               "t.st", "overflows");
  expect_error(parse(with_header("{\"a\":{" + e + ",\"data_offsets\":[0,8],\"x\":1}}", 8)), "t.st",
               "unexpected key \"x\"");
  expect_error(parse(with_header("{\"a\":{" + e + "}}", 8)), "t.st", "needs \"dtype\", \"shape\" and \"data_offsets\"");
  expect_error(parse(with_header("{\"__metadata__\":{\"k\":1}}", 0)), "t.st", "must be a string");
}

TEST(Safetensors, RejectsMalformedJson) {
  const std::pair<const char*, const char*> cases[] = {
      {"{\"a\":01}", "leading zero"},
      {"{\"a\":1.5}", "non-integer"},
      {"{\"a\":\"\\q\"}", "invalid escape"},
      {"{\"a\":\"\\ud800\"}", "unpaired high surrogate"},
      {"{\"a\":\"\xff\"}", "invalid UTF-8"},
      {"{\"a\":\"x", "unterminated string"},
      {"{\"a\":[1,2}", "expected ',' or ']'"},
      // Members are checked as they are parsed (the first error in document order is reported), so
      // these two cases use a valid first member to reach the JSON-level error.
      {"{\"__metadata__\":{},\"__metadata__\":{}}", "duplicate key \"__metadata__\""},
      {"{\"__metadata__\":{}} x", "unexpected data after"},
      {"{\"a\":99999999999999999999}", "does not fit"},
      {"{\"a\":tru}", "invalid literal"},
      {"{\"a\":\"tab\there\"}", "control character"},
  };
  for (const auto& [h, needle] : cases) expect_error(parse(with_header(h, 0)), "t.st", needle);
  std::string deep = "{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}";
  expect_error(parse(with_header(deep, 0)), "t.st", "nesting deeper than 64");
}

TEST(Safetensors, ErrorOffsetsAreFileOffsets) {
  // The leading zero is at JSON position 5, i.e. file offset 8 + 5.
  expect_error(parse(with_header("{\"a\":01}", 0)), "t.st", "leading zero");
  EXPECT_EQ(parse(with_header("{\"a\":01}", 0)).status().message().rfind("t.st: offset 13: ", 0), 0u);
}

TEST(Safetensors, RejectsBadHeaderLength) {
  auto b = synth::tiny_safetensors();
  b[0] = 0xFF;  // header length far beyond the file
  b[1] = 0xFF;
  expect_error(parse(b), "t.st", "header length");
  std::vector<uint8_t> tiny = {1, 0, 0};
  expect_error(parse(tiny), "t.st", "truncated");
  expect_error(parse(with_header("[1,2]", 0)), "t.st", "does not start with '{'");
}

TEST(Safetensors, ManyTensorsParseQuickly) {
  // 20000 tensors: the header parse and overlap check must stay linear-ish (no quadratic step).
  std::vector<StTensor> ts;
  for (int i = 0; i < 20000; ++i) ts.push_back({"t" + std::to_string(i), "F32", {1}, synth::f32_ramp(1, float(i), 0)});
  auto b = synth::safetensors_file(ts);
  auto r = parse(b);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->tensors.size(), 20000u);
  EXPECT_FLOAT_EQ(testing::f32_at(r->tensors[19999], 0), 19999.0f);
}

// Issue 15: a header of `[0,0,...]` cost ~128 bytes of JSON tree per 2 bytes of text (a 100 MiB
// header could demand ~6 GB). The header is now parsed one top-level member at a time, each member
// at most 65536 values: a long array is an error naming the offset where the budget ran out...
TEST(Safetensors, MemberValueBudget) {
  std::string arr = "{\"a\":[0";
  for (int i = 0; i < 70000; ++i) arr += ",0";
  arr += "]}";
  auto r = parse(with_header(arr, 0));
  // Value 65537 is the 65536th array element (the array itself is value 1), at 6 + 2 * 65535.
  expect_error(r, "t.st", "more than 65536 values");
  EXPECT_EQ(r.status().message().rfind("t.st: offset " + std::to_string(8 + 6 + 2 * 65535) + ":", 0), 0u)
      << r.status().message();
  // ... while the budget is per member: 65536 tensor entries (about a million values) are fine, and
  // one more is the tensor-count limit (kMaxModelTensors), not the value budget.
  std::string many = "{";
  for (int i = 0; i < 65536; ++i)
    many += (i ? ",\"t" : "\"t") + std::to_string(i) + "\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}";
  auto ok = parse(with_header(many + "}", 0));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->tensors.size(), 65536u);
  expect_error(parse(with_header(many + ",\"x\":{}}", 0)), "t.st", "more than 65536 tensors");
}

// Depth stays bounded (64) and the header length capped (100 MiB), both with clear errors.
TEST(Safetensors, DepthAndHeaderCaps) {
  std::string deep = "{\"a\":";
  for (int i = 0; i < 70; ++i) deep += "[";
  for (int i = 0; i < 70; ++i) deep += "]";
  deep += "}";
  expect_error(parse(with_header(deep, 0)), "t.st", "nesting deeper than 64");
  synth::Bytes b;
  b.u64((100u << 20) + 1);
  b.str("{}");
  expect_error(parse(b.b), "t.st", "exceeds the 100 MiB limit");
}

}  // namespace
}  // namespace ndp
