#include "common/base64.h"

#include <gtest/gtest.h>

#include "support/matchers.h"

namespace karpenter {
namespace {

TEST(Base64Test, EncodesTheRfc4648Vectors) {
  EXPECT_EQ(EncodeBase64(""), "");
  EXPECT_EQ(EncodeBase64("f"), "Zg==");
  EXPECT_EQ(EncodeBase64("fo"), "Zm8=");
  EXPECT_EQ(EncodeBase64("foo"), "Zm9v");
  EXPECT_EQ(EncodeBase64("foob"), "Zm9vYg==");
  EXPECT_EQ(EncodeBase64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(EncodeBase64("foobar"), "Zm9vYmFy");
}

TEST(Base64Test, DecodesWhatItEncodesIncludingBinary) {
  std::string binary;
  for (int i = 0; i < 256; ++i) binary += static_cast<char>(i);
  for (size_t length = 0; length <= binary.size(); length += 37) {
    const std::string data = binary.substr(0, length);
    auto decoded = DecodeBase64(EncodeBase64(data));
    ASSERT_THAT(decoded, IsOk());
    EXPECT_EQ(*decoded, data);
  }
}

TEST(Base64Test, IgnoresLineBreaksAndRejectsGarbage) {
  auto decoded = DecodeBase64("Zm9v\nYmFy\r\n");
  ASSERT_THAT(decoded, IsOk());
  EXPECT_EQ(*decoded, "foobar");
  EXPECT_FALSE(DecodeBase64("Zm9v!").ok());
  EXPECT_FALSE(DecodeBase64("Zg=").ok());
  EXPECT_FALSE(DecodeBase64("Zg==Zg==").ok());
  EXPECT_FALSE(DecodeBase64("Z").ok());
}

}  // namespace
}  // namespace karpenter
