#include "simulate/html_page.h"

#include <fmt/format.h>

#include <iterator>

namespace karpenter::simulate::html {
namespace {

constexpr std::string_view kStyle = R"css(
:root {
  --fg: #1f2937; --muted: #6b7280; --line: #e5e7eb; --bg: #f6f7f9; --card: #ffffff;
  --accent: #2563eb; --good: #047857; --bad: #b91c1c; --head: #f1f5f9;
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
main { max-width: 1120px; margin: 0 auto; padding: 32px 24px 56px; }
h1 { font-size: 28px; margin: 0 0 4px; letter-spacing: -0.01em; }
h2 {
  font-size: 19px; margin: 36px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line);
}
h3 { font-size: 15px; margin: 20px 0 8px; color: var(--muted); font-weight: 600; }
.scenario { color: var(--muted); margin: 0 0 16px; }
.verdict {
  font-size: 18px; font-weight: 600; margin: 0; padding: 14px 18px; background: var(--card);
  border: 1px solid var(--line); border-left: 5px solid var(--accent); border-radius: 8px;
}
.cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; margin: 20px 0 0; }
.card.wide { grid-column: span 2; }
@media (max-width: 640px) {
  .cards { grid-template-columns: repeat(2, 1fr); }
}
.card {
  background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px;
}
.card .label {
  color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .05em;
}
.card .value { font-size: 21px; font-weight: 650; font-variant-numeric: tabular-nums; }
.card.bad .value { color: var(--bad); }
.card.good .value { color: var(--good); }
figure {
  margin: 0 0 16px; padding: 12px 14px 8px; background: var(--card);
  border: 1px solid var(--line); border-radius: 8px;
}
figcaption { font-weight: 600; margin-bottom: 4px; }
svg { display: block; width: 100%; height: auto; }
svg text { font: 11px system-ui, sans-serif; fill: var(--muted); }
svg .grid { stroke: #eceff3; stroke-width: 1; }
svg .axis { stroke: #9ca3af; stroke-width: 1; }
svg .series { fill: none; stroke-width: 2.2; stroke-linejoin: round; }
svg .note {
  font-size: 13px; fill: var(--fg); paint-order: stroke; stroke: #fff; stroke-width: 4px;
}
table {
  width: 100%; border-collapse: separate; border-spacing: 0; background: var(--card);
  border: 1px solid var(--line); border-radius: 8px; font-size: 14px; overflow: hidden;
}
th, td {
  padding: 7px 10px; text-align: left; vertical-align: top; border-bottom: 1px solid var(--line);
}
th { background: var(--head); font-weight: 600; white-space: nowrap; }
tbody tr:last-child td { border-bottom: none; }
tbody tr:nth-child(even) td { background: #fafbfc; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.empty { color: var(--muted); font-style: italic; }
ul.ignored {
  background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 30px;
}
footer { margin-top: 40px; color: var(--muted); font-size: 13px; }
pre {
  background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px;
  overflow-x: auto; font-size: 13px;
}
.state-done { color: var(--good); font-weight: 600; }
.state-todo { color: var(--accent); font-weight: 600; }
.state-blocked { color: var(--bad); font-weight: 600; }
)css";

// One row; numeric columns right-aligned.
void AppendRow(std::string& out, const std::vector<Column>& columns, const Row& row) {
  out += "<tr>";
  for (std::size_t i = 0; i < row.size(); ++i) {
    const bool numeric = i < columns.size() && columns[i].numeric;
    fmt::format_to(std::back_inserter(out), "<td{}>{}</td>", numeric ? " class=\"num\"" : "",
                   Escape(row[i]));
  }
  out += "</tr>\n";
}

}  // namespace

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void AppendHead(std::string& out, std::string_view title) {
  out += "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  fmt::format_to(std::back_inserter(out), "<title>{}</title>\n", Escape(title));
  fmt::format_to(std::back_inserter(out), "<style>{}</style>\n</head>\n", kStyle);
}

void AppendCard(std::string& out, std::string_view label, const std::string& value,
                std::string_view style) {
  fmt::format_to(std::back_inserter(out),
                 "<div class=\"card {}\"><div class=\"label\">{}</div>"
                 "<div class=\"value\">{}</div></div>\n",
                 style, Escape(label), Escape(value));
}

void AppendTable(std::string& out, const std::vector<Column>& columns, const std::vector<Row>& rows,
                 std::string_view empty_note) {
  if (rows.empty()) {
    fmt::format_to(std::back_inserter(out), "<p class=\"empty\">{}</p>\n", Escape(empty_note));
    return;
  }
  out += "<table>\n<thead><tr>";
  for (const Column& column : columns) {
    fmt::format_to(std::back_inserter(out), "<th{}>{}</th>", column.numeric ? " class=\"num\"" : "",
                   Escape(column.title));
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const Row& row : rows) AppendRow(out, columns, row);
  out += "</tbody>\n</table>\n";
}

}  // namespace karpenter::simulate::html
