"""Unit tests of the fault proxy's IAM request mapping (scripts/testenv/iam_authz.py): which checks
each call becomes and how a denial is answered. Moto and the evaluator are replaced by fakes here;
tests/aws/api/iam_enforcement_test.cc and the AWS end-to-end test run the real ones.

Usage: python3 tests/scripts/iam_authz_test.py REPO
"""

import json
import sys
import unittest
import urllib.parse

REGION = "us-west-2"
ACCOUNT = "123456789012"
E = f"arn:aws:ec2:{REGION}:{ACCOUNT}"


class Headers(dict):
    """The handler's headers: case-insensitive get."""

    def get(self, key, default=None):
        for k, v in self.items():
            if k.lower() == key.lower():
                return v
        return default


def request(service, params=None, target=None, body=b"", method="POST", path="/",
            key="AKIACONTROLLER"):
    headers = Headers({"Authorization": f"AWS4-HMAC-SHA256 Credential={key}/20261202/{REGION}/"
                                        f"{service}/aws4_request, SignedHeaders=host, Signature=0"})
    if target:
        headers["X-Amz-Target"] = target
    return iam_authz.Request(method, path, headers, body, list((params or {}).items()))


class FakeMoto:
    """What moto would answer the lookups."""

    def __init__(self):
        self.tags = {}  # resource id -> tags
        self.templates = {}  # name -> launch_template() answer
        self.profiles = {}  # name -> instance_profile() answer
        self.lookups = 0

    def ec2_tags(self, region, resource_id):
        self.lookups += 1
        return dict(self.tags.get(resource_id, {}))

    def launch_template(self, region, name=None, template_id=None):
        self.lookups += 1
        for template in self.templates.values():
            if name == template["name"] or template_id == template["id"]:
                return template
        return None

    def instance_profile(self, name):
        self.lookups += 1
        return self.profiles.get(name)

    def access_entry_arn(self, region, cluster, principal):
        self.lookups += 1
        if not principal.endswith("/nodes"):
            return None
        return f"arn:aws:eks:{region}:{ACCOUNT}:access-entry/{cluster}/role/{ACCOUNT}/nodes/9f8e"

    def nodegroup_arn(self, region, cluster, name):
        self.lookups += 1
        if name != "general":
            return None
        return f"arn:aws:eks:{region}:{ACCOUNT}:nodegroup/{cluster}/{name}/0a1b"


class FakeEvaluator:
    """Allows every check but those whose action is in `refuse`; records what it was asked."""

    def __init__(self, refuse=()):
        self.refuse = set(refuse)
        self.asked = []

    def decide(self, principal, account, policies, checks):
        self.asked.append(checks)
        self.policies = policies
        for i, check in enumerate(checks):
            if check["action"] in self.refuse:
                return {"decision": "ImplicitlyDenied", "failed": i,
                        "results": [{"decision": "Allowed"}] * i + [
                            {"decision": "ImplicitlyDenied", "deniedBy": []}]}
        return {"decision": "Allowed", "failed": None,
                "results": [{"decision": "Allowed"}] * len(checks)}

    def close(self):
        pass


def authorizer(refuse=()):
    auth = iam_authz.Authorizer("http://moto.invalid", "", ACCOUNT)
    auth.moto = FakeMoto()
    auth.evaluator = FakeEvaluator(refuse)
    auth.set({"principals": {"AKIACONTROLLER": {
        "arn": f"arn:aws:iam::{ACCOUNT}:role/controller", "policies": []}}})
    return auth


OWNED = {"kubernetes.io/cluster/c": "owned", "karpenter.sh/nodepool": "default"}


def tag_params(prefix, resource_type, tags):
    out = {f"{prefix}.1.ResourceType": resource_type}
    for i, (k, v) in enumerate(tags.items(), start=1):
        out[f"{prefix}.1.Tag.{i}.Key"] = k
        out[f"{prefix}.1.Tag.{i}.Value"] = v
    return out


class MappingTest(unittest.TestCase):
    def test_describe_is_the_action_on_everything_in_the_region(self):
        checks = authorizer().checks(request("ec2", {"Action": "DescribeSubnets"}))
        self.assertEqual(checks, [{"action": "ec2:DescribeSubnets", "resource": "*",
                                   "context": {"aws:RequestedRegion": REGION,
                                               "ec2:Region": REGION}}])

    def test_a_launch_template_is_created_and_tagged_on_creation(self):
        params = {"Action": "CreateLaunchTemplate", "LaunchTemplateName": "t"}
        params.update(tag_params("TagSpecification", "launch-template", OWNED))
        checks = authorizer().checks(request("ec2", params))
        self.assertEqual([c["action"] for c in checks],
                         ["ec2:CreateLaunchTemplate", "ec2:CreateTags"])
        self.assertTrue(checks[0]["resource"].startswith(f"{E}:launch-template/lt-"))
        self.assertEqual(checks[0]["display"], f"{E}:launch-template/*")
        self.assertEqual(checks[0]["context"]["aws:RequestTag/karpenter.sh/nodepool"], "default")
        self.assertEqual(checks[0]["context"]["aws:TagKeys"], sorted(OWNED))
        self.assertEqual(checks[1]["context"]["ec2:CreateAction"], "CreateLaunchTemplate")

    def test_tags_after_launch_carry_the_resources_tags_and_the_new_keys(self):
        auth = authorizer()
        auth.moto.tags["i-1"] = OWNED
        checks = auth.checks(request("ec2", {"Action": "CreateTags", "ResourceId.1": "i-1",
                                             "ResourceId.2": "vol-2", "Tag.1.Key": "Name",
                                             "Tag.1.Value": "n"}))
        self.assertEqual([c["resource"] for c in checks], [f"{E}:instance/i-1", f"{E}:volume/vol-2"])
        self.assertEqual(checks[0]["context"]["aws:ResourceTag/karpenter.sh/nodepool"], "default")
        self.assertEqual(checks[0]["context"]["ec2:ResourceTag/karpenter.sh/nodepool"], "default")
        self.assertEqual(checks[0]["context"]["aws:TagKeys"], ["Name"])
        self.assertNotIn("ec2:CreateAction", checks[0]["context"])

    def test_each_terminated_instance_is_checked_with_its_tags(self):
        auth = authorizer()
        auth.moto.tags["i-1"] = OWNED
        checks = auth.checks(request("ec2", {"Action": "TerminateInstances",
                                             "InstanceId.1": "i-1", "InstanceId.2": "i-2"}))
        self.assertEqual(len(checks), 2)
        self.assertIn("aws:ResourceTag/kubernetes.io/cluster/c", checks[0]["context"])
        self.assertNotIn("aws:ResourceTag/kubernetes.io/cluster/c", checks[1]["context"])

    def fleet(self, auth, refuse_profile=False):
        auth.moto.templates["t"] = {
            "name": "t", "id": "lt-1", "tags": OWNED, "image": "ami-1",
            "security_groups": ["sg-1"], "profile": "p",
            "tag_specifications": {"network-interface": OWNED}}
        auth.moto.profiles["p"] = {"arn": "arn:aws:iam::1:instance-profile/p", "tags": {},
                                   "roles": ["arn:aws:iam::1:role/other" if refuse_profile
                                             else "arn:aws:iam::1:role/node"]}
        params = {"Action": "CreateFleet", "Type": "instant",
                  "LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName": "t",
                  "LaunchTemplateConfigs.1.Overrides.1.SubnetId": "subnet-1",
                  "LaunchTemplateConfigs.1.Overrides.1.InstanceType": "m5.large"}
        for i, kind in enumerate(("fleet", "instance", "volume"), start=1):
            params.update({k.replace("TagSpecification.1", f"TagSpecification.{i}"): v
                           for k, v in tag_params("TagSpecification", kind, OWNED).items()})
        return request("ec2", params)

    def test_a_launch_without_a_template_checks_what_it_uses_creates_and_passes(self):
        auth = authorizer()
        auth.moto.profiles["p"] = {"arn": "arn:aws:iam::1:instance-profile/p", "tags": {},
                                   "roles": ["arn:aws:iam::1:role/node"]}
        params = {"Action": "RunInstances", "DryRun": "true", "ImageId": "ami-1",
                  "InstanceType": "m5.large", "MinCount": "1", "MaxCount": "1",
                  "NetworkInterface.1.DeviceIndex": "0",
                  "NetworkInterface.1.SubnetId": "subnet-1",
                  "NetworkInterface.1.SecurityGroupId.1": "sg-1",
                  "IamInstanceProfile.Name": "p"}
        for i, kind in enumerate(("instance", "volume", "network-interface"), start=1):
            params.update({k.replace("TagSpecification.1", f"TagSpecification.{i}"): v
                           for k, v in tag_params("TagSpecification", kind, OWNED).items()})
        checks = auth.checks(request("ec2", params))
        kinds = [(c["action"], c["resource"].split(":")[-1]) for c in checks]
        for expected in [("ec2:RunInstances", "image/ami-1"),
                         ("ec2:RunInstances", "subnet/subnet-1"),
                         ("ec2:RunInstances", "security-group/sg-1"), ("iam:PassRole", "role/node")]:
            self.assertIn(expected, kinds)
        made = {(action, resource.split("/")[0]) for action, resource in kinds}
        for kind in ("instance", "volume", "network-interface"):
            self.assertIn(("ec2:RunInstances", kind), made)
            self.assertIn(("ec2:CreateTags", kind), made)
        created = [c for c in checks if c["action"] == "ec2:RunInstances" and
                   c["resource"].split(":")[-1].startswith("instance/")]
        self.assertEqual(len(created), 1)
        self.assertEqual(created[0]["context"]["aws:RequestTag/karpenter.sh/nodepool"], "default")

    def test_a_fleet_checks_what_it_creates_and_uses_then_each_launch(self):
        auth = authorizer()
        req = self.fleet(auth)
        checks = auth.checks(req)
        resources = {(c["action"], c["resource"].rsplit(":", 1)[-1].split("/")[0]) for c in checks}
        self.assertEqual(resources, {("ec2:CreateFleet", k) for k in (
            "fleet", "instance", "volume", "launch-template", "subnet", "image")} |
            {("ec2:CreateTags", "fleet")})
        launch = auth.launch_checks(req, {"LaunchTemplateSpecification.LaunchTemplateName": "t"},
                                    {"SubnetId": "subnet-1"})
        kinds = [(c["action"], c["resource"].split(":")[-1].split("/")[0]) for c in launch]
        for expected in [("ec2:RunInstances", "image"), ("ec2:RunInstances", "subnet"),
                         ("ec2:RunInstances", "security-group"),
                         ("ec2:RunInstances", "launch-template"),
                         ("ec2:RunInstances", "network-interface"),
                         ("ec2:CreateTags", "network-interface"), ("iam:PassRole", "role")]:
            self.assertIn(expected, kinds)
        interface = [c for c in launch if c["action"] == "ec2:RunInstances"
                     and "network-interface" in c["resource"]][0]
        self.assertEqual(interface["context"]["aws:RequestTag/karpenter.sh/nodepool"], "default")
        passed = [c for c in launch if c["action"] == "iam:PassRole"][0]
        self.assertEqual(passed["context"]["iam:PassedToService"], "ec2.amazonaws.com")

    def test_a_refused_launch_is_an_error_item_and_lookups_happen_once_per_request(self):
        auth = authorizer(refuse={"iam:PassRole"})
        req = self.fleet(auth, refuse_profile=True)
        fields = {"LaunchTemplateSpecification.LaunchTemplateName": "t"}
        first = auth.launch_denial(req, fields, {"SubnetId": "subnet-1"})
        lookups = auth.moto.lookups
        second = auth.launch_denial(req, fields, {"SubnetId": "subnet-1"})
        self.assertEqual(first[0], "UnauthorizedOperation")
        self.assertIn("iam:PassRole", first[1])
        self.assertIn("role/other", first[1])
        self.assertEqual(second, first)
        self.assertEqual(auth.moto.lookups, lookups, "the second override looked things up again")
        self.assertEqual(len(auth.evaluator.asked), 1, "the same checks were evaluated twice")
        self.assertEqual(auth.describe()["denials"], 2)

    def test_public_ssm_parameters_have_no_account(self):
        checks = authorizer().checks(request(
            "ssm", target="AmazonSSM.GetParameter",
            body=json.dumps({"Name": "/aws/service/eks/x"}).encode()))
        self.assertEqual(checks[0]["resource"], f"arn:aws:ssm:{REGION}::parameter/aws/service/eks/x")
        own = authorizer().checks(request("ssm", target="AmazonSSM.GetParameter",
                                          body=json.dumps({"Name": "/mine"}).encode()))
        self.assertEqual(own[0]["resource"], f"arn:aws:ssm:{REGION}:{ACCOUNT}:parameter/mine")

    def test_queues_clusters_and_profiles_by_their_arns(self):
        auth = authorizer()
        sqs = auth.checks(request("sqs", target="AmazonSQS.ReceiveMessage", body=json.dumps(
            {"QueueUrl": f"http://x/{ACCOUNT}/q"}).encode()))
        self.assertEqual(sqs[0]["resource"], f"arn:aws:sqs:{REGION}:{ACCOUNT}:q")
        eks = auth.checks(request("eks", method="GET", path="/clusters/c"))
        self.assertEqual(eks[0], {"action": "eks:DescribeCluster",
                                  "resource": f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/c",
                                  "context": {"aws:RequestedRegion": REGION}})
        created = auth.checks(request("iam", {"Action": "CreateInstanceProfile",
                                              "InstanceProfileName": "p", "Path": "/k/",
                                              "Tags.member.1.Key": "a",
                                              "Tags.member.1.Value": "b"}))
        self.assertEqual(created[0]["resource"], f"arn:aws:iam::{ACCOUNT}:instance-profile/k/p")
        self.assertEqual(created[0]["context"]["aws:RequestTag/a"], "b")

    def test_node_groups_and_roles_by_their_arns(self):
        auth = authorizer()
        listed = auth.checks(request("eks", method="GET", path="/clusters/c/node-groups"))
        self.assertEqual([c["action"] for c in listed], ["eks:ListNodegroups"])
        self.assertEqual(listed[0]["resource"], f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/c")
        described = auth.checks(request("eks", method="GET",
                                        path="/clusters/c/node-groups/general"))
        self.assertEqual(described[0]["action"], "eks:DescribeNodegroup")
        self.assertEqual(described[0]["resource"],
                         f"arn:aws:eks:{REGION}:{ACCOUNT}:nodegroup/c/general/0a1b")
        missing = auth.checks(request("eks", method="GET", path="/clusters/c/node-groups/gone"))
        self.assertEqual(missing[0]["resource"],
                         f"arn:aws:eks:{REGION}:{ACCOUNT}:nodegroup/c/gone")
        role = auth.checks(request("iam", {"Action": "GetRole", "RoleName": "KarpenterNodeRole-c"}))
        self.assertEqual(role[0]["resource"], f"arn:aws:iam::{ACCOUNT}:role/KarpenterNodeRole-c")
        entries = auth.checks(request("eks", method="GET", path="/clusters/c/access-entries"))
        self.assertEqual([c["action"] for c in entries], ["eks:ListAccessEntries"])
        self.assertEqual(entries[0]["resource"], f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/c")
        with self.assertRaises(iam_authz.Denied):
            auth.checks(request("eks", method="GET", path="/clusters/c/addons"))

    def test_the_writes_of_migrate_by_their_resources_and_conditions(self):
        auth = authorizer()
        role = f"arn:aws:iam::{ACCOUNT}:role/nodes"
        created = auth.checks(request("eks", method="POST", path="/clusters/c/access-entries",
                                      body=json.dumps({"principalArn": role,
                                                       "type": "EC2_LINUX"}).encode()))
        self.assertEqual(created[0]["action"], "eks:CreateAccessEntry")
        self.assertEqual(created[0]["resource"], f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/c")
        self.assertEqual(created[0]["context"]["eks:principalArn"], role)
        self.assertEqual(created[0]["context"]["eks:accessEntryType"], "EC2_LINUX")
        encoded = urllib.parse.quote(role, safe="")
        deleted = auth.checks(request("eks", method="DELETE",
                                      path=f"/clusters/c/access-entries/{encoded}"))
        self.assertEqual(deleted[0]["action"], "eks:DeleteAccessEntry")
        self.assertEqual(deleted[0]["resource"],
                         f"arn:aws:eks:{REGION}:{ACCOUNT}:access-entry/c/role/{ACCOUNT}/nodes/9f8e")
        resized = auth.checks(request("eks", method="POST",
                                      path="/clusters/c/node-groups/general/update-config",
                                      body=b"{}"))
        self.assertEqual(resized[0]["action"], "eks:UpdateNodegroupConfig")
        self.assertEqual(resized[0]["resource"],
                         f"arn:aws:eks:{REGION}:{ACCOUNT}:nodegroup/c/general/0a1b")
        untagged = auth.checks(request("ec2", {"Action": "DeleteTags", "ResourceId.1": "subnet-1",
                                               "Tag.1.Key": "karpenter.sh/discovery",
                                               "Tag.1.Value": "c"}))
        self.assertEqual(untagged[0]["action"], "ec2:DeleteTags")
        self.assertEqual(untagged[0]["resource"], f"arn:aws:ec2:{REGION}:{ACCOUNT}:subnet/subnet-1")
        self.assertEqual(untagged[0]["context"]["aws:TagKeys"], ["karpenter.sh/discovery"])
        with self.assertRaises(iam_authz.Denied):
            auth.checks(request("eks", method="POST", path="/clusters/c/node-groups/general/x"))
        created = auth.checks(request("iam", {"Action": "CreateRole", "RoleName": "nodes",
                                              "Tags.member.1.Key": "k",
                                              "Tags.member.1.Value": "v"}))
        self.assertEqual([c["action"] for c in created], ["iam:CreateRole", "iam:TagRole"])
        self.assertEqual(created[0]["resource"], role)
        self.assertEqual(created[1]["context"]["aws:RequestTag/k"], "v")
        attached = auth.checks(request("iam", {"Action": "AttachRolePolicy", "RoleName": "nodes",
                                               "PolicyArn": "arn:aws:iam::aws:policy/P"}))
        self.assertEqual(attached[0]["context"]["iam:PolicyARN"], "arn:aws:iam::aws:policy/P")
        listed = auth.checks(request("events", target="AWSEvents.ListRuleNamesByTarget",
                                     body=json.dumps({"TargetArn": "arn:aws:sqs:x"}).encode()))
        self.assertEqual((listed[0]["action"], listed[0]["resource"]),
                         ("events:ListRuleNamesByTarget", "*"))
        rule = auth.checks(request("events", target="AWSEvents.DescribeRule",
                                   body=json.dumps({"Name": "spot"}).encode()))
        self.assertEqual((rule[0]["action"], rule[0]["resource"]),
                         ("events:DescribeRule", f"arn:aws:events:{REGION}:{ACCOUNT}:rule/spot"))
        for action in ("PutRolePolicy", "DeleteRolePolicy", "ListRolePolicies",
                       "ListAttachedRolePolicies", "DeleteRole", "DetachRolePolicy"):
            checks = auth.checks(request("iam", {"Action": action, "RoleName": "nodes"}))
            self.assertEqual((checks[0]["action"], checks[0]["resource"]), ("iam:" + action, role))

    def test_adding_a_role_to_a_profile_passes_the_role(self):
        checks = authorizer().checks(request("iam", {"Action": "AddRoleToInstanceProfile",
                                                     "InstanceProfileName": "p",
                                                     "RoleName": "node"}))
        self.assertEqual([c["action"] for c in checks],
                         ["iam:AddRoleToInstanceProfile", "iam:PassRole"])
        self.assertEqual(checks[1]["resource"], f"arn:aws:iam::{ACCOUNT}:role/node")
        self.assertEqual(checks[1]["context"]["iam:PassedToService"], "ec2.amazonaws.com")

    def test_an_unknown_call_of_an_enforced_key_is_refused(self):
        auth = authorizer()
        status, body, _, _ = auth.authorize(request("ec2", {"Action": "StopInstances"}))
        self.assertEqual(status, 403)
        self.assertIn("UnauthorizedOperation", body)
        self.assertIn("does not know how AWS authorizes ec2:StopInstances",
                      json.dumps(auth.describe()["denied"]))

    def test_other_keys_are_not_checked(self):
        auth = authorizer(refuse={"ec2:DescribeSubnets"})
        self.assertIsNone(auth.authorize(request("ec2", {"Action": "DescribeSubnets"},
                                                 key="AKIAHARNESS")))
        self.assertEqual(auth.evaluator.asked, [])


class ReplayTest(unittest.TestCase):
    def test_every_distinct_authorization_asked_is_decided_again_under_other_policies(self):
        auth = authorizer()
        receive = {"target": "AmazonSQS.ReceiveMessage",
                   "body": json.dumps({"QueueUrl": f"http://x/{ACCOUNT}/q"}).encode()}
        for _ in range(2):
            self.assertIsNone(auth.authorize(request("ec2", {"Action": "DescribeSubnets"})))
            self.assertIsNone(auth.authorize(request("sqs", **receive)))
        # The same run judged by a policy without the queue's statement.
        auth.evaluator = FakeEvaluator(refuse={"sqs:ReceiveMessage"})
        narrow = [{"name": "narrow", "policy": {"Statement": []}}]
        replayed = auth.replay({"policies": narrow})
        self.assertEqual(auth.evaluator.policies, narrow)
        self.assertEqual(replayed["replayed"], 2, "each distinct authorization once")
        self.assertEqual(len(auth.evaluator.asked), 2)
        # Counted as often as the run asked.
        self.assertEqual(replayed["requests"], {"allowed": 2, "denied": 2})
        self.assertEqual(replayed["allowed"], {"ec2:DescribeSubnets": 2})
        self.assertEqual(replayed["denials"], 2)
        self.assertEqual([(d["request"], d["action"], d["resource"]) for d in replayed["denied"]],
                         [("sqs:ReceiveMessage", "sqs:ReceiveMessage",
                           f"arn:aws:sqs:{REGION}:{ACCOUNT}:q")])
        # Setting a policy starts a new run: nothing is left to replay.
        auth.set({"principals": {"AKIACONTROLLER": {
            "arn": f"arn:aws:iam::{ACCOUNT}:role/controller", "policies": []}}})
        self.assertEqual(auth.replay({"policies": narrow})["replayed"], 0)
        with self.assertRaises(ValueError):
            auth.replay({})


class DenialTest(unittest.TestCase):
    def deny(self, service, **kwargs):
        auth = authorizer(refuse={f"{service}:X", "ec2:DescribeSubnets", "iam:GetInstanceProfile",
                                  "sqs:GetQueueUrl", "eks:DescribeCluster",
                                  "ssm:GetParameter"})
        return auth.authorize(request(service, **kwargs))

    def test_each_service_answers_in_its_own_shape(self):
        status, body, content_type, _ = self.deny("ec2", params={"Action": "DescribeSubnets"})
        self.assertEqual((status, content_type), (403, "text/xml"))
        self.assertIn("<Code>UnauthorizedOperation</Code>", body)
        self.assertIn("Encoded authorization failure message: ", body)
        token = body.split("Encoded authorization failure message: ")[1].split("<")[0]
        decoded = json.loads(__import__("base64").urlsafe_b64decode(token))
        self.assertEqual(decoded["context"]["action"], "ec2:DescribeSubnets")

        status, body, _, _ = self.deny("iam", params={"Action": "GetInstanceProfile",
                                                      "InstanceProfileName": "p"})
        self.assertEqual(status, 403)
        self.assertIn("<Code>AccessDenied</Code>", body)

        status, body, _, headers = self.deny("sqs", target="AmazonSQS.GetQueueUrl",
                                             body=b'{"QueueName": "q"}')
        self.assertEqual(status, 403)
        self.assertEqual(headers["x-amzn-query-error"], "AccessDenied;Sender")

        status, body, _, headers = self.deny("eks", method="GET", path="/clusters/c")
        self.assertEqual((status, headers["x-amzn-ErrorType"]), (403, "AccessDeniedException"))

        status, body, _, _ = self.deny("ssm", target="AmazonSSM.GetParameter",
                                       body=b'{"Name": "/aws/service/x"}')
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(body)["__type"], "AccessDeniedException")
        self.assertIn("is not authorized to perform: ssm:GetParameter on resource: "
                      f"arn:aws:ssm:{REGION}::parameter/aws/service/x", json.loads(body)["message"])


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print("usage: python3 tests/scripts/iam_authz_test.py REPO", file=sys.stderr)
        sys.exit(2)
    sys.path.insert(0, sys.argv.pop(1) + "/scripts/testenv")
    import iam_authz  # pylint: disable=import-error,wrong-import-position
    unittest.main()
