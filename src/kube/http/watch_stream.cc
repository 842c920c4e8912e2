#include "kube/http/watch_stream.h"

#include <atomic>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "common/mutex.h"
#include "kube/http/api_error.h"
#include "kube/http/url.h"
#include "kube/http/watch_event.h"

namespace karpenter::kube::http {
namespace {

// Events parsed but not yet taken by Next. Past this the transfer thread stops reading, and the
// server's own buffering (then TCP) holds the rest, so a slow consumer cannot grow memory without
// bound.
constexpr size_t kMaxQueued = 4096;
// A failed watch's body is a Status of a few hundred bytes; more is not worth keeping.
constexpr size_t kMaxErrorBody = size_t{64} * 1024;

class StreamWatch final : public Watch {
 public:
  StreamWatch(Stream stream, std::string path, const Resource& resource)
      : stream_(std::move(stream)),
        path_(std::move(path)),
        api_version_(resource.ApiVersion()),
        kind_(resource.kind) {}

  ~StreamWatch() override {
    {
      // Under the lock, so that a transfer thread between checking abort_ and waiting for room
      // in the queue cannot miss the notification.
      MutexLock lock(mu_);
      abort_ = true;
    }
    cv_.NotifyAll();
    // Interrupts curl_multi_poll at once, so destruction does not wait for the next byte.
    if (multi_ != nullptr) curl_multi_wakeup(multi_);
    if (thread_.joinable()) thread_.join();
    if (multi_ != nullptr) {
      curl_multi_remove_handle(multi_, stream_.easy.get());
      curl_multi_cleanup(multi_);
    }
  }

  StreamWatch(const StreamWatch&) = delete;
  StreamWatch& operator=(const StreamWatch&) = delete;

  Status Start(std::chrono::milliseconds wait) {
    CURL* easy = stream_.easy.get();
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &StreamWatch::OnHeader);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, this);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &StreamWatch::OnData);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, this);
    // A multi handle rather than curl_easy_perform: its poll can be woken from another thread,
    // which is what lets the destructor end a quiet watch immediately (a progress callback
    // would only be asked about once a second).
    multi_ = curl_multi_init();
    if (multi_ == nullptr || curl_multi_add_handle(multi_, easy) != CURLM_OK) {
      return TransportError("GET", Path(), "cannot create a libcurl multi handle");
    }
    thread_ = std::thread(&StreamWatch::Run, this);

    MutexLock lock(mu_);
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (!answered_ && !end_.has_value() && cv_.WaitUntil(lock, deadline)) {
    }
    if (answered_) return {};  // an early end (an ERROR event) is for Next to report
    if (end_.has_value()) return *end_;
    return TransportError("GET", Path(),
                          "no response within " + std::to_string(wait.count() / 1000) + " s");
  }

  Result<std::optional<WatchEvent>> Next(std::chrono::milliseconds timeout) override {
    std::optional<WatchEvent> event;
    {
      MutexLock lock(mu_);
      const auto deadline = std::chrono::steady_clock::now() + timeout;
      while (events_.empty() && !end_.has_value() && cv_.WaitUntil(lock, deadline)) {
      }
      if (events_.empty()) {
        if (end_.has_value()) return *end_;
        return std::optional<WatchEvent>();
      }
      event = std::move(events_.front());
      events_.pop_front();
    }
    cv_.NotifyAll();  // room in the queue for a transfer thread that waits for it
    return event;
  }

 private:
  // The path without its query, for messages.
  std::string_view Path() const { return PathWithoutQuery(path_); }

  // The transfer thread.
  void Run() {
    CURLMcode code = CURLM_OK;
    while (!abort_.load()) {
      int running = 0;
      code = curl_multi_perform(multi_, &running);
      if (code != CURLM_OK || running == 0) break;
      code = curl_multi_poll(multi_, nullptr, 0, /*timeout_ms=*/1000, nullptr);
      if (code != CURLM_OK) break;
    }
    if (abort_.load()) return;  // nobody is waiting for the outcome
    if (code != CURLM_OK) {
      Finish(TransportError("GET", Path(), curl_multi_strerror(code)));
      return;
    }
    CURLcode result = CURLE_OK;
    int left = 0;
    while (const CURLMsg* message = curl_multi_info_read(multi_, &left)) {
      if (message->msg == CURLMSG_DONE) result = message->data.result;
    }
    if (result != CURLE_OK) {
      const char* buffer = stream_.error_buffer->data();
      Finish(TransportError("GET", Path(), *buffer != '\0' ? buffer : curl_easy_strerror(result)));
      return;
    }
    if (status_ < 200 || status_ > 299) {
      Finish(ResponseError("GET", Path(), status_, error_body_));
      return;
    }
    if (!pending_.empty() && !HandleLine(pending_)) return;  // a last line without a newline
    Finish(Error{"watch " + std::string(Path()) + ": the server closed the stream", 0, "Closed"});
  }

  static size_t OnHeader(char* data, size_t size, size_t count, void* self) {
    auto* watch = static_cast<StreamWatch*>(self);
    const std::string_view line(data, size * count);
    // The empty line ends the headers; the status is known then. 1xx answers precede the real one.
    if (line != "\r\n" && line != "\n") return size * count;
    long status = 0;  // NOLINT(google-runtime-int): libcurl's type
    curl_easy_getinfo(watch->stream_.easy.get(), CURLINFO_RESPONSE_CODE, &status);
    if (status < 200) return size * count;
    watch->status_ = static_cast<int>(status);
    if (status <= 299) {
      {
        MutexLock lock(watch->mu_);
        watch->answered_ = true;
      }
      watch->cv_.NotifyAll();
    }
    return size * count;
  }

  static size_t OnData(char* data, size_t size, size_t count, void* self) {
    auto* watch = static_cast<StreamWatch*>(self);
    const size_t n = size * count;
    if (watch->status_ < 200 || watch->status_ > 299) {
      if (watch->error_body_.size() < kMaxErrorBody) watch->error_body_.append(data, n);
      return n;
    }
    watch->pending_.append(data, n);
    size_t start = 0;
    for (size_t newline = watch->pending_.find('\n'); newline != std::string::npos;
         newline = watch->pending_.find('\n', start)) {
      const std::string_view line(watch->pending_.data() + start, newline - start);
      start = newline + 1;
      // Returning less than n makes libcurl end the transfer (CURLE_WRITE_ERROR); the reason is
      // already recorded.
      if (!watch->HandleLine(line)) return 0;
    }
    watch->pending_.erase(0, start);
    if (watch->pending_.size() > kMaxWatchEventBytes) {
      watch->Finish(Error{"watch " + std::string(watch->Path()) + ": an event of more than " +
                              std::to_string(kMaxWatchEventBytes) + " bytes from the server",
                          0, "Unavailable"});
      return 0;
    }
    return n;
  }

  // Parses one event and queues it. False when the watch is over (an ERROR event, a malformed
  // line, or the destructor asking).
  bool HandleLine(std::string_view line) {
    Result<std::optional<WatchEvent>> event = ParseWatchEvent(line, Path(), api_version_, kind_);
    if (!event.ok()) {
      Finish(event.error());
      return false;
    }
    if (!event->has_value()) return true;
    {
      MutexLock lock(mu_);
      while (events_.size() >= kMaxQueued && !abort_.load()) cv_.Wait(lock);
      if (abort_.load()) return false;
      events_.push_back(std::move(**event));
    }
    cv_.NotifyAll();
    return true;
  }

  // Records how the watch ended; the first reason wins.
  void Finish(Error error) {
    {
      MutexLock lock(mu_);
      if (end_.has_value()) return;
      end_ = std::move(error);
    }
    cv_.NotifyAll();
  }

  Stream stream_;
  const std::string path_;
  const std::string api_version_;
  const std::string kind_;
  CURLM* multi_ = nullptr;
  std::thread thread_;
  std::atomic<bool> abort_{false};

  // Used by the transfer thread only.
  int status_ = 0;
  std::string pending_;  // the start of a line whose end has not arrived
  std::string error_body_;

  Mutex mu_;
  CondVar cv_;
  std::deque<WatchEvent> events_ GUARDED_BY(mu_);
  bool answered_ GUARDED_BY(mu_) = false;  // a 2xx status arrived
  std::optional<Error> end_ GUARDED_BY(mu_);
};

}  // namespace

Result<std::unique_ptr<Watch>> OpenWatch(Stream stream, std::string path, const Resource& resource,
                                         std::chrono::milliseconds wait) {
  auto watch = std::make_unique<StreamWatch>(std::move(stream), std::move(path), resource);
  RETURN_IF_ERROR(watch->Start(wait));
  return std::unique_ptr<Watch>(std::move(watch));
}

}  // namespace karpenter::kube::http
