#pragma once
// The bearer token of the Authorization header: a fixed one, or one read from a file that is read
// again whenever the file changes, because projected service-account tokens rotate (the kubelet
// swaps the file every hour or so while the client keeps running).

#include <sys/types.h>

#include <ctime>
#include <mutex>
#include <string>

#include "common/mutex.h"
#include "common/result.h"

namespace karpenter::kube::http {

class BearerToken {
 public:
  // `file` empty: always `token`. Otherwise the file's token, or `token` until the file has been
  // read once successfully.
  BearerToken(std::string token, std::string file);

  // The current token; empty when the client does not send one. Thread-safe. A file that cannot
  // be read keeps the last token read (a rotation in progress), or fails when there is none.
  Result<std::string> Get();

 private:
  Mutex mu_;
  std::string token_ GUARDED_BY(mu_);
  const std::string file_;
  // What the file looked like when it was read last: any change means read it again.
  bool read_ GUARDED_BY(mu_) = false;
  ino_t inode_ GUARDED_BY(mu_) = 0;
  off_t size_ GUARDED_BY(mu_) = 0;
  timespec modified_ GUARDED_BY(mu_){};
};

}  // namespace karpenter::kube::http
