#pragma once
// Structured logs in the shape upstream Karpenter writes them, so the queries and dashboards users
// built on those logs keep working: one JSON object a line,
//
//   {"level":"INFO","time":"2024-09-10T15:21:13.098Z","logger":"controller.provisioner",
//    "message":"created nodeclaim","NodePool":{"name":"default"},"pods":8}
//
// A Logger is a small value (a name, fixed fields and a shared sink) passed explicitly to whatever
// logs; there is no global logger. The sink owns the output, the minimum level and the clock.

#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/json.h"
#include "common/mutex.h"
#include "common/result.h"

namespace karpenter {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

// "DEBUG", "INFO", "WARN", "ERROR": the names zap writes.
std::string_view LogLevelName(LogLevel level);
// "debug", "info", "warn" or "error" (any case), the LOG_LEVEL values.
std::optional<LogLevel> ParseLogLevel(std::string_view text);

// A key and a JSON value (string, number, bool, object, …).
using LogField = std::pair<std::string, Json>;
using LogFields = std::vector<LogField>;

// Where log lines go. Each line is written whole, under a mutex, and flushed at once: the
// controller runs many threads, and a container's stdout is a pipe that would otherwise hold
// lines back in a buffer. `clock` must outlive the sink.
class LogSink {
 public:
  LogSink(std::FILE* out, const Clock& clock, LogLevel min_level = LogLevel::kInfo);
  LogSink(std::ostream& out, const Clock& clock, LogLevel min_level = LogLevel::kInfo);
  LogSink(const LogSink&) = delete;
  LogSink& operator=(const LogSink&) = delete;

  bool Enabled(LogLevel level) const { return level >= min_level_; }
  const Clock& clock() const { return clock_; }
  // Writes `line` and a newline.
  void Write(std::string_view line);

 private:
  // Lines are written whole, one at a time.
  std::FILE* file_ PT_GUARDED_BY(mutex_) = nullptr;
  std::ostream* stream_ PT_GUARDED_BY(mutex_) = nullptr;
  const Clock& clock_;
  const LogLevel min_level_;
  Mutex mutex_;
};

class Logger {
 public:
  // Discards everything: for code paths and tests that have nowhere to log.
  Logger() = default;
  explicit Logger(std::shared_ptr<LogSink> sink, std::string name = "");

  const std::string& name() const { return name_; }

  // A child whose name is this one's plus "." and `name` ("controller" → "controller.provisioner").
  Logger Named(std::string_view name) const;
  // A child that adds `fields` to every line; a key given again replaces the earlier value.
  Logger With(const LogFields& fields) const;

  // Whether a line at `level` would be written; lets callers skip building costly fields.
  bool Enabled(LogLevel level) const { return sink_ != nullptr && sink_->Enabled(level); }

  // Fields given here come after (and replace) the logger's fixed ones. The keys "level", "time",
  // "logger" and "message" belong to the line itself: a field with one of them is written with a
  // trailing underscore ("message_") rather than hide the real one.
  void Log(LogLevel level, std::string_view message, const LogFields& fields = {}) const;
  void Debug(std::string_view message, const LogFields& fields = {}) const {
    Log(LogLevel::kDebug, message, fields);
  }
  void Info(std::string_view message, const LogFields& fields = {}) const {
    Log(LogLevel::kInfo, message, fields);
  }
  void Warn(std::string_view message, const LogFields& fields = {}) const {
    Log(LogLevel::kWarn, message, fields);
  }
  void Error(std::string_view message, const LogFields& fields = {}) const {
    Log(LogLevel::kError, message, fields);
  }

 private:
  std::shared_ptr<LogSink> sink_;
  std::string name_;
  // Shared between copies: a logger is copied far more often than it gains fields.
  std::shared_ptr<const LogFields> fields_;
};

// Karpenter's vocabulary for the objects a line is about, in upstream's shape, so that
// `NodeClaim.name` finds the same lines in our logs as in upstream's.
namespace logkey {
LogField NodePool(std::string_view name);                          // "NodePool":{"name":…}
LogField NodeClaim(std::string_view name);                         // "NodeClaim":{"name":…}
LogField Node(std::string_view name);                              // "Node":{"name":…}
LogField Pod(std::string_view namespace_, std::string_view name);  // "Pod":{"name":…,"namespace":…}
LogField ProviderId(std::string_view provider_id);                 // "provider-id":"aws:///…"
LogField Err(const karpenter::Error& error);                       // "error":"<message>"
}  // namespace logkey

}  // namespace karpenter
