//===- ExactInputsTest.cpp - the closed form of the exact inputs' dot ----===//
//
// exactDot (examples/support ExactInputs.h) must equal the plain loop over
// k bit for bit: the fused ops' checks use it as their reference at any K.
//
//===----------------------------------------------------------------------===//

#include "weave/examples/ExactInputs.h"

#include <gtest/gtest.h>

namespace {

using weave::examples::exactA;
using weave::examples::exactB;
using weave::examples::exactDot;

TEST(ExactDot, EqualsTheLoopOverK) {
  for (int64_t K : {1, 2, 8, 9, 10, 17, 64, 256, 1000, 4096, 7168}) {
    for (uint32_t dA : {0u, 1u, 5u, 19u})
      for (uint32_t dB : {0u, 2u, 33u})
        for (int64_t r : {0, 1, 7, 130, 1151})
          for (int64_t c : {0, 3, 319, 4095}) {
            double loop = 0;
            for (int64_t k = 0; k < K; ++k)
              loop += exactA(dA, r, k) * exactB(dB, k, c);
            ASSERT_EQ(exactDot(dA, r, dB, c, K), loop)
                << "K " << K << " dA " << dA << " dB " << dB << " r " << r
                << " c " << c;
          }
  }
}

} // namespace
