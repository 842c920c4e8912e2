#pragma once
// Turns manifest text into JSON documents. YAML (one or many `---`-separated documents) and JSON
// (an object or an array) are both accepted; a `kind: List` (or `PodList`, `NodeList`, …) object
// is replaced by its items, so callers only ever see single objects.
//
// YAML scalars follow the YAML 1.2 core schema: plain (unquoted) `true`/`false`, `null`/`~`/empty,
// integers (decimal, 0x, 0o) and floats become JSON booleans, nulls and numbers; quoted and block
// scalars always stay strings, as do plain scalars of any other shape.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "common/result.h"

namespace karpenter {

struct Document {
  Json value;
  int line = 0;  // 1-based line where the document starts in the source text; 0 when unknown
};

// Fields a reader never looks at, by the key of the object that holds them (for an object in an
// array, the array's key; empty at a document's root) and their own key.
using FieldFilter = std::function<bool(std::string_view parent, std::string_view key)>;

// Parses `text`. `source` names the text (usually a file path) in error messages, which have the
// form
// "<source>:<line>:<column>: <reason>". Empty documents (a lone `---`, comments only) are skipped.
// Fields `drop` names are left out: JSON skips them as it parses, so a large input is never held
// whole; YAML removes them from each document once it is built.
Result<std::vector<Document>> ParseDocuments(std::string_view text, std::string_view source,
                                             const FieldFilter& drop = {});

// The text of a JSON number, for numbers given where a string is expected (`values: [2]`,
// `cpu: 1000`): integers in decimal, other numbers as the shortest text that reads back as the same
// value ("0.5", "1.1"; 1e21 and beyond in exponent form).
std::string NumberText(const Json& number);

}  // namespace karpenter
