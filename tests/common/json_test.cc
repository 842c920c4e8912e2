#include "common/json.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace karpenter {
namespace {

// Objects as nlohmann::json keeps them (std::map), to compare against.
using MapJson = nlohmann::json;

TEST(JsonTest, MembersAreSortedByKeyWhateverTheInsertionOrder) {
  Json object = Json::object();
  for (const char* key : {"status", "apiVersion", "metadata", "kind", "spec", "a", "zz", "Z"}) {
    object[key] = key;
  }
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"Z", "a", "apiVersion", "kind", "metadata", "spec",
                                            "status", "zz"}));
}

TEST(JsonTest, DumpsAndComparesAsTheMapBasedJson) {
  const std::string text =
      R"({"spec":{"containers":[{"name":"b","resources":{"requests":{"memory":"1Gi","cpu":"1"}}}],)"
      R"("nodeName":"n"},"metadata":{"name":"p","labels":{"x":"1","app":"web"}},"kind":"Pod"})";
  const Json ours = Json::parse(text);
  const MapJson theirs = MapJson::parse(text);
  EXPECT_EQ(ours.dump(), theirs.dump());
  // Equality does not depend on the order members were added in.
  Json built = Json::object();
  built["kind"] = "Pod";
  built["metadata"]["labels"]["x"] = "1";
  built["metadata"]["name"] = "p";
  built["metadata"]["labels"]["app"] = "web";
  built["spec"] = ours["spec"];
  EXPECT_EQ(built, ours);
  built["metadata"]["labels"]["app"] = "api";
  EXPECT_NE(built, ours);
}

TEST(JsonTest, LooksUpWithAnyStringKeyAndKeepsTheFirstInsertion) {
  Json object = {{"b", 2}, {"a", 1}, {"c", 3}};
  const std::string_view key = "b";
  EXPECT_TRUE(object.contains(key));
  EXPECT_EQ(object.at(key), 2);
  EXPECT_EQ(object.count("d"), 0u);
  EXPECT_EQ(object.find("d"), object.end());
  EXPECT_EQ(object.value("c", 0), 3);
  // emplace and insert, as on a std::map, leave an existing member alone.
  EXPECT_FALSE(object.emplace("a", 10).second);
  EXPECT_EQ(object["a"], 1);
  const Json more = {{"a", 100}, {"d", 4}};
  object.insert(more.begin(), more.end());
  EXPECT_EQ(object, (Json{{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}}));
  EXPECT_THROW(static_cast<void>(object.at("missing")), Json::out_of_range);
}

TEST(JsonTest, ErasesByKeyAndByIterator) {
  Json object = {{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}};
  EXPECT_EQ(object.erase("b"), 1u);
  EXPECT_EQ(object.erase("b"), 0u);
  object.erase(object.find("a"));
  EXPECT_EQ(object, (Json{{"c", 3}, {"d", 4}}));
  object["b"] = 5;  // back into the middle after erasures
  EXPECT_EQ(object.dump(), R"({"b":5,"c":3,"d":4})");
}

TEST(JsonTest, MergePatchAndJsonPatchBehaveAsOnTheMapBasedJson) {
  const std::string target = R"({"metadata":{"labels":{"a":"1","b":"2"},"name":"n"},"spec":{}})";
  const std::string merge = R"({"metadata":{"labels":{"a":null,"c":"3"}},"status":{"phase":"x"}})";
  Json ours = Json::parse(target);
  MapJson theirs = MapJson::parse(target);
  ours.merge_patch(Json::parse(merge));
  theirs.merge_patch(MapJson::parse(merge));
  EXPECT_EQ(ours.dump(), theirs.dump());
  const std::string patch =
      R"([{"op":"add","path":"/metadata/labels/aa","value":"x"},{"op":"remove","path":"/spec"}])";
  EXPECT_EQ(ours.patch(Json::parse(patch)).dump(), theirs.patch(MapJson::parse(patch)).dump());
}

TEST(JsonTest, ConvertsToAndFromTheMapBasedJson) {
  const MapJson theirs = {{"z", {1, 2}}, {"a", {{"y", true}, {"b", nullptr}}}};
  const Json ours = theirs;
  EXPECT_EQ(ours.dump(), theirs.dump());
  const MapJson back = ours;
  EXPECT_EQ(back, theirs);
}

}  // namespace
}  // namespace karpenter
