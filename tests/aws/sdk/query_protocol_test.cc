// The Query protocol: request parameters and their form encoding, responses read from XML as the
// EC2 and IAM API references show them, and both error shapes.

#include "aws/sdk/query_protocol.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aws/sdk/scripted_transport.h"
#include "support/matchers.h"

namespace karpenter::aws {
namespace {

using ::testing::HasSubstr;
using Parameters = std::vector<std::pair<std::string, std::string>>;

TEST(QueryRequestTest, Ec2ListsFiltersAndTagSpecifications) {
  QueryRequest request("RunInstances", "2016-11-15");
  request.AddList("InstanceId", {"i-1", "i-2"})
      .AddFilters(
          {{"tag:karpenter.sh/discovery", {"my-cluster"}}, {"state", {"available", "pending"}}})
      .AddTagSpecifications({{"instance", {{"Name", "node"}, {"team", "a b"}}}, {"volume", {}}});

  EXPECT_EQ(request.parameters(), (Parameters{{"Action", "RunInstances"},
                                              {"Version", "2016-11-15"},
                                              {"InstanceId.1", "i-1"},
                                              {"InstanceId.2", "i-2"},
                                              {"Filter.1.Name", "tag:karpenter.sh/discovery"},
                                              {"Filter.1.Value.1", "my-cluster"},
                                              {"Filter.2.Name", "state"},
                                              {"Filter.2.Value.1", "available"},
                                              {"Filter.2.Value.2", "pending"},
                                              {"TagSpecification.1.ResourceType", "instance"},
                                              {"TagSpecification.1.Tag.1.Key", "Name"},
                                              {"TagSpecification.1.Tag.1.Value", "node"},
                                              {"TagSpecification.1.Tag.2.Key", "team"},
                                              {"TagSpecification.1.Tag.2.Value", "a b"},
                                              {"TagSpecification.2.ResourceType", "volume"}}));
}

TEST(QueryRequestTest, IamAndStsListsUseMember) {
  QueryRequest request("TagRole", "2010-05-08");
  request.Add("RoleName", "KarpenterNodeRole").AddMemberList("PolicyArns", {"arn:a", "arn:b"});
  EXPECT_EQ(request.parameters(), (Parameters{{"Action", "TagRole"},
                                              {"Version", "2010-05-08"},
                                              {"RoleName", "KarpenterNodeRole"},
                                              {"PolicyArns.member.1", "arn:a"},
                                              {"PolicyArns.member.2", "arn:b"}}));
}

TEST(QueryRequestTest, TheBodyIsPercentEncodedPerRfc3986) {
  QueryRequest request("CreateTags", "2016-11-15");
  request.Add("Tag.1.Key", "kubernetes.io/cluster/a b").Add("Tag.1.Value", "x+y=z&~*");
  const HttpRequest http = request.ToHttpRequest();
  EXPECT_EQ(http.method, "POST");
  EXPECT_EQ(http.path, "/");
  EXPECT_EQ(HeaderValue(http.headers, "Content-Type"),
            "application/x-www-form-urlencoded; charset=utf-8");
  EXPECT_EQ(http.body,
            "Action=CreateTags&Version=2016-11-15&Tag.1.Key=kubernetes.io%2Fcluster%2Fa%20b&"
            "Tag.1.Value=x%2By%3Dz%26~%2A");
}

const char* const kDescribeInstances = R"(<?xml version="1.0" encoding="UTF-8"?>
<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
  <requestId>8f7724cf-496f-496e-8fe3-example</requestId>
  <reservationSet>
    <item>
      <reservationId>r-1234567890abcdef0</reservationId>
      <ownerId>123456789012</ownerId>
      <groupSet/>
      <instancesSet>
        <item>
          <instanceId>i-1234567890abcdef0</instanceId>
          <imageId>ami-0abcdef1234567890</imageId>
          <instanceState><code>16</code><name>running</name></instanceState>
          <privateDnsName>ip-10-0-1-88.ec2.internal</privateDnsName>
          <instanceType>m5.large</instanceType>
          <launchTime>2024-05-01T11:58:03.000Z</launchTime>
          <placement><availabilityZone>us-east-1a</availabilityZone><tenancy>default</tenancy></placement>
          <subnetId>subnet-0a1b2c3d4e5f67890</subnetId>
          <tagSet>
            <item><key>Name</key><value>node-1</value></item>
            <item><key>karpenter.sh/nodepool</key><value>default</value></item>
          </tagSet>
        </item>
        <item>
          <instanceId>i-0fedcba9876543210</instanceId>
          <instanceState><code>0</code><name>pending</name></instanceState>
          <instanceType>c6g.xlarge</instanceType>
        </item>
      </instancesSet>
    </item>
  </reservationSet>
</DescribeInstancesResponse>)";

TEST(QueryResponseTest, ReadsDescribeInstances) {
  Result<XmlDocument> document = XmlDocument::Parse(kDescribeInstances, "ec2 DescribeInstances");
  ASSERT_THAT(document, IsOk());
  const XmlElement root = document->root();
  EXPECT_EQ(root.name(), "DescribeInstancesResponse");
  const std::vector<XmlElement> reservations = root.Items("reservationSet");
  ASSERT_EQ(reservations.size(), 1u);
  const std::vector<XmlElement> instances = reservations[0].Items("instancesSet");
  ASSERT_EQ(instances.size(), 2u);
  EXPECT_EQ(instances[0].Text("instanceId"), "i-1234567890abcdef0");
  EXPECT_EQ(instances[0].Child("instanceState").Text("name"), "running");
  EXPECT_EQ(instances[0].Child("instanceState").Int("code"), 16);
  EXPECT_EQ(instances[0].Child("placement").Text("availabilityZone"), "us-east-1a");
  const std::vector<XmlElement> tags = instances[0].Items("tagSet");
  ASSERT_EQ(tags.size(), 2u);
  EXPECT_EQ(tags[1].Text("key"), "karpenter.sh/nodepool");
  EXPECT_EQ(tags[1].Text("value"), "default");
  // The pending instance has no tags, no placement and no image: all read as absent.
  EXPECT_TRUE(instances[1].Items("tagSet").empty());
  EXPECT_EQ(instances[1].Child("placement").Text("availabilityZone"), "");
  EXPECT_EQ(instances[1].OptionalText("imageId"), std::nullopt);
  EXPECT_EQ(instances[0].OptionalText("imageId"), "ami-0abcdef1234567890");
  EXPECT_TRUE(reservations[0].Items("groupSet").empty());
}

const char* const kDescribeSubnets =
    R"(<DescribeSubnetsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
    <requestId>7a62c49f-347e-4fc4-9331-6e8eEXAMPLE</requestId>
    <subnetSet>
        <item>
            <subnetId>subnet-0a1b2c3d</subnetId>
            <state>available</state>
            <vpcId>vpc-1a2b3c4d</vpcId>
            <cidrBlock>10.0.1.0/24</cidrBlock>
            <availableIpAddressCount>251</availableIpAddressCount>
            <availabilityZone>us-east-1a</availabilityZone>
            <availabilityZoneId>use1-az6</availabilityZoneId>
            <defaultForAz>false</defaultForAz>
            <mapPublicIpOnLaunch>true</mapPublicIpOnLaunch>
            <tagSet>
                <item><key>karpenter.sh/discovery</key><value>my-cluster</value></item>
            </tagSet>
        </item>
    </subnetSet>
    <nextToken>eyJ2IjoiMiJ9</nextToken>
</DescribeSubnetsResponse>)";

TEST(QueryResponseTest, ReadsDescribeSubnetsWithNumbersBooleansAndTheNextToken) {
  Result<XmlDocument> document = XmlDocument::Parse(kDescribeSubnets, "ec2 DescribeSubnets");
  ASSERT_THAT(document, IsOk());
  const std::vector<XmlElement> subnets = document->root().Items("subnetSet");
  ASSERT_EQ(subnets.size(), 1u);
  EXPECT_EQ(subnets[0].Text("subnetId"), "subnet-0a1b2c3d");
  EXPECT_EQ(subnets[0].Int("availableIpAddressCount"), 251);
  EXPECT_EQ(subnets[0].Bool("defaultForAz"), false);
  EXPECT_EQ(subnets[0].Bool("mapPublicIpOnLaunch"), true);
  EXPECT_EQ(subnets[0].Bool("assignIpv6AddressOnCreation"), std::nullopt);
  EXPECT_EQ(subnets[0].Int("cidrBlock"), std::nullopt);
  EXPECT_EQ(document->root().Text("nextToken"), "eyJ2IjoiMiJ9");
}

TEST(QueryResponseTest, ReadsIamMemberLists) {
  Result<XmlDocument> document = XmlDocument::Parse(
      R"(<GetInstanceProfileResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/">
  <GetInstanceProfileResult><InstanceProfile>
    <InstanceProfileName>karpenter-profile</InstanceProfileName>
    <Roles><member><RoleName>KarpenterNodeRole</RoleName></member></Roles>
  </InstanceProfile></GetInstanceProfileResult>
  <ResponseMetadata><RequestId>37a87673-3e07-11e3-example</RequestId></ResponseMetadata>
</GetInstanceProfileResponse>)",
      "iam GetInstanceProfile");
  ASSERT_THAT(document, IsOk());
  const XmlElement profile =
      document->root().Child("GetInstanceProfileResult").Child("InstanceProfile");
  const std::vector<XmlElement> roles = profile.Items("Roles");
  ASSERT_EQ(roles.size(), 1u);
  EXPECT_EQ(roles[0].Text("RoleName"), "KarpenterNodeRole");
}

TEST(QueryResponseTest, MalformedXmlNamesTheActionAndTheOffset) {
  Result<XmlDocument> document =
      XmlDocument::Parse("<DescribeSubnetsResponse><subnetSet></item>", "ec2 DescribeSubnets");
  ASSERT_FALSE(document.ok());
  EXPECT_THAT(document.error().message, HasSubstr("ec2 DescribeSubnets: malformed XML at offset "));
  EXPECT_THAT(document.error().message, HasSubstr("offset 38"));
  EXPECT_FALSE(XmlDocument::Parse("", "ec2 DescribeSubnets").ok());
}

TEST(QueryErrorTest, Ec2Error) {
  const Error error = ParseQueryError({400, {}, R"(<?xml version="1.0" encoding="UTF-8"?>
<Response><Errors><Error><Code>InvalidInstanceID.NotFound</Code><Message>The instance ID 'i-1a2b3c4d' does not exist</Message></Error></Errors><RequestID>ea966190-f9aa-478e-9ede-example</RequestID></Response>)"},
                                      "ec2", "TerminateInstances");
  EXPECT_EQ(error.status, 400);
  EXPECT_EQ(error.reason, "InvalidInstanceID.NotFound");
  EXPECT_EQ(error.message,
            "InvalidInstanceID.NotFound: The instance ID 'i-1a2b3c4d' does not exist "
            "(ec2 TerminateInstances, request ea966190-f9aa-478e-9ede-example)");
}

TEST(QueryErrorTest, IamError) {
  const Error error =
      ParseQueryError({404, {}, R"(<ErrorResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/">
  <Error>
    <Type>Sender</Type>
    <Code>NoSuchEntity</Code>
    <Message>The role with name KarpenterNodeRole cannot be found.</Message>
  </Error>
  <RequestId>4a6bb9a1-example</RequestId>
</ErrorResponse>)"},
                      "iam", "GetRole");
  EXPECT_EQ(error.status, 404);
  EXPECT_EQ(error.reason, "NoSuchEntity");
  EXPECT_EQ(error.message,
            "NoSuchEntity: The role with name KarpenterNodeRole cannot be found. "
            "(iam GetRole, request 4a6bb9a1-example)");
}

TEST(QueryErrorTest, ABodyWithoutAnAwsErrorKeepsTheStatus) {
  const Error error = ParseQueryError({502, {}, "<html>\n<body>Bad Gateway</body></html>"}, "sts",
                                      "GetCallerIdentity");
  EXPECT_EQ(error.status, 502);
  EXPECT_EQ(error.reason, "");
  EXPECT_EQ(error.message,
            "sts GetCallerIdentity: HTTP 502 without an AWS error: <html> <body>Bad "
            "Gateway</body></html>");
}

TEST(CallQueryTest, ParsesTheAnswerOrReportsMalformedXml) {
  VirtualClock clock(*ParseTime("2024-05-01T12:00:00Z"));
  testing::FixedCredentials credentials(Credentials{"AKID", "secret", "", std::nullopt});
  testing::ScriptedTransport transport;
  transport.Then(200, kDescribeSubnets).Then(200, "<DescribeSubnetsResponse>");
  ServiceClient client("ec2", {"https", "ec2.us-east-1.amazonaws.com", "", "us-east-1", "ec2"},
                       credentials, transport, clock,
                       RetryPolicy(
                           1, [] { return 0.0; }, [](std::chrono::milliseconds) {}),
                       &ParseQueryError);
  const QueryRequest request("DescribeSubnets", "2016-11-15");

  Result<XmlDocument> first = CallQuery(client, request);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->root().Items("subnetSet").size(), 1u);
  EXPECT_EQ(transport.sent()[0].body, "Action=DescribeSubnets&Version=2016-11-15");

  Result<XmlDocument> second = CallQuery(client, request);
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.error().message, HasSubstr("ec2 DescribeSubnets: malformed XML at offset"));
}

}  // namespace
}  // namespace karpenter::aws
