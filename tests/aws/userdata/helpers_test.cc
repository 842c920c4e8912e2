// The helpers the family renderers and readers share (aws/userdata/families.h).

#include <gtest/gtest.h>

#include "aws/userdata/families.h"
#include "support/matchers.h"

namespace karpenter::aws::userdata {
namespace {

TEST(UserDataHelpersTest, ShellWordsFollowShellQuoting) {
  auto words = ShellWords(
      "/etc/eks/bootstrap.sh 'my cluster' --a \"x \\\"y\\\" $z\" b\\ c \\\n--d 'it'\\''s' # note\n"
      "next; x|y");
  ASSERT_THAT(words, IsOk());
  EXPECT_EQ(*words,
            (std::vector<std::string>{"/etc/eks/bootstrap.sh", "my cluster", "--a", "x \"y\" $z",
                                      "b c", "--d", "it's", ";", "next", ";", "x", "|", "y"}));
  EXPECT_FALSE(ShellWords("echo 'open").ok());
  EXPECT_FALSE(ShellWords("echo \"open").ok());
}

TEST(UserDataHelpersTest, QuotingRoundTrips) {
  for (const std::string text : {"plain", "it's", "a 'b' c", "", "$x `y` \\z"}) {
    auto words = ShellWords(ShellQuote(text));
    ASSERT_THAT(words, IsOk());
    EXPECT_EQ(*words, std::vector<std::string>{text}) << text;
    EXPECT_EQ(PowerShellWords(PowerShellQuote(text)), std::vector<std::string>{text}) << text;
  }
}

TEST(UserDataHelpersTest, TaintSpecsRoundTrip) {
  for (const std::string spec :
       {"a=b:NoSchedule", "example.com/x:NoExecute", "k=v:PreferNoSchedule"}) {
    auto taint = ParseTaintSpec(spec);
    ASSERT_THAT(taint, IsOk());
    EXPECT_EQ(TaintSpec(*taint), spec);
  }
  EXPECT_FALSE(ParseTaintSpec("a=b").ok());
  EXPECT_FALSE(ParseTaintSpec("=b:NoSchedule").ok());
  EXPECT_FALSE(ParseTaintSpec("a=b:Sometimes").ok());
}

TEST(UserDataHelpersTest, ClusterDnsIsTheTenthAddressOfTheServiceCidr) {
  NodeBootstrap bootstrap;
  const auto dns = [&](std::string cidr) {
    bootstrap.service_cidr = std::move(cidr);
    return ClusterDnsIp(bootstrap);
  };
  EXPECT_EQ(dns("10.100.0.0/16"), "10.100.0.10");
  EXPECT_EQ(dns("172.20.5.7/16"), "172.20.0.10");  // the network's address, not the one given
  EXPECT_EQ(dns("10.0.0.0/8"), "10.0.0.10");
  EXPECT_EQ(dns("fd00::/108"), "fd00::a");
  EXPECT_EQ(dns("10.100.0.0"), "");
  EXPECT_EQ(dns("300.1.1.1/16"), "");
  EXPECT_EQ(dns(""), "");
}

TEST(UserDataHelpersTest, KubeletFlagsMergeLabelsAndReplaceTaints) {
  NodeRegistration registration;
  ASSERT_THAT(ApplyKubeletFlags(
                  {"--node-labels=a=1,b=2", "--register-with-taints=x:NoSchedule", "--node-labels",
                   "b=3", "--register-with-taints=y=z:NoExecute", "--max-pods=17", "--v=2"},
                  registration),
              IsOk());
  EXPECT_EQ(registration.labels, (api::Labels{{"a", "1"}, {"b", "3"}}));
  ASSERT_EQ(registration.taints.size(), 1u);
  EXPECT_EQ(registration.taints[0].key, "y");
  EXPECT_EQ(registration.max_pods, 17);
  EXPECT_FALSE(ApplyKubeletFlags({"--max-pods=many"}, registration).ok());
  EXPECT_FALSE(ApplyKubeletFlags({"--node-labels=novalue"}, registration).ok());
  EXPECT_FALSE(ApplyKubeletFlags({"--max-pods"}, registration).ok());
}

}  // namespace
}  // namespace karpenter::aws::userdata
