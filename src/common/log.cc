#include "common/log.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>

#include "common/mutex.h"

namespace karpenter {
namespace {

constexpr std::array<std::string_view, 4> kHeaderKeys = {"level", "time", "logger", "message"};

// RFC 3339 in UTC with milliseconds, as zap's ISO 8601 encoder writes it: upstream's log queries
// sort and filter on this text.
std::string FormatLogTime(TimePoint time) {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(time);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(time - seconds).count();
  std::string text = FormatTime(seconds);  // "…T15:21:13Z"
  text.pop_back();
  return fmt::format("{}.{:03}Z", text, millis);
}

// Replaces invalid UTF-8 instead of throwing: a log line must never take the controller down,
// whatever bytes an object name or an API error carried.
void AppendJson(std::string& line, const Json& value) {
  line += value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Adds `fields` to `into`; a key already there has its value replaced in place. A key of the line
// itself gets its trailing underscore here, so that it too is written once.
void Merge(LogFields& into, const LogFields& fields) {
  for (const auto& [given_key, value] : fields) {
    const bool reserved =
        std::find(kHeaderKeys.begin(), kHeaderKeys.end(), given_key) != kHeaderKeys.end();
    std::string key = reserved ? given_key + "_" : given_key;
    const auto it = std::find_if(into.begin(), into.end(),
                                 [&key](const LogField& field) { return field.first == key; });
    if (it == into.end()) {
      into.emplace_back(std::move(key), value);
    } else {
      it->second = value;
    }
  }
}

LogField NamedObject(std::string_view kind, std::string_view name) {
  return {std::string(kind), Json{{"name", name}}};
}

}  // namespace

std::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "DEBUG";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarn:
      return "WARN";
    case LogLevel::kError:
      return "ERROR";
  }
  return "INFO";
}

std::optional<LogLevel> ParseLogLevel(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "debug") return LogLevel::kDebug;
  if (lower == "info") return LogLevel::kInfo;
  if (lower == "warn") return LogLevel::kWarn;
  if (lower == "error") return LogLevel::kError;
  return std::nullopt;
}

LogSink::LogSink(std::FILE* out, const Clock& clock, LogLevel min_level)
    : file_(out), clock_(clock), min_level_(min_level) {}

LogSink::LogSink(std::ostream& out, const Clock& clock, LogLevel min_level)
    : stream_(&out), clock_(clock), min_level_(min_level) {}

void LogSink::Write(std::string_view line) {
  MutexLock lock(mutex_);
  if (file_ != nullptr) {
    std::fwrite(line.data(), 1, line.size(), file_);
    std::fputc('\n', file_);
    std::fflush(file_);
  } else if (stream_ != nullptr) {
    stream_->write(line.data(), static_cast<std::streamsize>(line.size()));
    stream_->put('\n');
    stream_->flush();
  }
}

Logger::Logger(std::shared_ptr<LogSink> sink, std::string name)
    : sink_(std::move(sink)), name_(std::move(name)) {}

Logger Logger::Named(std::string_view name) const {
  Logger child = *this;
  if (child.name_.empty()) {
    child.name_ = name;
  } else if (!name.empty()) {
    child.name_ = fmt::format("{}.{}", name_, name);
  }
  return child;
}

Logger Logger::With(const LogFields& fields) const {
  Logger child = *this;
  LogFields merged = fields_ != nullptr ? *fields_ : LogFields{};
  Merge(merged, fields);
  child.fields_ = std::make_shared<const LogFields>(std::move(merged));
  return child;
}

void Logger::Log(LogLevel level, std::string_view message, const LogFields& fields) const {
  if (!Enabled(level)) return;
  LogFields all = fields_ != nullptr ? *fields_ : LogFields{};
  Merge(all, fields);

  std::string line = fmt::format(R"({{"level":"{}","time":"{}")", LogLevelName(level),
                                 FormatLogTime(sink_->clock().Now()));
  // zap leaves the key out for an unnamed logger.
  if (!name_.empty()) {
    line += R"(,"logger":)";
    AppendJson(line, name_);
  }
  line += R"(,"message":)";
  AppendJson(line, message);
  for (const auto& [key, value] : all) {
    line += ',';
    AppendJson(line, key);
    line += ':';
    AppendJson(line, value);
  }
  line += '}';
  sink_->Write(line);
}

namespace logkey {

LogField NodePool(std::string_view name) { return NamedObject("NodePool", name); }
LogField NodeClaim(std::string_view name) { return NamedObject("NodeClaim", name); }
LogField Node(std::string_view name) { return NamedObject("Node", name); }

LogField Pod(std::string_view namespace_, std::string_view name) {
  return {"Pod", Json{{"name", name}, {"namespace", namespace_}}};
}

LogField ProviderId(std::string_view provider_id) { return {"provider-id", provider_id}; }

LogField Err(const karpenter::Error& error) { return {"error", error.message}; }

}  // namespace logkey

}  // namespace karpenter
