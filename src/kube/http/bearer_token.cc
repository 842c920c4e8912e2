#include "kube/http/bearer_token.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "common/mutex.h"
#include "common/read_file.h"

namespace karpenter::kube::http {

BearerToken::BearerToken(std::string token, std::string file)
    : token_(std::move(token)), file_(std::move(file)) {}

Result<std::string> BearerToken::Get() {
  MutexLock lock(mu_);
  if (file_.empty()) return token_;
  // One stat per request is cheap next to the request itself and notices a rotation at once.
  struct stat info {};
  if (::stat(file_.c_str(), &info) != 0) {
    if (!token_.empty()) return token_;
    return Error{"cannot read " + file_ + ": " + std::strerror(errno)};
  }
  const bool changed = !read_ || info.st_ino != inode_ || info.st_size != size_ ||
                       info.st_mtim.tv_sec != modified_.tv_sec ||
                       info.st_mtim.tv_nsec != modified_.tv_nsec;
  if (!changed) return token_;
  Result<std::string> token = ReadTokenFile(file_);
  if (!token.ok()) {
    if (!token_.empty()) return token_;
    return token.error();
  }
  token_ = std::move(*token);
  read_ = true;
  inode_ = info.st_ino;
  size_ = info.st_size;
  modified_ = info.st_mtim;
  return token_;
}

}  // namespace karpenter::kube::http
