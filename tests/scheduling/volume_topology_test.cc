#include "scheduling/volume_topology.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "api/labels.h"

namespace karpenter::scheduling {
namespace {

using Op = api::NodeSelectorOperator;

const std::string kZone(api::kLabelZone);

api::NodeSelectorTerm ZoneTerm(std::vector<std::string> zones) {
  return {{{kZone, Op::kIn, std::move(zones), std::nullopt}}, {}};
}

api::PersistentVolumeClaim Claim(std::string name, std::string ns,
                                 std::optional<std::string> storage_class,
                                 std::string volume = "") {
  api::PersistentVolumeClaim pvc;
  pvc.metadata.name = std::move(name);
  pvc.metadata.namespace_ = std::move(ns);
  pvc.storage_class_name = std::move(storage_class);
  pvc.volume_name = std::move(volume);
  return pvc;
}

api::StorageClass Class(std::string name, std::string mode,
                        std::vector<api::NodeSelectorTerm> terms, bool is_default = false) {
  api::StorageClass sc;
  sc.metadata.name = std::move(name);
  sc.volume_binding_mode = std::move(mode);
  sc.allowed_topologies = std::move(terms);
  sc.is_default = is_default;
  return sc;
}

api::Pod PodWithClaims(std::vector<std::string> claims, std::string ns = "t") {
  api::Pod pod;
  pod.metadata.name = "p";
  pod.metadata.namespace_ = std::move(ns);
  for (auto& claim : claims) {
    api::Volume v;
    v.name = claim;
    v.persistent_volume_claim = claim;
    pod.spec.volumes.push_back(std::move(v));
  }
  return pod;
}

class VolumeTopologyTest : public testing::Test {
 protected:
  void SetUp() override {
    pv_.metadata.name = "pv-1";
    pv_.node_affinity = {ZoneTerm({"z2"}), ZoneTerm({"z3"})};
    claims_ = {Claim("bound", "t", "gp3", "pv-1"),
               Claim("waiting", "t", "wffc"),
               Claim("immediate", "t", "fast"),
               Claim("defaulted", "t", std::nullopt),
               Claim("dangling", "t", "gp3", "pv-missing"),
               Claim("elsewhere", "other", "wffc-z1")};
    classes_ = {Class("wffc", "WaitForFirstConsumer", {ZoneTerm({"z1", "z2"}), ZoneTerm({"z3"})}),
                Class("wffc-z1", "WaitForFirstConsumer", {ZoneTerm({"z1"})}),
                Class("fast", "Immediate", {ZoneTerm({"z3"})}),
                Class("standard", "WaitForFirstConsumer", {ZoneTerm({"z3"})}, true)};
    for (const auto& c : claims_) storage_.claims.push_back(&c);
    for (const auto& c : classes_) storage_.classes.push_back(&c);
    storage_.volumes.push_back(&pv_);
  }

  std::vector<std::string> Zones(const api::Pod& pod) const {
    const Requirements r = VolumeRequirements(pod, storage_);
    const Requirement* zone = r.Get(kZone);
    return zone == nullptr ? std::vector<std::string>{"<none>"} : zone->Values();
  }

  api::PersistentVolume pv_;
  std::vector<api::PersistentVolumeClaim> claims_;
  std::vector<api::StorageClass> classes_;
  StorageState storage_;
};

TEST_F(VolumeTopologyTest, BoundClaimUsesTheVolumesFirstTerm) {
  EXPECT_EQ(Zones(PodWithClaims({"bound"})), std::vector<std::string>{"z2"});
}

TEST_F(VolumeTopologyTest, UnboundWaitForFirstConsumerClaimUsesAllowedTopologies) {
  EXPECT_EQ(Zones(PodWithClaims({"waiting"})), (std::vector<std::string>{"z1", "z2"}));
}

TEST_F(VolumeTopologyTest, UnboundImmediateClaimAddsNothing) {
  EXPECT_TRUE(VolumeRequirements(PodWithClaims({"immediate"}), storage_).empty());
}

TEST_F(VolumeTopologyTest, ClaimWithoutClassUsesTheDefaultClass) {
  EXPECT_EQ(Zones(PodWithClaims({"defaulted"})), std::vector<std::string>{"z3"});
}

TEST_F(VolumeTopologyTest, MissingClaimsAndVolumesAddNothing) {
  EXPECT_TRUE(VolumeRequirements(PodWithClaims({"nope"}), storage_).empty());
  EXPECT_TRUE(VolumeRequirements(PodWithClaims({"dangling"}), storage_).empty());
  EXPECT_TRUE(VolumeRequirements(PodWithClaims({}), storage_).empty());
}

TEST_F(VolumeTopologyTest, ClaimsAreLookedUpInThePodsNamespace) {
  // "elsewhere" lives in namespace other: a pod in t does not see it.
  EXPECT_TRUE(VolumeRequirements(PodWithClaims({"elsewhere"}), storage_).empty());
  EXPECT_EQ(Zones(PodWithClaims({"elsewhere"}, "other")), std::vector<std::string>{"z1"});
}

TEST_F(VolumeTopologyTest, SeveralVolumesIntersect) {
  EXPECT_EQ(Zones(PodWithClaims({"waiting", "bound"})), std::vector<std::string>{"z2"});
  const Requirements r = VolumeRequirements(PodWithClaims({"bound", "defaulted"}), storage_);
  ASSERT_NE(r.Get(kZone), nullptr);
  EXPECT_TRUE(r.Get(kZone)->Empty());
}

TEST_F(VolumeTopologyTest, GenericEphemeralVolumeUsesItsClass) {
  api::Pod pod = PodWithClaims({});
  api::Volume named;
  named.name = "scratch";
  named.ephemeral = true;
  named.ephemeral_storage_class = "wffc-z1";
  pod.spec.volumes.push_back(named);
  EXPECT_EQ(Zones(pod), std::vector<std::string>{"z1"});

  api::Pod defaulted = PodWithClaims({});
  api::Volume unnamed;
  unnamed.name = "scratch";
  unnamed.ephemeral = true;
  defaulted.spec.volumes.push_back(unnamed);
  EXPECT_EQ(Zones(defaulted), std::vector<std::string>{"z3"});
}

TEST_F(VolumeTopologyTest, NoDefaultClassAddsNothing) {
  storage_.classes.pop_back();  // drop the default class
  EXPECT_TRUE(VolumeRequirements(PodWithClaims({"defaulted"}), storage_).empty());
}

}  // namespace
}  // namespace karpenter::scheduling
