#include "common/log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/json.h"

namespace karpenter {
namespace {

using json = Json;
using testing::ElementsAre;

// 2024-09-10T15:21:13.098Z
TimePoint Start() { return TimePoint(std::chrono::milliseconds(1725981673098)); }

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every line must parse on its own: log shippers read one JSON object a line.
std::vector<json> Parse(const std::string& text) {
  std::vector<json> objects;
  for (const std::string& line : Lines(text)) {
    json object = json::parse(line, nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(object.is_object()) << line;
    objects.push_back(std::move(object));
  }
  return objects;
}

class LogTest : public testing::Test {
 protected:
  Logger Root(LogLevel min_level = LogLevel::kDebug) {
    return Logger(std::make_shared<LogSink>(out_, clock_, min_level), "controller");
  }

  VirtualClock clock_{Start()};
  std::ostringstream out_;
};

TEST_F(LogTest, WritesOneJsonObjectALineWithTheHeaderFirst) {
  Root().Info("created nodeclaim", {{"pods", 8}});
  EXPECT_EQ(out_.str(),
            R"({"level":"INFO","time":"2024-09-10T15:21:13.098Z","logger":"controller",)"
            R"("message":"created nodeclaim","pods":8})"
            "\n");
}

TEST_F(LogTest, TimeHasMillisecondsInUtc) {
  const Logger log = Root();
  clock_.Set(TimePoint(std::chrono::seconds(1725981673)));
  log.Info("a");
  clock_.Advance(std::chrono::microseconds(1999));  // truncated, not rounded
  log.Info("b");
  const std::vector<json> lines = Parse(out_.str());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["time"], "2024-09-10T15:21:13.000Z");
  EXPECT_EQ(lines[1]["time"], "2024-09-10T15:21:13.001Z");
}

TEST_F(LogTest, NamesLevels) {
  const Logger log = Root();
  log.Debug("d");
  log.Info("i");
  log.Warn("w");
  log.Error("e");
  std::vector<std::string> levels;
  for (const json& line : Parse(out_.str())) levels.push_back(line["level"]);
  EXPECT_THAT(levels, ElementsAre("DEBUG", "INFO", "WARN", "ERROR"));
}

TEST_F(LogTest, DropsLinesBelowTheMinimumLevel) {
  const Logger log = Root(LogLevel::kWarn);
  EXPECT_FALSE(log.Enabled(LogLevel::kDebug));
  EXPECT_FALSE(log.Enabled(LogLevel::kInfo));
  EXPECT_TRUE(log.Enabled(LogLevel::kWarn));
  EXPECT_TRUE(log.Enabled(LogLevel::kError));
  log.Debug("d");
  log.Info("i");
  log.Warn("w");
  log.Error("e");
  std::vector<std::string> messages;
  for (const json& line : Parse(out_.str())) messages.push_back(line["message"]);
  EXPECT_THAT(messages, ElementsAre("w", "e"));
}

TEST_F(LogTest, NamedChildrenJoinNamesWithDots) {
  const Logger root = Root();
  root.Named("provisioner").Info("a");
  root.Named("disruption").Named("consolidation").Info("b");
  root.Info("c");
  std::vector<std::string> names;
  for (const json& line : Parse(out_.str())) names.push_back(line["logger"]);
  EXPECT_THAT(names, ElementsAre("controller.provisioner", "controller.disruption.consolidation",
                                 "controller"));
}

TEST_F(LogTest, AnUnnamedLoggerLeavesTheLoggerKeyOut) {
  const Logger unnamed(std::make_shared<LogSink>(out_, clock_));
  unnamed.Info("a");
  unnamed.Named("provisioner").Info("b");
  const std::vector<json> lines = Parse(out_.str());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_FALSE(lines[0].contains("logger"));
  EXPECT_EQ(lines[1]["logger"], "provisioner");
}

TEST_F(LogTest, WithAddsFieldsToEveryLineOfTheChildOnly) {
  const Logger root = Root();
  const Logger pool = root.Named("provisioner").With({logkey::NodePool("default")});
  pool.Info("a", {{"pods", 3}});
  pool.With({{"commit", "abc"}}).Info("b");
  root.Info("c");
  EXPECT_EQ(
      Lines(out_.str())[0],
      R"({"level":"INFO","time":"2024-09-10T15:21:13.098Z","logger":"controller.provisioner",)"
      R"("message":"a","NodePool":{"name":"default"},"pods":3})");
  const std::vector<json> lines = Parse(out_.str());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1]["NodePool"]["name"], "default");
  EXPECT_EQ(lines[1]["commit"], "abc");
  EXPECT_FALSE(lines[2].contains("NodePool"));
}

TEST_F(LogTest, LaterFieldsReplaceEarlierOnesInPlace) {
  Root().With({{"a", 1}, {"b", 2}}).With({{"a", 3}}).Info("m", {{"b", 4}, {"c", 5}});
  EXPECT_THAT(Lines(out_.str()), ElementsAre(testing::EndsWith(R"("a":3,"b":4,"c":5})")));
}

TEST_F(LogTest, FieldsCarryStringsNumbersBoolsAndObjects) {
  Root().Info("m", {{"s", "text"},
                    {"i", -2},
                    {"d", 0.5},
                    {"b", true},
                    {"o", json{{"cpu", "260m"}}},
                    {"a", json::array({1, 2})}});
  const json line = Parse(out_.str()).at(0);
  EXPECT_EQ(line["s"], "text");
  EXPECT_EQ(line["i"], -2);
  EXPECT_EQ(line["d"], 0.5);
  EXPECT_EQ(line["b"], true);
  EXPECT_EQ(line["o"]["cpu"], "260m");
  EXPECT_EQ(line["a"], json::array({1, 2}));
}

TEST_F(LogTest, FieldsCannotHideTheLinesOwnKeys) {
  Root().With({{"logger", "x"}}).Info("real", {{"message", "fake"}, {"level", "x"}});
  const std::string text = out_.str();
  const json line = Parse(text).at(0);
  EXPECT_EQ(line["message"], "real");
  EXPECT_EQ(line["message_"], "fake");
  EXPECT_EQ(line["level"], "INFO");
  EXPECT_EQ(line["level_"], "x");
  EXPECT_EQ(line["logger"], "controller");
  EXPECT_EQ(line["logger_"], "x");
  EXPECT_EQ(text.find("\"message\":", text.find("\"message\":") + 1), std::string::npos);
}

TEST_F(LogTest, EscapesTextSoEachLineStaysOneValidObject) {
  Root().Info("quote \" newline \n tab \t", {{"bad-utf8", std::string("a\xff"
                                                                      "b")},
                                             {"key \"with\" quotes", "\\"}});
  const std::vector<std::string> lines = Lines(out_.str());
  ASSERT_EQ(lines.size(), 1u);
  const json line = Parse(out_.str()).at(0);
  EXPECT_EQ(line["message"], "quote \" newline \n tab \t");
  EXPECT_EQ(line["bad-utf8"],
            "a\xEF\xBF\xBD"
            "b");  // U+FFFD
  EXPECT_EQ(line["key \"with\" quotes"], "\\");
}

TEST_F(LogTest, VocabularyMatchesUpstreamShapes) {
  Root().Info("m", {logkey::NodePool("default"), logkey::NodeClaim("default-abcde"),
                    logkey::Node("ip-10-0-1-2.ec2.internal"), logkey::Pod("team-a", "web-0"),
                    logkey::ProviderId("aws:///us-west-2a/i-0123"),
                    logkey::Err(Error("launching nodeclaim, insufficient capacity"))});
  EXPECT_THAT(Lines(out_.str()),
              ElementsAre(testing::EndsWith(
                  R"("NodePool":{"name":"default"},"NodeClaim":{"name":"default-abcde"},)"
                  R"("Node":{"name":"ip-10-0-1-2.ec2.internal"},)"
                  R"("Pod":{"name":"web-0","namespace":"team-a"},)"
                  R"("provider-id":"aws:///us-west-2a/i-0123",)"
                  R"("error":"launching nodeclaim, insufficient capacity"})")));
}

TEST_F(LogTest, ADefaultLoggerDiscardsEverything) {
  const Logger none;
  EXPECT_FALSE(none.Enabled(LogLevel::kError));
  none.Error("nowhere", {{"k", "v"}});
  none.Named("x").With({{"a", 1}}).Info("nowhere");
  EXPECT_EQ(out_.str(), "");
}

TEST_F(LogTest, ConcurrentLinesNeverInterleave) {
  const Logger log = Root();
  constexpr int kThreads = 8;
  constexpr int kLines = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&log, t] {
      for (int i = 0; i < kLines; ++i) {
        log.Named("worker").Info(std::string(100, 'x'), {{"thread", t}, {"i", i}});
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const std::vector<json> lines = Parse(out_.str());
  ASSERT_EQ(lines.size(), static_cast<size_t>(kThreads * kLines));
  for (const json& line : lines) EXPECT_EQ(line["message"].get<std::string>().size(), 100u);
}

TEST(LogSinkTest, WritesToAFile) {
  VirtualClock clock(Start());
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    const Logger log(std::make_shared<LogSink>(file, clock, LogLevel::kInfo), "controller");
    log.Debug("dropped");
    log.Warn("kept", {{"n", 1}});
  }
  std::rewind(file);
  std::string text;
  for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) text += static_cast<char>(c);
  std::fclose(file);
  EXPECT_EQ(text, R"({"level":"WARN","time":"2024-09-10T15:21:13.098Z","logger":"controller",)"
                  R"("message":"kept","n":1})"
                  "\n");
}

TEST(LogLevelTest, ParsesTheLogLevelValues) {
  EXPECT_EQ(ParseLogLevel("debug"), LogLevel::kDebug);
  EXPECT_EQ(ParseLogLevel("info"), LogLevel::kInfo);
  EXPECT_EQ(ParseLogLevel("warn"), LogLevel::kWarn);
  EXPECT_EQ(ParseLogLevel("ERROR"), LogLevel::kError);
  EXPECT_EQ(ParseLogLevel("Info"), LogLevel::kInfo);
  EXPECT_EQ(ParseLogLevel(""), std::nullopt);
  EXPECT_EQ(ParseLogLevel("warning"), std::nullopt);
  EXPECT_EQ(ParseLogLevel("trace"), std::nullopt);
}

TEST(LogLevelTest, NamesAreZapsCapitals) {
  EXPECT_EQ(LogLevelName(LogLevel::kDebug), "DEBUG");
  EXPECT_EQ(LogLevelName(LogLevel::kInfo), "INFO");
  EXPECT_EQ(LogLevelName(LogLevel::kWarn), "WARN");
  EXPECT_EQ(LogLevelName(LogLevel::kError), "ERROR");
}

}  // namespace
}  // namespace karpenter
