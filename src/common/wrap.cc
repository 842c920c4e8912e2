#include "common/wrap.h"

#include <sstream>

namespace karpenter {

std::string Wrap(std::string_view text, size_t indent, size_t width) {
  std::string out;
  size_t column = 0;
  const auto add = [&](std::string_view piece, bool glued) {
    if (column > indent && column + (glued ? 0 : 1) + piece.size() > width) {
      out += '\n';
      column = 0;
    }
    if (column == 0) {
      out.append(indent, ' ');
      column = indent;
    } else if (!glued) {
      out += ' ';
      ++column;
    }
    out += piece;
    column += piece.size();
  };
  std::istringstream words{std::string(text)};
  for (std::string word; words >> word;) {
    std::string_view rest = word;
    bool glued = false;
    while (rest.size() > width - indent && rest.find(',') < rest.size() - 1) {
      const size_t comma = rest.find(',');
      add(rest.substr(0, comma + 1), glued);
      rest.remove_prefix(comma + 1);
      glued = true;
    }
    add(rest, glued);
  }
  return out + '\n';
}

}  // namespace karpenter
