#pragma once
// The parts the project's HTML reports share (`karpenter simulate --report`, `karpenter migrate
// plan -o html`): one stylesheet, escaping, the page's head, summary cards and tables. Every string
// is HTML-escaped as it is written.

#include <string>
#include <string_view>
#include <vector>

namespace karpenter::simulate::html {

std::string Escape(std::string_view text);

// From the doctype to </head>: UTF-8, the viewport, `title` (escaped) and the stylesheet.
void AppendHead(std::string& out, std::string_view title);

// One summary figure (inside a <section class="cards">); `style` is "", "wide", "good" or "bad".
void AppendCard(std::string& out, std::string_view label, const std::string& value,
                std::string_view style = "");

struct Column {
  std::string_view title;
  bool numeric = false;
};
using Row = std::vector<std::string>;  // plain text, escaped when written

// A table of `rows`; `empty_note` instead when there are none.
void AppendTable(std::string& out, const std::vector<Column>& columns, const std::vector<Row>& rows,
                 std::string_view empty_note = "None.");

}  // namespace karpenter::simulate::html
