#include "api/resource_list.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/matchers.h"

namespace karpenter::api {
namespace {

using testing::ElementsAre;
using testing::IsEmpty;

Quantity Q(std::string_view text) {
  Result<Quantity> q = Quantity::Parse(text);
  EXPECT_THAT(q, IsOk()) << text;
  return q.ok() ? *q : Quantity();
}

ResourceList List(std::initializer_list<std::pair<std::string_view, std::string_view>> entries) {
  ResourceList list;
  for (const auto& [name, text] : entries) list.Set(name, Q(text));
  return list;
}

std::vector<std::string> Entries(const ResourceList& list) {
  std::vector<std::string> out;
  list.ForEach([&](std::string_view name, Quantity q) {
    out.push_back(std::string(name) + "=" + q.ToString());
  });
  return out;
}

TEST(ResourceListTest, CoreResourcesHaveSlots) {
  const ResourceList list =
      List({{"cpu", "1500m"}, {"memory", "2Gi"}, {"pods", "110"}, {"ephemeral-storage", "20G"}});
  EXPECT_EQ(list.cpu(), Q("1.5"));
  EXPECT_EQ(list.memory(), Q("2Gi"));
  EXPECT_EQ(list.pods(), Q("110"));
  EXPECT_EQ(list.ephemeral_storage(), Q("20G"));
  EXPECT_EQ(list.Get(kResourceCpu), Q("1500m"));
  EXPECT_EQ(list.Get("memory"), Q("2048Mi"));
  EXPECT_TRUE(list.Get("nvidia.com/gpu").is_zero());
}

TEST(ResourceListTest, ExtendedResourcesAreKeptSortedByName) {
  ResourceList list;
  list.Set("vpc.amazonaws.com/pod-eni", Q("9"));
  list.Set("nvidia.com/gpu", Q("4"));
  list.Set("amd.com/gpu", Q("2"));
  list.Set("memory", Q("1Gi"));
  list.Set("cpu", Q("2"));
  EXPECT_EQ(list.Get("nvidia.com/gpu"), Q("4"));
  EXPECT_EQ(list.Get("amd.com/gpu"), Q("2"));
  EXPECT_EQ(list.Get("vpc.amazonaws.com/pod-eni"), Q("9"));
  EXPECT_TRUE(list.Get("aws.amazon.com/neuron").is_zero());
  EXPECT_THAT(Entries(list), ElementsAre("cpu=2", "memory=1Gi", "amd.com/gpu=2", "nvidia.com/gpu=4",
                                         "vpc.amazonaws.com/pod-eni=9"));
}

TEST(ResourceListTest, SetReplacesAndZeroRemoves) {
  ResourceList list = List({{"nvidia.com/gpu", "1"}, {"cpu", "1"}});
  list.Set("nvidia.com/gpu", Q("3"));
  EXPECT_EQ(list.Get("nvidia.com/gpu"), Q("3"));
  list.Set("nvidia.com/gpu", Quantity());
  EXPECT_TRUE(list.Get("nvidia.com/gpu").is_zero());
  EXPECT_EQ(list, List({{"cpu", "1"}}));
  list.Set("cpu", Quantity());
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list, ResourceList());
}

TEST(ResourceListTest, AddAccumulates) {
  ResourceList list;
  list.Add("cpu", Q("250m"));
  list.Add("cpu", Q("250m"));
  list.Add("nvidia.com/gpu", Q("1"));
  list.Add("nvidia.com/gpu", Q("1"));
  EXPECT_EQ(list.cpu(), Q("500m"));
  EXPECT_EQ(list.Get("nvidia.com/gpu"), Q("2"));
  list.Add("nvidia.com/gpu", Q("-2"));
  EXPECT_EQ(list, List({{"cpu", "500m"}}));
}

TEST(ResourceListTest, PlusAndMinusAreElementWiseOverTheUnionOfNames) {
  const ResourceList a = List({{"cpu", "1"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}});
  const ResourceList b =
      List({{"cpu", "500m"}, {"pods", "1"}, {"amd.com/gpu", "2"}, {"nvidia.com/gpu", "1"}});
  EXPECT_EQ(a + b, List({{"cpu", "1500m"},
                         {"memory", "1Gi"},
                         {"pods", "1"},
                         {"amd.com/gpu", "2"},
                         {"nvidia.com/gpu", "2"}}));
  EXPECT_EQ(a - b, List({{"cpu", "500m"},
                         {"memory", "1Gi"},
                         {"pods", "-1"},
                         {"amd.com/gpu", "-2"}}));  // nvidia.com/gpu cancels out and is removed
  EXPECT_EQ((a + b) - b, a);

  ResourceList c = a;
  c += b;
  c -= a;
  EXPECT_EQ(c, b);
}

TEST(ResourceListTest, MaxWithTakesTheLargerAmountPerResource) {
  ResourceList list = List({{"cpu", "2"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}});
  list.MaxWith(List({{"cpu", "1"}, {"memory", "4Gi"}, {"amd.com/gpu", "1"}}));
  EXPECT_EQ(list,
            List({{"cpu", "2"}, {"memory", "4Gi"}, {"amd.com/gpu", "1"}, {"nvidia.com/gpu", "1"}}));
  list.MaxWith(ResourceList());
  EXPECT_EQ(list.cpu(), Q("2"));
}

TEST(ResourceListTest, FitsInComparesEveryNamedAmount) {
  const ResourceList capacity =
      List({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "1"}});
  EXPECT_TRUE(ResourceList().FitsIn(capacity));
  EXPECT_TRUE(List({{"cpu", "4"}, {"memory", "16Gi"}}).FitsIn(capacity));  // equal fits
  EXPECT_TRUE(List({{"nvidia.com/gpu", "1"}, {"pods", "1"}}).FitsIn(capacity));
  EXPECT_FALSE(List({{"cpu", "4001m"}}).FitsIn(capacity));
  EXPECT_FALSE(List({{"memory", "17Gi"}}).FitsIn(capacity));
  EXPECT_FALSE(List({{"nvidia.com/gpu", "2"}}).FitsIn(capacity));
  // Missing from capacity means zero.
  EXPECT_FALSE(List({{"amd.com/gpu", "1"}}).FitsIn(capacity));
  EXPECT_FALSE(List({{"ephemeral-storage", "1"}}).FitsIn(capacity));
}

TEST(ResourceListTest, ZeroAmountsFitOverCommittedCapacity) {
  // What is left on a node can be negative; a request that does not name a resource still fits.
  const ResourceList remaining =
      List({{"cpu", "-100m"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "-1"}});
  EXPECT_TRUE(List({{"memory", "1Gi"}}).FitsIn(remaining));
  EXPECT_FALSE(List({{"memory", "1Gi"}, {"cpu", "1m"}}).FitsIn(remaining));
  EXPECT_FALSE(List({{"nvidia.com/gpu", "1"}}).FitsIn(remaining));
  EXPECT_THAT(List({{"memory", "1Gi"}}).Exceeding(remaining), IsEmpty());
}

TEST(ResourceListTest, ExceedingNamesCoreThenExtendedResources) {
  const ResourceList capacity = List({{"cpu", "2"}, {"memory", "4Gi"}, {"nvidia.com/gpu", "1"}});
  const ResourceList request = List({{"cpu", "3"},
                                     {"memory", "4Gi"},
                                     {"pods", "1"},
                                     {"nvidia.com/gpu", "2"},
                                     {"amd.com/gpu", "1"},
                                     {"vpc.amazonaws.com/pod-eni", "0"}});
  EXPECT_THAT(request.Exceeding(capacity),
              ElementsAre("cpu", "pods", "amd.com/gpu", "nvidia.com/gpu"));
  EXPECT_THAT(List({{"cpu", "2"}}).Exceeding(capacity), IsEmpty());
}

TEST(ResourceListTest, EmptyMeansAllZero) {
  EXPECT_TRUE(ResourceList().empty());
  EXPECT_FALSE(List({{"pods", "1"}}).empty());
  EXPECT_FALSE(List({{"nvidia.com/gpu", "1"}}).empty());
  EXPECT_TRUE(List({{"cpu", "0"}, {"nvidia.com/gpu", "0"}}).empty());
  ResourceList list = List({{"cpu", "1"}});
  list -= List({{"cpu", "1"}});
  EXPECT_TRUE(list.empty());
}

TEST(ResourceListTest, ForEachSkipsZeros) {
  const ResourceList list = List({{"cpu", "0"}, {"memory", "1Mi"}, {"nvidia.com/gpu", "0"}});
  EXPECT_THAT(Entries(list), ElementsAre("memory=1Mi"));
}

TEST(ResourceListTest, EqualityIgnoresHowTheListWasBuilt) {
  ResourceList a;
  a.Set("b.example/x", Q("1"));
  a.Set("a.example/y", Q("2"));
  ResourceList b;
  b.Set("a.example/y", Q("2"));
  b.Set("b.example/x", Q("1"));
  EXPECT_EQ(a, b);
  b.Set("a.example/y", Q("3"));
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace karpenter::api
