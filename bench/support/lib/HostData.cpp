//===- HostData.cpp - Inputs, poison and result checks for benchmarks -----===//

#include "weave/bench/HostData.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <thread>

namespace weave {
namespace bench {

std::optional<DType> parseMatmulDType(const std::string &name) {
  std::optional<DType> dtype = findDType(name);
  if (dtype && traitsOf(*dtype).matmulOperand)
    return dtype;
  return std::nullopt;
}

uint16_t floatToHalf(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) // Inf or NaN
    return static_cast<uint16_t>(sign |
                                 (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (abs >= 0x477ff000u) // >= 65520 rounds to Inf
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (abs < 0x38800000u) { // below 2^-14: a subnormal half or zero
    if (abs < 0x33000000u) // <= 2^-25 (a tie with 0 goes to even 0)
      return static_cast<uint16_t>(sign);
    uint32_t exponent = abs >> 23;
    uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - exponent; // value = mantissa >> shift units of 2^-24
    uint32_t h = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (h & 1)))
      ++h; // may carry into the smallest normal, which is the right encoding
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (abs - 0x38000000u) >> 13; // rebias the exponent by 127 - 15
  uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
    ++h;
  return static_cast<uint16_t>(sign | h);
}

float halfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  uint32_t x;
  if (exponent == 0) {
    float v = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -v : v;
  }
  if (exponent == 31)
    x = sign | 0x7f800000u | (mantissa << 13);
  else
    x = sign | ((exponent + 112) << 23) | (mantissa << 13);
  float out;
  std::memcpy(&out, &x, 4);
  return out;
}

uint16_t floatToBf16(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) // NaN: keep it quiet
    return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

float bf16ToFloat(uint16_t bits) {
  uint32_t x = static_cast<uint32_t>(bits) << 16;
  float out;
  std::memcpy(&out, &x, 4);
  return out;
}

uint16_t fromFloat(DType dtype, float value) {
  return dtype == DType::F16 ? floatToHalf(value) : floatToBf16(value);
}

float toFloat(DType dtype, uint16_t bits) {
  return dtype == DType::F16 ? halfToFloat(bits) : bf16ToFloat(bits);
}

double unitRoundoff(DType dtype) {
  return dtype == DType::F16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
}

unsigned hostThreads() {
  unsigned n = std::thread::hardware_concurrency();
  return std::max(1u, std::min(n, 32u));
}

void parallelChunks(size_t count,
                    const std::function<void(unsigned, size_t, size_t)> &fn) {
  unsigned workers = hostThreads();
  if (workers == 1 || count < (1u << 16)) {
    fn(0, 0, count);
    return;
  }
  std::vector<std::thread> threads;
  size_t chunk = (count + workers - 1) / workers;
  for (unsigned w = 0; w < workers; ++w) {
    size_t begin = w * chunk, end = std::min(count, begin + chunk);
    if (begin >= end)
      break;
    threads.emplace_back(fn, w, begin, end);
  }
  for (std::thread &t : threads)
    t.join();
}

namespace {
/// splitmix64's finalizer: a well-mixed 64-bit hash of `z`.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Uniform in [-1, 1) from (seed, i), 24 random bits.
float uniform(uint64_t seed, uint64_t i) {
  uint64_t z = mix(seed * 0x9e3779b97f4a7c15ull + i + 1);
  return static_cast<float>(static_cast<double>(z >> 40) * 0x1p-23 - 1.0);
}
} // namespace

std::vector<uint16_t> randomValues(DType dtype, size_t count, uint64_t seed) {
  // (x * 1 is x exactly: the same values as unscaled.)
  return scaledValues(dtype, count, seed, 1.0f);
}

std::vector<uint16_t> scaledValues(DType dtype, size_t count, uint64_t seed,
                                   float scale) {
  std::vector<uint16_t> out(count);
  parallelChunks(count, [&](unsigned, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i)
      out[i] = fromFloat(dtype, scale * uniform(seed, i));
  });
  return out;
}

std::vector<uint16_t> mlpActivations(DType dtype, size_t count, uint64_t seed) {
  const float s = 0.57735027f; // 1 / sqrt(3)
  std::vector<uint16_t> out(count);
  parallelChunks(count, [&](unsigned, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      float g = s * uniform(seed, 2 * i), u = s * uniform(seed, 2 * i + 1);
      out[i] = fromFloat(dtype, g / (1.0f + std::exp(-g)) * u);
    }
  });
  return out;
}

Tolerance defaultTolerance(DType dtype) {
  Tolerance t;
  t.relFrobenius = 1e-2;
  t.elementwise = 4 * unitRoundoff(dtype);
  return t;
}

std::string Comparison::summary() const {
  char text[256];
  std::snprintf(text, sizeof(text),
                "rel %.2e, max abs %.2e (max |ref| %.3g, rms %.3g), %llu "
                "past the bound, %llu NaN/Inf",
                relFrobenius, maxAbsError, maxAbsRef, rmsRef,
                static_cast<unsigned long long>(outOfTolerance),
                static_cast<unsigned long long>(nonFiniteOurs + nonFiniteRef));
  return text;
}

Comparison compare(DType dtype, const uint16_t *ours, const uint16_t *ref,
                   size_t count, const Tolerance &tolerance) {
  struct Partial {
    double diff2 = 0, ref2 = 0, maxAbs = 0, maxRef = 0;
    uint64_t badOurs = 0, badRef = 0;
  };
  std::vector<Partial> partials(hostThreads());
  parallelChunks(count, [&](unsigned chunk, size_t begin, size_t end) {
    Partial p;
    for (size_t i = begin; i < end; ++i) {
      double o = toFloat(dtype, ours[i]), r = toFloat(dtype, ref[i]);
      bool okOurs = std::isfinite(o), okRef = std::isfinite(r);
      p.badOurs += !okOurs;
      p.badRef += !okRef;
      if (!okOurs || !okRef)
        continue;
      double d = o - r;
      p.diff2 += d * d;
      p.ref2 += r * r;
      p.maxAbs = std::max(p.maxAbs, std::fabs(d));
      p.maxRef = std::max(p.maxRef, std::fabs(r));
    }
    partials[chunk] = p;
  });
  Comparison c;
  c.count = count;
  double diff2 = 0, ref2 = 0;
  for (const Partial &p : partials) {
    diff2 += p.diff2;
    ref2 += p.ref2;
    c.maxAbsError = std::max(c.maxAbsError, p.maxAbs);
    c.maxAbsRef = std::max(c.maxAbsRef, p.maxRef);
    c.nonFiniteOurs += p.badOurs;
    c.nonFiniteRef += p.badRef;
  }
  c.relFrobenius =
      ref2 > 0 ? std::sqrt(diff2 / ref2)
               : (diff2 > 0 ? std::numeric_limits<double>::infinity() : 0.0);
  c.rmsRef = count ? std::sqrt(ref2 / count) : 0;

  // Second pass: the elementwise bound needs rms(ref).
  struct Worst {
    uint64_t bad = 0;
    double ratio = -1;
    size_t index = 0;
  };
  std::vector<Worst> worst(partials.size());
  parallelChunks(count, [&](unsigned chunk, size_t begin, size_t end) {
    Worst w;
    for (size_t i = begin; i < end; ++i) {
      double o = toFloat(dtype, ours[i]), r = toFloat(dtype, ref[i]);
      if (!std::isfinite(o) || !std::isfinite(r)) {
        if (w.ratio < std::numeric_limits<double>::infinity()) {
          w.ratio = std::numeric_limits<double>::infinity();
          w.index = i;
        }
        continue;
      }
      double bound = tolerance.elementwise * (std::fabs(r) + c.rmsRef);
      double d = std::fabs(o - r);
      w.bad += d > bound;
      double ratio = bound > 0 ? d / bound : (d > 0 ? 1e300 : 0);
      if (ratio > w.ratio) {
        w.ratio = ratio;
        w.index = i;
      }
    }
    worst[chunk] = w;
  });
  double worstRatio = -1;
  for (const Worst &w : worst) {
    c.outOfTolerance += w.bad;
    if (w.ratio > worstRatio) {
      worstRatio = w.ratio;
      c.worstIndex = w.index;
    }
  }
  if (count) {
    c.worstOurs = toFloat(dtype, ours[c.worstIndex]);
    c.worstRef = toFloat(dtype, ref[c.worstIndex]);
  }
  c.passed = count > 0 && c.nonFiniteOurs == 0 && c.nonFiniteRef == 0 &&
             c.outOfTolerance == 0 && c.relFrobenius < tolerance.relFrobenius;
  return c;
}

SampleCheck checkSamples(const MatrixAccessor &a, const MatrixAccessor &b,
                         const MatrixAccessor &ours, const MatrixAccessor &ref,
                         int64_t m, int64_t n, int64_t k, double rmsRef,
                         const Tolerance &tolerance, int samples,
                         uint64_t seed) {
  SampleCheck s;
  s.samples = samples;
  for (int t = 0; t < samples; ++t) {
    // Corners first (edge tiles are where kernels go wrong), then random.
    int64_t i, j;
    if (t < 4) {
      i = (t & 1) ? m - 1 : 0;
      j = (t & 2) ? n - 1 : 0;
    } else {
      i = static_cast<int64_t>(mix(seed + 2 * t) % static_cast<uint64_t>(m));
      j = static_cast<int64_t>(mix(seed + 2 * t + 1) %
                               static_cast<uint64_t>(n));
    }
    double exact = 0;
    for (int64_t kk = 0; kk < k; ++kk)
      exact += static_cast<double>(a(i, kk)) * static_cast<double>(b(kk, j));
    double bound = tolerance.elementwise * (std::fabs(exact) + rmsRef);
    double eo = std::fabs(static_cast<double>(ours(i, j)) - exact);
    double er = std::fabs(static_cast<double>(ref(i, j)) - exact);
    if (!std::isfinite(eo) || eo > bound)
      ++s.badOurs;
    if (!std::isfinite(er) || er > bound)
      ++s.badRef;
    s.maxErrorOurs = std::max(s.maxErrorOurs, std::isfinite(eo) ? eo : 1e300);
    s.maxErrorRef = std::max(s.maxErrorRef, std::isfinite(er) ? er : 1e300);
  }
  return s;
}

} // namespace bench
} // namespace weave
