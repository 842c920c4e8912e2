#include "aws/sdk/pagination.h"

namespace karpenter::aws {

Status Paginate(std::string_view operation, const PageFunction& fetch, int max_pages) {
  std::string token;
  for (int page = 1; page <= max_pages; ++page) {
    ASSIGN_OR_RETURN(std::string next, fetch(token));
    if (next.empty()) return {};
    if (next == token) {
      return Error{std::string(operation) + ": the server returned the same NextToken for page " +
                   std::to_string(page + 1) + " as for page " + std::to_string(page)};
    }
    token = std::move(next);
  }
  return Error{std::string(operation) + ": still more pages after " + std::to_string(max_pages) +
               "; stopped in case the server never ends"};
}

}  // namespace karpenter::aws
