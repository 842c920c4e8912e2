#include "common/hash.h"

#include <gtest/gtest.h>

#include <string_view>

namespace karpenter {
namespace {

// The published FNV-1a 64-bit test vectors (Fowler, Noll and Vo's reference test suite).
TEST(Fnv1a64Test, PublishedVectors) {
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(Fnv1a64Test, HashesBytesNotCharacters) {
  // A byte above 0x7f must not be sign-extended.
  EXPECT_NE(Fnv1a64("\xff"), Fnv1a64("\x7f"));
  EXPECT_NE(Fnv1a64(std::string_view("a\0b", 3)), Fnv1a64("ab"));
}

TEST(Fnv1a64Test, ContinuesAnEarlierHash) {
  EXPECT_EQ(Fnv1a64("bar", Fnv1a64("foo")), Fnv1a64("foobar"));
}

}  // namespace
}  // namespace karpenter
