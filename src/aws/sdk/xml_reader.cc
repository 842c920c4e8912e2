#include "aws/sdk/xml_reader.h"

#include <charconv>

namespace karpenter::aws {
namespace {

std::string_view TrimSpace(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

std::string XmlElement::text() const { return std::string(TrimSpace(node_.child_value())); }

XmlElement XmlElement::Child(std::string_view name) const {
  // pugixml wants NUL-terminated names.
  return XmlElement(node_.child(std::string(name).c_str()));
}

std::string XmlElement::Text(std::string_view name) const { return Child(name).text(); }

std::optional<std::string> XmlElement::OptionalText(std::string_view name) const {
  const XmlElement child = Child(name);
  if (!child.exists()) return std::nullopt;
  return child.text();
}

std::optional<int64_t> XmlElement::Int(std::string_view name) const {
  const std::string text = Text(name);
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<bool> XmlElement::Bool(std::string_view name) const {
  const std::string text = Text(name);
  if (text == "true") return true;
  if (text == "false") return false;
  return std::nullopt;
}

std::vector<XmlElement> XmlElement::Items(std::string_view name) const {
  std::vector<XmlElement> items;
  for (const pugi::xml_node child : Child(name).node_.children()) {
    const std::string_view child_name = child.name();
    if (child.type() == pugi::node_element && (child_name == "item" || child_name == "member")) {
      items.emplace_back(child);
    }
  }
  return items;
}

Result<XmlDocument> XmlDocument::Parse(std::string_view text, std::string_view context) {
  XmlDocument document;
  const pugi::xml_parse_result parsed = document.document_->load_buffer(text.data(), text.size());
  if (!parsed) {
    return Error{std::string(context) + ": malformed XML at offset " +
                 std::to_string(parsed.offset) + ": " + parsed.description()};
  }
  return document;
}

}  // namespace karpenter::aws
