#pragma once
// Walking a paginated AWS operation (EC2, SSM and Pricing all answer with a NextToken) until the
// last page, without trusting the server to end: a repeated token or too many pages is an Error.

#include <functional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace karpenter::aws {

// Fetches and consumes the page that `token` names (empty for the first page) and returns the
// next page's token, empty after the last page.
using PageFunction = std::function<Result<std::string>(const std::string& token)>;

inline constexpr int kDefaultMaxPages = 1000;

// Calls `fetch` until it returns no token. Stops with an Error naming `operation` on a fetch's
// Error, when the server returns the token it was just given, or after `max_pages` pages.
Status Paginate(std::string_view operation, const PageFunction& fetch,
                int max_pages = kDefaultMaxPages);

}  // namespace karpenter::aws
