#pragma once
// MIME multipart documents (RFC 2046) as cloud-init reads them: just enough to split a user's
// document into parts, keep each part's headers and body, and write parts out again.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace karpenter::aws {

struct MimePart {
  std::vector<std::pair<std::string, std::string>> headers;  // in order, names as written
  std::string body;                                          // without the final line break

  // The value of the first header named `name` (case-insensitive), or "".
  std::string Header(std::string_view name) const;
  // The Content-Type's media type, lower-case and without parameters ("text/x-shellscript").
  std::string MediaType() const;
  // The body with a base64 Content-Transfer-Encoding undone.
  Result<std::string> DecodedBody() const;
};

// True when `text` opens with a header block that has a MIME-Version or Content-Type header.
bool LooksLikeMime(std::string_view text);

// The parts of a MIME document: a multipart document's parts, or a single entity as one part.
// Errors say what is wrong (no boundary, no closing delimiter, no parts, …), not where.
Result<std::vector<MimePart>> ParseMime(std::string_view text);

// A multipart/mixed document of `parts`, with the boundary `boundary`, or a variant of it when a
// body contains a line that would end the part.
std::string RenderMultipart(const std::vector<MimePart>& parts, std::string_view boundary);

}  // namespace karpenter::aws
