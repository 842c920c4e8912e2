#include "controllers/nodepool_hash.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "common/hash.h"

namespace karpenter::controllers {
namespace {

kube::Object Pool() {
  return kube::Object::parse(R"({
    "apiVersion": "karpenter.sh/v1", "kind": "NodePool",
    "metadata": {"name": "default", "uid": "u-1", "resourceVersion": "7", "generation": 2},
    "spec": {
      "template": {
        "metadata": {"labels": {"team": "web"}, "annotations": {"note": "x"}},
        "spec": {
          "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In",
                            "values": ["spot"]}],
          "taints": [{"key": "dedicated", "value": "web", "effect": "NoSchedule"}],
          "startupTaints": [{"key": "agent", "effect": "NoExecute"}],
          "expireAfter": "720h",
          "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                           "name": "default"}}},
      "limits": {"cpu": "100"},
      "weight": 10,
      "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "1m"}},
    "status": {"nodes": 3}})");
}

TEST(NodePoolHashTest, DecimalTextOfTheTemplateHash) {
  const std::string hash = NodePoolHash(Pool());
  ASSERT_FALSE(hash.empty());
  for (const char c : hash) EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(c))) << hash;
  // Stable across runs and builds: the hash of the template's canonical JSON (keys sorted, no
  // spaces, requirements left out), which this test spells out.
  const kube::Object minimal = kube::Object::parse(R"({"spec": {"template": {"spec": {
      "nodeClassRef": {"name": "default", "kind": "EC2NodeClass", "group": "karpenter.k8s.aws"},
      "requirements": []}}}})");
  EXPECT_EQ(NodePoolHash(minimal),
            std::to_string(Fnv1a64(R"({"spec":{"nodeClassRef":{"group":"karpenter.k8s.aws",)"
                                   R"("kind":"EC2NodeClass","name":"default"}}})")));
}

TEST(NodePoolHashTest, RequirementsAreLeftOut) {
  kube::Object changed = Pool();
  changed["spec"]["template"]["spec"]["requirements"][0]["values"] = {"spot", "on-demand"};
  EXPECT_EQ(NodePoolHash(changed), NodePoolHash(Pool()));
  changed["spec"]["template"]["spec"].erase("requirements");
  EXPECT_EQ(NodePoolHash(changed), NodePoolHash(Pool()));
}

TEST(NodePoolHashTest, TemplateLabelsAnnotationsAndTaintsChangeIt) {
  const std::string original = NodePoolHash(Pool());
  kube::Object labels = Pool();
  labels["spec"]["template"]["metadata"]["labels"]["team"] = "api";
  EXPECT_NE(NodePoolHash(labels), original);
  kube::Object annotations = Pool();
  annotations["spec"]["template"]["metadata"]["annotations"]["note"] = "y";
  EXPECT_NE(NodePoolHash(annotations), original);
  kube::Object taints = Pool();
  taints["spec"]["template"]["spec"]["taints"][0]["effect"] = "NoExecute";
  EXPECT_NE(NodePoolHash(taints), original);
  kube::Object startup = Pool();
  startup["spec"]["template"]["spec"]["startupTaints"] = kube::Object::array();
  EXPECT_NE(NodePoolHash(startup), original);
  kube::Object node_class = Pool();
  node_class["spec"]["template"]["spec"]["nodeClassRef"]["name"] = "other";
  EXPECT_NE(NodePoolHash(node_class), original);
}

TEST(NodePoolHashTest, ExpireAfterAndTerminationGracePeriodAreLeftOut) {
  // They apply to existing NodeClaims as they are: changing them replaces nothing.
  kube::Object changed = Pool();
  changed["spec"]["template"]["spec"]["expireAfter"] = "24h";
  changed["spec"]["template"]["spec"]["terminationGracePeriod"] = "1h";
  EXPECT_EQ(NodePoolHash(changed), NodePoolHash(Pool()));
}

TEST(NodePoolHashTest, OutsideTheTemplateDoesNotChangeIt) {
  kube::Object changed = Pool();
  changed["metadata"]["name"] = "other";
  changed["metadata"]["resourceVersion"] = "8";
  changed["metadata"]["annotations"] = {{"karpenter.sh/nodepool-hash", "123"}};
  changed["spec"]["limits"]["cpu"] = "5";
  changed["spec"]["weight"] = 50;
  changed["spec"]["disruption"]["consolidationPolicy"] = "WhenEmptyOrUnderutilized";
  changed["status"]["nodes"] = 9;
  EXPECT_EQ(NodePoolHash(changed), NodePoolHash(Pool()));
}

TEST(NodePoolHashTest, KeyOrderIsIrrelevant) {
  const kube::Object a = kube::Object::parse(R"({"spec": {"template": {
      "metadata": {"labels": {"a": "1", "b": "2"}},
      "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}],
               "expireAfter": "1h"}}}})");
  const kube::Object b = kube::Object::parse(R"({"spec": {"template": {
      "spec": {"expireAfter": "1h",
               "taints": [{"effect": "NoSchedule", "value": "v", "key": "k"}]},
      "metadata": {"labels": {"b": "2", "a": "1"}}}}})");
  EXPECT_EQ(NodePoolHash(a), NodePoolHash(b));
}

TEST(NodePoolHashTest, MissingOrMalformedTemplateHashesAsEmpty) {
  const std::string empty = std::to_string(Fnv1a64("{}"));
  EXPECT_EQ(NodePoolHash(kube::Object::object()), empty);
  EXPECT_EQ(NodePoolHash(kube::Object::parse(R"({"spec": {"limits": {}}})")), empty);
  EXPECT_EQ(NodePoolHash(kube::Object::parse(R"({"spec": {"template": "x"}})")), empty);
  EXPECT_EQ(NodePoolHash(kube::Object::parse(R"({"spec": []})")), empty);
  EXPECT_NE(NodePoolHash(Pool()), empty);
}

}  // namespace
}  // namespace karpenter::controllers
