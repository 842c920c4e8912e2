#include "scheduling/host_ports.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace karpenter::scheduling {
namespace {

struct ConflictCase {
  std::string name;
  HostPort a;
  HostPort b;
  bool conflicts;
};

class HostPortConflictTest : public testing::TestWithParam<ConflictCase> {};

TEST_P(HostPortConflictTest, ConflictsBothWays) {
  const ConflictCase& c = GetParam();
  EXPECT_EQ(c.a.Conflicts(c.b), c.conflicts);
  EXPECT_EQ(c.b.Conflicts(c.a), c.conflicts);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, HostPortConflictTest,
    testing::Values(
        ConflictCase{"SamePortNoAddress", {"", "TCP", 80}, {"", "TCP", 80}, true},
        ConflictCase{"DifferentPort", {"", "TCP", 80}, {"", "TCP", 81}, false},
        ConflictCase{"DifferentProtocol", {"", "TCP", 53}, {"", "UDP", 53}, false},
        ConflictCase{"SameAddress", {"10.0.0.1", "TCP", 80}, {"10.0.0.1", "TCP", 80}, true},
        ConflictCase{"DifferentAddresses", {"10.0.0.1", "TCP", 80}, {"10.0.0.2", "TCP", 80}, false},
        ConflictCase{"EmptyIsWildcard", {"", "TCP", 80}, {"10.0.0.2", "TCP", 80}, true},
        ConflictCase{"AnyIPv4IsWildcard", {"0.0.0.0", "TCP", 80}, {"10.0.0.2", "TCP", 80}, true},
        ConflictCase{"AnyIPv6IsWildcard", {"::", "TCP", 80}, {"10.0.0.2", "TCP", 80}, true},
        ConflictCase{
            "WildcardOtherProtocol", {"0.0.0.0", "UDP", 80}, {"10.0.0.2", "TCP", 80}, false}),
    [](const testing::TestParamInfo<ConflictCase>& info) { return info.param.name; });

api::Container WithPorts(std::vector<api::ContainerPort> ports) {
  api::Container c;
  c.name = "c";
  c.ports = std::move(ports);
  return c;
}

TEST(HostPortsOfTest, CollectsHostPortsOfInitAndRegularContainers) {
  api::PodSpec spec;
  spec.init_containers.push_back(WithPorts({{9000, 9000, "TCP", ""}}));
  spec.containers.push_back(WithPorts({{80, 8080, "TCP", "10.0.0.1"}, {443, 0, "TCP", ""}}));
  spec.containers.push_back(WithPorts({{53, 53, "", ""}, {53, 53, "UDP", ""}}));
  const std::vector<HostPort> ports = HostPortsOf(spec);
  ASSERT_EQ(ports.size(), 4u);  // the container port without a host port is not one
  EXPECT_EQ(ports[0].port, 9000);
  EXPECT_EQ(ports[1].ip, "10.0.0.1");
  EXPECT_EQ(ports[1].port, 8080);
  EXPECT_EQ(ports[1].protocol, "TCP");
  EXPECT_EQ(ports[2].protocol, "TCP");  // an empty protocol means TCP
  EXPECT_EQ(ports[2].port, 53);
  EXPECT_EQ(ports[3].protocol, "UDP");
}

TEST(HostPortsOfTest, NoPorts) {
  api::PodSpec spec;
  spec.containers.push_back(WithPorts({{8080, 0, "TCP", ""}}));
  EXPECT_TRUE(HostPortsOf(spec).empty());
}

TEST(AnyConflictTest, AnyPairConflicts) {
  const std::vector<HostPort> used = {{"", "TCP", 80}, {"10.0.0.1", "UDP", 53}};
  EXPECT_TRUE(AnyConflict(used, {{"", "TCP", 443}, {"10.0.0.9", "TCP", 80}}));
  EXPECT_TRUE(AnyConflict(used, {{"0.0.0.0", "UDP", 53}}));
  EXPECT_FALSE(AnyConflict(used, {{"10.0.0.2", "UDP", 53}, {"", "TCP", 8080}}));
  EXPECT_FALSE(AnyConflict(used, {}));
  EXPECT_FALSE(AnyConflict({}, {{"", "TCP", 80}}));
}

}  // namespace
}  // namespace karpenter::scheduling
