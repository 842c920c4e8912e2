#include "aws/userdata/mime.h"

#include <gtest/gtest.h>

#include "support/matchers.h"

namespace karpenter::aws {
namespace {

TEST(MimeTest, SplitsAMultipartDocumentIntoParts) {
  const std::string document =
      "MIME-Version: 1.0\r\n"
      "Content-Type: multipart/mixed;\r\n"
      "  boundary=abc\r\n"
      "\r\n"
      "a preamble that is ignored\r\n"
      "--abc\r\n"
      "Content-Type: text/x-shellscript\r\n"
      "\r\n"
      "echo one\r\n"
      "echo two\r\n"
      "--abc\r\n"
      "Content-Type: text/plain\r\n"
      "Content-Transfer-Encoding: base64\r\n"
      "\r\n"
      "aGVsbG8=\r\n"
      "--abc--\r\n"
      "an epilogue\r\n";
  ASSERT_TRUE(LooksLikeMime(document));
  auto parts = ParseMime(document);
  ASSERT_THAT(parts, IsOk());
  ASSERT_EQ(parts->size(), 2u);
  EXPECT_EQ((*parts)[0].MediaType(), "text/x-shellscript");
  EXPECT_EQ((*parts)[0].body, "echo one\necho two");
  EXPECT_EQ((*parts)[1].Header("content-transfer-encoding"), "base64");
  auto body = (*parts)[1].DecodedBody();
  ASSERT_THAT(body, IsOk());
  EXPECT_EQ(*body, "hello");
}

TEST(MimeTest, RenderedDocumentsParseBackToTheSameParts) {
  std::vector<MimePart> parts(3);
  parts[0].headers = {{"Content-Type", "text/x-shellscript; charset=\"us-ascii\""}};
  parts[0].body = "#!/bin/bash\necho hi";
  parts[1].headers = {{"Content-Type", "application/node.eks.aws"}};
  parts[1].body = "";
  parts[2].body = "no headers at all\n\nand a blank line";
  const std::string document = RenderMultipart(parts, "B");
  EXPECT_EQ(document.rfind("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n", 0),
            0u);
  auto parsed = ParseMime(document);
  ASSERT_THAT(parsed, IsOk());
  ASSERT_EQ(parsed->size(), 3u);
  for (size_t i = 0; i < parts.size(); ++i) {
    EXPECT_EQ((*parsed)[i].headers, parts[i].headers) << i;
    EXPECT_EQ((*parsed)[i].body, parts[i].body) << i;
  }
}

TEST(MimeTest, ChoosesAnotherBoundaryWhenABodyContainsIt) {
  std::vector<MimePart> parts(1);
  parts[0].body = "--B\nlooks like a delimiter";
  const std::string document = RenderMultipart(parts, "B");
  EXPECT_NE(document.find("boundary=\"B-1\""), std::string::npos) << document;
  auto parsed = ParseMime(document);
  ASSERT_THAT(parsed, IsOk());
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ((*parsed)[0].body, parts[0].body);
}

TEST(MimeTest, ASingleEntityIsOnePart) {
  auto parts = ParseMime("Content-Type: text/x-shellscript\nMIME-Version: 1.0\n\necho hi\n");
  ASSERT_THAT(parts, IsOk());
  ASSERT_EQ(parts->size(), 1u);
  EXPECT_EQ((*parts)[0].headers.size(), 1u);  // MIME-Version belongs to the document
  EXPECT_EQ((*parts)[0].body, "echo hi");
}

TEST(MimeTest, RecognisesMimeOnlyByItsHeaders) {
  EXPECT_TRUE(LooksLikeMime("MIME-Version: 1.0\n\n"));
  EXPECT_FALSE(LooksLikeMime("#!/bin/bash\necho hi\n"));
  EXPECT_FALSE(LooksLikeMime("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n"));
  EXPECT_FALSE(LooksLikeMime("[settings.kubernetes]\n"));
}

TEST(MimeTest, ReportsMalformedDocuments) {
  auto no_boundary = ParseMime("MIME-Version: 1.0\nContent-Type: multipart/mixed\n\n--x\n\nhi\n");
  ASSERT_FALSE(no_boundary.ok());
  EXPECT_NE(no_boundary.error().message.find("no boundary"), std::string::npos);

  auto unclosed =
      ParseMime("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=x\n\n--x\n\nhi\n");
  ASSERT_FALSE(unclosed.ok());
  EXPECT_NE(unclosed.error().message.find("no closing delimiter \"--x--\""), std::string::npos)
      << unclosed.error().message;

  auto empty = ParseMime("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=x\n\n--x--\n");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("no parts"), std::string::npos);

  auto bad_part = ParseMime(
      "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=x\n\n--x\nnot a header\n--x--\n");
  ASSERT_FALSE(bad_part.ok());
  EXPECT_NE(bad_part.error().message.find("part 1"), std::string::npos) << bad_part.error().message;
}

}  // namespace
}  // namespace karpenter::aws
