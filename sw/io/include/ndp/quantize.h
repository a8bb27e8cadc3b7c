// Quantized bases of a model, made the way checkpoint tools make them (`ndp analyze --as ...`):
//
//   fp8-e4m3  per-tensor scale s = amax / 448 (FP32), q = E4M3(x / s) with round-to-nearest-even on
//             the FP32 quotient and saturation to +-448 (AutoFP8 / llm-compressor "static
//             per-tensor": the quotient is clamped to the E4M3 range before the cast). NaN stays NaN
//             (S.1111.111); an all-zero tensor gets s = 1.
//   int8/int4 symmetric per-group scales (GPTQ-style "sym", no zero point): groups of `group`
//             consecutive elements of each row (the last, contiguous dimension; the tail group of a
//             row may be shorter), s = amax / qmax with qmax = 127 / 7 (FP16, rounded to nearest
//             even), q = clamp(round_half_even(x / s), -qmax, qmax); an all-zero group gets s = 0
//             and q = 0. int4 packs two elements per byte (spec section 1).
//
// Only the Linear layers' weight matrices are quantized, as the tools do: floating tensors whose last
// two dimensions are > 1 and whose name does not mark an embedding, classifier, norm or positional
// table ("norm", "rms", "ln", "freq_cis", "emb", "wte", "wpe", "lm_head", "wcls", "output.weight",
// "head.weight"; case-insensitive). Their scales are added as tensors named NAME + "_scale" (FP32
// scalar for FP8, FP16 [rows, groups] for INT) right after them, as the checkpoints store them.
// Every other floating tensor (what the tools leave in 16 bits) is converted to BF16 as
// `--as bf16` does.
#pragma once

#include <cstdint>
#include <string>

#include "ndp/model_reader.h"

namespace ndp {

// FP32 value -> OCP E4M3 code: round-to-nearest-even, saturating to +-448; NaN -> S.1111.111.
uint8_t fp32_to_e4m3_sat(float x);
// E4M3 code -> FP32 value (exact; S.1111.111 is NaN).
float e4m3_to_fp32(uint8_t code);
// FP32 -> IEEE binary16 with round-to-nearest-even (overflow to infinity, NaN stays NaN).
uint16_t fp32_to_fp16_rne(float x);

struct QuantizeOptions {
  DType target = DType::kBF16;  // kBF16, kFP8E4M3, kINT8 or kINT4
  uint32_t group = 128;         // INT group size (elements of a row)
};

// Quantize m in place. Errors: unsupported target, group 0.
Status quantize_model(Model& m, const QuantizeOptions& o);

// "bf16", "fp8-e4m3", "int8", "int4" -> target; error naming the accepted names otherwise.
Result<DType> parse_quantize_target(const std::string& name);

}  // namespace ndp
