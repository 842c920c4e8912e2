#include "aws/userdata/mime.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "common/base64.h"
#include "fmt/format.h"

namespace karpenter::aws {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// Lines without their "\n" or "\r\n".
std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

bool IsHeaderLine(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == 0 || colon == std::string_view::npos) return false;
  return std::all_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(colon), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
}

using Headers = std::vector<std::pair<std::string, std::string>>;

// Reads header lines from `lines[*index]` up to the blank line that ends them (consumed), unfolding
// continuation lines. False when a line is neither a header nor a continuation.
bool ReadHeaders(const std::vector<std::string_view>& lines, size_t* index, Headers* headers) {
  for (; *index < lines.size(); ++*index) {
    const std::string_view line = lines[*index];
    if (line.empty()) {
      ++*index;
      return true;
    }
    if ((line.front() == ' ' || line.front() == '\t') && !headers->empty()) {
      headers->back().second += ' ';
      headers->back().second += Trim(line);
      continue;
    }
    if (!IsHeaderLine(line)) return false;
    const size_t colon = line.find(':');
    headers->emplace_back(std::string(line.substr(0, colon)),
                          std::string(Trim(line.substr(colon + 1))));
  }
  return true;  // headers up to the end: no body
}

std::string HeaderOf(const Headers& headers, std::string_view name) {
  const std::string wanted = Lower(name);
  for (const auto& [key, value] : headers) {
    if (Lower(key) == wanted) return value;
  }
  return "";
}

// A parameter of a structured header value (`multipart/mixed; boundary="x"`), or "".
std::string Parameter(std::string_view value, std::string_view name) {
  size_t pos = value.find(';');
  while (pos != std::string_view::npos) {
    std::string_view rest = value.substr(pos + 1);
    const size_t next = rest.find(';');
    std::string_view param = Trim(rest.substr(0, next));
    const size_t eq = param.find('=');
    if (eq != std::string_view::npos && Lower(Trim(param.substr(0, eq))) == name) {
      std::string_view param_value = Trim(param.substr(eq + 1));
      if (param_value.size() >= 2 && param_value.front() == '"') {
        param_value = param_value.substr(1, param_value.find('"', 1) - 1);
      }
      return std::string(param_value);
    }
    pos = next == std::string_view::npos ? next : pos + 1 + next;
  }
  return "";
}

std::string MediaTypeOf(std::string_view content_type) {
  return Lower(Trim(content_type.substr(0, content_type.find(';'))));
}

std::string JoinLines(const std::vector<std::string_view>& lines, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    if (i > begin) out += '\n';
    out += lines[i];
  }
  return out;
}

}  // namespace

std::string MimePart::Header(std::string_view name) const { return HeaderOf(headers, name); }

std::string MimePart::MediaType() const { return MediaTypeOf(Header("Content-Type")); }

Result<std::string> MimePart::DecodedBody() const {
  if (Lower(Trim(Header("Content-Transfer-Encoding"))) != "base64") return body;
  return DecodeBase64(body);
}

bool LooksLikeMime(std::string_view text) {
  const std::vector<std::string_view> lines = SplitLines(text);
  size_t index = 0;
  Headers headers;
  if (lines.empty() || !IsHeaderLine(lines[0])) return false;
  if (!ReadHeaders(lines, &index, &headers)) return false;
  return !HeaderOf(headers, "MIME-Version").empty() || !HeaderOf(headers, "Content-Type").empty();
}

Result<std::vector<MimePart>> ParseMime(std::string_view text) {
  const std::vector<std::string_view> lines = SplitLines(text);
  size_t index = 0;
  Headers headers;
  if (!ReadHeaders(lines, &index, &headers)) {
    return Error{fmt::format("line {}: expected a MIME header (Name: value)", index + 1)};
  }
  const std::string content_type = HeaderOf(headers, "Content-Type");
  const std::string media_type = MediaTypeOf(content_type);
  if (media_type.rfind("multipart/", 0) != 0) {  // a single entity
    MimePart part;
    for (auto& header : headers) {
      if (Lower(header.first) != "mime-version") part.headers.push_back(std::move(header));
    }
    part.body = JoinLines(lines, std::min(index, lines.size()), lines.size());
    while (!part.body.empty() && part.body.back() == '\n') part.body.pop_back();
    return std::vector<MimePart>{std::move(part)};
  }
  const std::string boundary = Parameter(content_type, "boundary");
  if (boundary.empty()) {
    return Error{fmt::format("Content-Type \"{}\" has no boundary parameter", content_type)};
  }
  const std::string delimiter = "--" + boundary;
  const std::string close = delimiter + "--";
  std::vector<MimePart> parts;
  bool closed = false;
  std::optional<size_t> part_start;  // the line after the current part's delimiter
  for (size_t i = index; i < lines.size() && !closed; ++i) {
    const std::string_view line = Trim(lines[i]);
    const bool is_close = line == close;
    if (line != delimiter && !is_close) continue;
    if (part_start) {
      size_t cursor = *part_start;
      std::vector<std::string_view> part_lines(lines.begin() + static_cast<std::ptrdiff_t>(cursor),
                                               lines.begin() + static_cast<std::ptrdiff_t>(i));
      size_t local = 0;
      MimePart part;
      if (!ReadHeaders(part_lines, &local, &part.headers)) {
        return Error{fmt::format("part {} (line {}): expected headers, then a blank line",
                                 parts.size() + 1, cursor + 1)};
      }
      part.body = JoinLines(part_lines, std::min(local, part_lines.size()), part_lines.size());
      parts.push_back(std::move(part));
    }
    part_start = i + 1;
    closed = is_close;
  }
  if (!closed) return Error{fmt::format("no closing delimiter \"{}\"", close)};
  if (parts.empty()) return Error{"multipart document has no parts"};
  return parts;
}

std::string RenderMultipart(const std::vector<MimePart>& parts, std::string_view boundary) {
  std::string chosen(boundary);
  const auto clashes = [&parts](const std::string& candidate) {
    const std::string delimiter = "--" + candidate;
    return std::any_of(parts.begin(), parts.end(), [&](const MimePart& part) {
      for (const std::string_view line : SplitLines(part.body)) {
        if (Trim(line).rfind(delimiter, 0) == 0) return true;
      }
      return false;
    });
  };
  for (int n = 1; clashes(chosen); ++n) chosen = fmt::format("{}-{}", boundary, n);
  std::string out =
      fmt::format("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"{}\"\n", chosen);
  for (const MimePart& part : parts) {
    out += fmt::format("\n--{}\n", chosen);
    for (const auto& [name, value] : part.headers) out += fmt::format("{}: {}\n", name, value);
    out += '\n';
    out += part.body;
  }
  out += fmt::format("\n--{}--\n", chosen);
  return out;
}

}  // namespace karpenter::aws
