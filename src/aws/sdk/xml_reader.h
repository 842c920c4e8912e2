#pragma once
// Reading the XML that Query APIs (EC2, IAM, STS) answer with: a parsed document and a light view
// of its elements in which a missing element reads as empty, so response parsers can walk
// optional fields without checking each step.

#include <cstdint>
#include <memory>
#include <optional>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace karpenter::aws {

// A view of one element; valid while its XmlDocument lives. A default or missing element has no
// children and no text.
class XmlElement {
 public:
  XmlElement() = default;
  explicit XmlElement(pugi::xml_node node) : node_(node) {}

  bool exists() const { return !node_.empty(); }
  std::string_view name() const { return node_.name(); }
  // This element's own text, trimmed of surrounding whitespace.
  std::string text() const;

  // The first child element called `name`.
  XmlElement Child(std::string_view name) const;
  // That child's text; empty when the child is missing.
  std::string Text(std::string_view name) const;
  // That child's text, or nothing when the child is missing.
  std::optional<std::string> OptionalText(std::string_view name) const;
  // That child's text as a number or a boolean ("true"/"false"); nothing when missing or not one.
  std::optional<int64_t> Int(std::string_view name) const;
  std::optional<bool> Bool(std::string_view name) const;
  // The entries of list `name`: its <item> children (EC2) or <member> children (IAM, STS).
  std::vector<XmlElement> Items(std::string_view name) const;

 private:
  pugi::xml_node node_;
};

class XmlDocument {
 public:
  // Parses `text`; the error names `context` (the operation) and the byte offset where parsing
  // failed.
  static Result<XmlDocument> Parse(std::string_view text, std::string_view context);

  // The document element (<DescribeInstancesResponse>, <ErrorResponse>, …).
  XmlElement root() const { return XmlElement(document_->document_element()); }

 private:
  XmlDocument() : document_(std::make_unique<pugi::xml_document>()) {}
  std::unique_ptr<pugi::xml_document> document_;  // on the heap so elements survive a move
};

}  // namespace karpenter::aws
