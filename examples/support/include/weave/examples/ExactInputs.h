//===- ExactInputs.h - Matmul inputs whose sums are exact in f32 -*- C++ -*-===//
//
// Multiples of 1/8 in [-1/2, 1/2]: bf16 and f16 hold them exactly, their
// products are multiples of 1/64, and sums of up to 2^17 such products are
// exact in f32. So a kernel that sums them in f32 in any order must match a
// float64 reference bit for bit, which makes reductions whose order depends
// on timing (TMA reduce-adds from several members) checkable exactly.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_EXAMPLES_EXACTINPUTS_H
#define WEAVE_EXAMPLES_EXACTINPUTS_H

#include "weave/examples/HostSetup.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace weave::examples {

/// Element (r, k) of member d's lhs, and (k, c) of its rhs.
inline double exactA(uint32_t d, int64_t r, int64_t k) {
  return static_cast<double>((r * 7 + k * 3 + d * 5) % 9 - 4) / 8;
}
inline double exactB(uint32_t d, int64_t k, int64_t c) {
  return static_cast<double>((k * 5 + c * 11 + d * 3) % 9 - 4) / 8;
}

/// sum over k in [0, K) of exactA(dA, r, k) * exactB(dB, k, c), in
/// O(9): both factors depend on k only through k mod 9 (3k and 5k mod 9),
/// so the sum is the 9 residues' products times how often each occurs.
/// Every term is a multiple of 1/64 and every count an integer: exact in
/// float64, the same value as the plain loop, for references of any K.
inline double exactDot(uint32_t dA, int64_t r, uint32_t dB, int64_t c,
                       int64_t K) {
  double sum = 0;
  for (int64_t j = 0; j < 9 && j < K; ++j) {
    int64_t count = (K - 1 - j) / 9 + 1;
    sum += double(count) * exactA(dA, r, j) * exactB(dB, j, c);
  }
  return sum;
}

/// The bf16 (or f16) bits of an exact input value (no rounding needed).
inline uint16_t exactBits16(double v, bool bf16) {
  float f = static_cast<float>(v);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  if (bf16)
    return static_cast<uint16_t>(b >> 16);
  uint32_t sign = (b >> 16) & 0x8000;
  if (v == 0)
    return static_cast<uint16_t>(sign);
  int32_t exponent = static_cast<int32_t>((b >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = (b >> 13) & 0x3ff; // exact: few mantissa bits
  return static_cast<uint16_t>(sign | (uint32_t(exponent) << 10) | mantissa);
}

/// The value of bf16 (or f16) bits.
inline float float16Value(uint16_t h, bool bf16) {
  if (bf16) {
    uint32_t b = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    magnitude = std::ldexp(float(mantissa), -24);
  else
    magnitude = std::ldexp(float(mantissa + 1024), exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

/// `v` rounded to the nearest bf16 (or f16) value, ties to even, in float64
/// (no subnormals or overflow: for the moderate sums of these inputs).
/// E.g. a partial product a kernel rounds to the dtype before it sums.
inline double roundToDtype(double v, bool bf16) {
  if (v == 0)
    return v;
  int exponent;
  std::frexp(v, &exponent);
  double scale = std::ldexp(1.0, (bf16 ? 8 : 11) - exponent);
  return std::nearbyint(v * scale) / scale;
}

/// Uploads every local member's exact operands: its lhs (rows x depth)
/// into `a` and its rhs (depth x cols) into `b`, as bf16 or f16.
inline Status uploadExactOperands(const Team &team, const LocalBuffers &a,
                                  const LocalBuffers &b, int64_t rows,
                                  int64_t depth, int64_t cols, bool bf16) {
  for (size_t i = 0; i < team.localCount(); ++i) {
    uint32_t d = team.rankOf(i);
    std::vector<uint16_t> ha(rows * depth), hb(depth * cols);
    for (int64_t e = 0; e < rows * depth; ++e)
      ha[e] = exactBits16(exactA(d, e / depth, e % depth), bf16);
    for (int64_t e = 0; e < depth * cols; ++e)
      hb[e] = exactBits16(exactB(d, e / cols, e % cols), bf16);
    WEAVE_TRY(a.upload(i, ha.data()));
    WEAVE_TRY(b.upload(i, hb.data()));
  }
  return ok();
}

} // namespace weave::examples

#endif // WEAVE_EXAMPLES_EXACTINPUTS_H
