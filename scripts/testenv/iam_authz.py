"""IAM enforcement for the fault proxy (scripts/testenv/fault_proxy.py): AWS's authorization of
each request an enforced access key signs, decided by a real policy evaluator.

For a request signed with an access key that has a policy (set through the proxy's /_iam control
endpoint), the proxy derives what AWS authorizes before it acts: the IAM actions, the ARN of each
resource they touch and the condition context (aws:RequestedRegion; request tags from
TagSpecifications and Tags; the resource tags of existing resources, looked up in moto;
ec2:CreateAction for tags applied on create; iam:PassedToService for the role a launch passes).
The checks go to scripts/testenv/iam-eval/iam_eval.mjs (@cloud-copilot/iam-simulate), which
evaluates the key's identity policy as AWS does. A denied request is answered the way the
service answers it (EC2 UnauthorizedOperation, IAM AccessDenied, JSON AccessDeniedException) and
never reaches moto; for an instant CreateFleet, a launch that is denied (RunInstances, tagging on
create, PassRole) is reported for its override in the fleet's errorSet, as EC2 does. Requests
signed with any other key pass unchecked (the test harness's own key).

How each call is authorized follows the Service Authorization Reference (resource types and
condition keys per action) and EC2's rules for tagging on create; docs/iam.md in the repository
describes the mapping and what it leaves out.
"""

import base64
import json
import re
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

# An id for a resource a request creates: AWS evaluates it before the resource has one.
NEW = {"instance": "i-0000000000000000a", "volume": "vol-0000000000000000a",
       "network-interface": "eni-0000000000000000a", "fleet": "fleet-00000000-0000-0000-0000-00",
       "launch-template": "lt-0000000000000000a",
       "spot-instances-request": "sir-00000000"}
# What an EC2 resource id's prefix says its type is (for CreateTags and its resource tags).
ID_TYPES = {"i": "instance", "vol": "volume", "eni": "network-interface", "lt": "launch-template",
            "fleet": "fleet", "sg": "security-group", "subnet": "subnet", "ami": "image",
            "snap": "snapshot", "sir": "spot-instances-request", "vpc": "vpc"}
# How many distinct authorizations a policy's run keeps for replay (a run asks a few hundred).
MAX_ASKED = 20000
# JSON protocols' target prefixes and the IAM service they are.
TARGETS = {"AmazonSSM": "ssm", "AmazonSQS": "sqs", "AWSPriceListService": "pricing",
           "AWSEvents": "events"}
CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/\d{8}/([^/]+)/([^/]+)/aws4_request")
# The tag keys a launch passes in CreateFleet's TagSpecifications and for which resource types.
FLEET_TAGGED = ("fleet", "instance", "volume")


class Denied(Exception):
    """A request AWS would refuse: the check that failed and why."""

    def __init__(self, check, decision, statements=(), error=None):
        super().__init__(check["action"])
        self.check = check
        self.decision = decision
        self.statements = list(statements)
        self.error = error


def strip(tag):
    return tag.rsplit("}", 1)[-1]


def find_all(element, name):
    return [e for e in element.iter() if strip(e.tag) == name]


def text_of(element, name, default=""):
    for child in element:
        if strip(child.tag) == name:
            return child.text or ""
    return default


def child(element, name):
    for e in element:
        if strip(e.tag) == name:
            return e
    return None


def items(element, name):
    """The <item>s of the child `name` of `element` (EC2's list shape)."""
    found = child(element, name) if element is not None else None
    return [] if found is None else [e for e in found if strip(e.tag) in ("item", "member")]


def tag_context(prefix, tags):
    return {f"{prefix}/{key}": value for key, value in tags.items()}


def request_tag_context(tags):
    context = tag_context("aws:RequestTag", tags)
    context["aws:TagKeys"] = sorted(tags)
    return context


def resource_tag_context(tags, service_prefix=None):
    context = tag_context("aws:ResourceTag", tags)
    if service_prefix:
        context.update(tag_context(f"{service_prefix}:ResourceTag", tags))
    return context


def indexed(params, prefix):
    """{N: {rest: value}} for the parameters `prefix`.N.rest (Query lists)."""
    pattern = re.compile("^" + re.escape(prefix) + r"\.(\d+)(?:\.(.+))?$")
    out = {}
    for key, value in params:
        match = pattern.match(key)
        if match:
            out.setdefault(int(match[1]), {})[match[2] or ""] = value
    return [out[i] for i in sorted(out)]


def tag_specifications(params, prefix="TagSpecification"):
    """{resource type: {key: value}} from TagSpecification.N.{ResourceType,Tag.M.Key,Tag.M.Value}."""
    out = {}
    for spec in indexed(params, prefix):
        tags = out.setdefault(spec.get("ResourceType", ""), {})
        keys = {}
        for field, value in spec.items():
            match = re.match(r"^Tag\.(\d+)\.(Key|Value)$", field)
            if match:
                keys.setdefault(match[1], {})[match[2]] = value
        for pair in keys.values():
            tags[pair.get("Key", "")] = pair.get("Value", "")
    return out


class Moto:
    """Reads the state the checks need (resource tags, launch templates, instance profiles) from
    moto directly, with the harness's dummy signature (moto takes the region from it)."""

    def __init__(self, upstream):
        self.upstream = upstream

    def query(self, service, region, params):
        body = urllib.parse.urlencode(params).encode()
        request = urllib.request.Request(self.upstream + "/", data=body, method="POST")
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
        request.add_header("Authorization",
                           "AWS4-HMAC-SHA256 Credential=AKIAKARPENTERTEST/20200101/"
                           f"{region}/{service}/aws4_request, SignedHeaders=host, Signature=0")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return ET.fromstring(response.read())
        except urllib.error.HTTPError:
            return None

    def eks_get(self, region, path, key, field):
        """object[key][field] of moto's EKS answer to GET path; None when it has none."""
        request = urllib.request.Request(self.upstream + path, method="GET")
        request.add_header("Authorization",
                           "AWS4-HMAC-SHA256 Credential=AKIAKARPENTERTEST/20200101/"
                           f"{region}/eks/aws4_request, SignedHeaders=host, Signature=0")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read()).get(key, {}).get(field)
        except (urllib.error.HTTPError, ValueError):
            return None

    def nodegroup_arn(self, region, cluster, name):
        """A managed node group's ARN (it ends in an id EKS gives it); None when there is none."""
        return self.eks_get(region, "/clusters/" + urllib.parse.quote(cluster) + "/node-groups/" +
                            urllib.parse.quote(name), "nodegroup", "nodegroupArn")

    def access_entry_arn(self, region, cluster, principal):
        """The ARN of `cluster`'s access entry for `principal`; None when there is none."""
        return self.eks_get(region, "/clusters/" + urllib.parse.quote(cluster) +
                            "/access-entries/" + urllib.parse.quote(principal, safe=""),
                            "accessEntry", "accessEntryArn")

    def ec2_tags(self, region, resource_id):
        root = self.query("ec2", region, [("Action", "DescribeTags"), ("Version", "2016-11-15"),
                                          ("Filter.1.Name", "resource-id"),
                                          ("Filter.1.Value.1", resource_id)])
        if root is None:
            return {}
        return {text_of(item, "key"): text_of(item, "value")
                for item in items(root, "tagSet")}

    def launch_template(self, region, name=None, template_id=None):
        """(id, tags, latest data as {image, security_groups, profile, tags: {type: {k: v}}})."""
        params = [("Action", "DescribeLaunchTemplateVersions"), ("Version", "2016-11-15"),
                  ("LaunchTemplateVersion.1", "$Latest")]
        params.append(("LaunchTemplateName", name) if name else ("LaunchTemplateId", template_id))
        root = self.query("ec2", region, params)
        versions = items(root, "launchTemplateVersionSet") if root is not None else []
        if not versions:
            return None
        version = versions[0]
        template_id = text_of(version, "launchTemplateId")
        data = child(version, "launchTemplateData")
        profile = child(data, "iamInstanceProfile") if data is not None else None
        spec_tags = {}
        for spec in items(data, "tagSpecificationSet"):
            spec_tags[text_of(spec, "resourceType")] = {
                text_of(t, "key"): text_of(t, "value") for t in items(spec, "tagSet")}
        groups = [e.text or "" for e in items(data, "securityGroupIdSet")]
        # Or on its primary network interface (then EC2 takes them from there).
        for interface in items(data, "networkInterfaceSet"):
            found = child(interface, "groupSet")
            groups += [e.text or "" for e in (found if found is not None else [])
                       if strip(e.tag) in ("groupId", "item")]
        specification = child(data, "capacityReservationSpecification") \
            if data is not None else None
        target = child(specification, "capacityReservationTarget") \
            if specification is not None else None
        return {"id": template_id, "tags": self.ec2_tags(region, template_id),
                "image": text_of(data, "imageId") if data is not None else "",
                "capacity_reservation":
                    text_of(target, "capacityReservationId") if target is not None else "",
                "security_groups": groups,
                "profile": text_of(profile, "name") if profile is not None else "",
                "tag_specifications": spec_tags}

    def instance_profile(self, name):
        """(arn, tags, role arns) of an instance profile, or None."""
        root = self.query("iam", "us-east-1", [("Action", "GetInstanceProfile"),
                                               ("Version", "2010-05-08"),
                                               ("InstanceProfileName", name)])
        profiles = find_all(root, "InstanceProfile") if root is not None else []
        if not profiles:
            return None
        profile = profiles[0]
        roles = [text_of(role, "Arn") for role in items(profile, "Roles")]
        tags = {text_of(tag, "Key"): text_of(tag, "Value") for tag in items(profile, "Tags")}
        return {"arn": text_of(profile, "Arn"), "tags": tags, "roles": roles}


class Evaluator:
    """The Node process that runs iam-simulate: one JSON line out, one in, in order."""

    def __init__(self, directory):
        self.directory = directory
        self.lock = threading.Lock()
        self.process = None
        self.next_id = 0

    def decide(self, principal, account, policies, checks):
        with self.lock:
            if self.process is None or self.process.poll() is not None:
                self.process = subprocess.Popen(
                    ["node", "iam_eval.mjs"], cwd=self.directory, stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, text=True, bufsize=1)
            self.next_id += 1
            line = json.dumps({"id": self.next_id, "principal": principal, "account": account,
                               "policies": policies, "checks": checks})
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
            answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError("the IAM evaluator exited")
        return json.loads(answer)

    def close(self):
        with self.lock:
            if self.process is not None:
                self.process.kill()


class Request:
    """What the proxy received, as the authorizer reads it."""

    def __init__(self, method, path, headers, body, params):
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.params = params  # [(key, value)] of a form body
        # What one request looked up and decided: a fleet's overrides share their launch
        # template, profile and, but for the subnet and image, their checks.
        self.memo = {}
        match = CREDENTIAL.search(headers.get("Authorization", ""))
        self.access_key, self.region, self.service = match.groups() if match else ("", "", "")
        self.form = dict(params)
        target = headers.get("X-Amz-Target", "")
        self.json = {}
        if target:
            prefix, _, operation = target.partition(".")
            self.iam_service = TARGETS.get(prefix, prefix)
            self.operation = operation
            try:
                self.json = json.loads(body or b"{}")
            except ValueError:
                self.json = {}
        elif self.form.get("Action"):
            self.iam_service, self.operation = self.service, self.form["Action"]
        elif self.service == "eks" and path.startswith("/clusters/"):
            # /clusters/{name}[/node-groups[/{ng}[/update-config]]], …/access-entries[/{arn}]
            # (the principal's ARN one encoded segment)
            parts = path.split("?", 1)[0][len("/clusters/"):].split("/")
            self.eks_path = [urllib.parse.unquote(part) for part in parts]
            operations = {("GET", 1, ""): "DescribeCluster",
                          ("GET", 2, "node-groups"): "ListNodegroups",
                          ("GET", 3, "node-groups"): "DescribeNodegroup",
                          ("POST", 4, "node-groups"): "UpdateNodegroupConfig",
                          ("GET", 2, "access-entries"): "ListAccessEntries",
                          ("POST", 2, "access-entries"): "CreateAccessEntry",
                          ("DELETE", 3, "access-entries"): "DeleteAccessEntry"}
            key = (method, len(parts), parts[1] if len(parts) > 1 else "")
            if key[1] == 4 and parts[3] != "update-config":
                key = (method, 0, "")
            self.iam_service = "eks"
            self.operation = operations.get(key, f"{method} {path}")
            try:
                self.json = json.loads(body or b"{}") if method == "POST" else {}
            except ValueError:
                self.json = {}
        else:
            self.iam_service, self.operation = self.service, f"{method} {path}"

    @property
    def action(self):
        return f"{self.iam_service}:{self.operation}"


class Authorizer:
    """Per access key policies and the decisions made under them."""

    def __init__(self, upstream, evaluator_dir, account):
        self.moto = Moto(upstream)
        self.evaluator = Evaluator(evaluator_dir) if evaluator_dir else None
        self.account = account
        self.lock = threading.Lock()
        self.principals = {}  # access key -> {"arn", "policies"}
        self.create_action_for_instances = "RunInstances"
        self.clear_counts()

    def close(self):
        if self.evaluator is not None:
            self.evaluator.close()

    def clear_counts(self):
        self.allowed = {}  # IAM action -> checks allowed
        self.denied = []  # the denials, oldest first
        self.requests = {"allowed": 0, "denied": 0}
        # Every distinct authorization asked since the policy was set, for replay(): its request,
        # checks and how many times it was asked, keyed by the checks' JSON.
        self.asked = {}

    def set(self, spec):
        if self.evaluator is None and spec.get("principals"):
            raise ValueError("the proxy was started without --iam-eval")
        principals = {}
        for key, value in spec.get("principals", {}).items():
            if not isinstance(value.get("policies"), list) or not value.get("arn"):
                raise ValueError(f"principal {key}: needs arn and policies")
            principals[key] = {"arn": value["arn"], "policies": value["policies"]}
        with self.lock:
            self.principals = principals
            self.create_action_for_instances = spec.get("create_action_for_instances",
                                                        "RunInstances")
            self.clear_counts()

    def describe(self):
        with self.lock:
            return {"principals": {k: {"arn": v["arn"]} for k, v in self.principals.items()},
                    "requests": dict(self.requests), "allowed": dict(self.allowed),
                    "denials": len(self.denied), "denied": list(self.denied[-100:])}

    def enforced(self, request):
        with self.lock:
            return self.principals.get(request.access_key)

    # --- decisions ----------------------------------------------------------------------------

    def authorize(self, request):
        """None when the request may go on (or is not enforced); otherwise (status, body,
        content type, headers) of the denial. CreateFleet's launches are judged separately
        (launch_denial)."""
        principal = self.enforced(request)
        if principal is None:
            return None
        try:
            checks = self.checks(request)
            self.decide(principal, request, checks)
        except Denied as denied:
            return self.deny(principal, request, denied)
        return None

    def launch_denial(self, request, fields, override):
        """For an enforced CreateFleet: the errorSet code and message of an override whose launch
        AWS would refuse, or None."""
        principal = self.enforced(request)
        if principal is None:
            return None
        try:
            self.decide(principal, request, self.launch_checks(request, fields, override))
        except Denied as denied:
            self.record(principal, request, denied)
            return "UnauthorizedOperation", self.message(principal, denied)
        return None

    def decide(self, principal, request, checks):
        key = json.dumps(checks, sort_keys=True)
        with self.lock:
            if key in self.asked:
                self.asked[key][2] += 1
            elif len(self.asked) < MAX_ASKED:
                self.asked[key] = [request.action, checks, 1]
        answer = memoized(request, ("decision", json.dumps(checks, sort_keys=True)),
                          lambda: self.evaluator.decide(principal["arn"], self.account,
                                                        principal["policies"], checks))
        results = answer.get("results", [])
        if answer.get("decision") != "Allowed":
            failed = answer.get("failed") or 0
            result = results[failed] if failed < len(results) else {}
            check = checks[failed] if failed < len(checks) else {"action": request.action,
                                                                 "resource": "*"}
            raise Denied(check, answer.get("decision", "Error"),
                         result.get("deniedBy", []),
                         result.get("error") or answer.get("error"))
        with self.lock:
            self.requests["allowed"] += 1
            for check in checks:
                self.allowed[check["action"]] = self.allowed.get(check["action"], 0) + 1

    def record(self, principal, request, denied):
        with self.lock:
            self.requests["denied"] += 1
            self.denied.append(denial(principal, request.action, denied))

    def replay(self, spec):
        """What `spec`'s policies ({"policies": [{"name", "policy"}]}) decide on every
        authorization asked since the policy was set, for the same principal: the same summary
        as describe(), counting each authorization as often as it was asked, and "replayed" (how
        many distinct ones were decided). A policy that allows them all would have seen the same
        answers, so the same run; what it denies is what a run under it would have been refused
        first."""
        policies = spec.get("policies")
        if not isinstance(policies, list) or not policies:
            raise ValueError("replay: needs policies")
        with self.lock:
            asked = [tuple(entry) for entry in self.asked.values()]
            arns = {p["arn"] for p in self.principals.values()}
        if len(arns) != 1:
            raise ValueError("replay: needs exactly one enforced principal")
        principal = {"arn": arns.pop(), "policies": policies}
        result = {"requests": {"allowed": 0, "denied": 0}, "allowed": {}, "denials": 0,
                  "denied": [], "replayed": len(asked)}
        for action, checks, times in asked:
            answer = self.evaluator.decide(principal["arn"], self.account, policies, checks)
            if answer.get("decision") == "Allowed":
                result["requests"]["allowed"] += times
                for check in checks:
                    result["allowed"][check["action"]] = \
                        result["allowed"].get(check["action"], 0) + times
                continue
            failed = answer.get("failed") or 0
            results = answer.get("results", [])
            denied = Denied(checks[failed] if failed < len(checks) else
                            {"action": action, "resource": "*"},
                            answer.get("decision", "Error"),
                            (results[failed] if failed < len(results) else {}).get("deniedBy", []),
                            answer.get("error"))
            result["requests"]["denied"] += times
            result["denials"] += times
            result["denied"].append(denial(principal, action, denied))
        return result

    def message(self, principal, denied):
        action = denied.check["action"]
        resource = denied.check.get("display", denied.check["resource"])
        why = ("with an explicit deny in an identity-based policy"
               if denied.decision == "ExplicitlyDenied"
               else f"because no identity-based policy allows the {action} action")
        return f"User: {principal['arn']} is not authorized to perform: {action} on resource: " \
               f"{resource} {why}"

    def encoded(self, principal, denied):
        # EC2's encoded message is opaque to clients; this one is readable (base64 of JSON).
        document = {"allowed": False, "explicitDeny": denied.decision == "ExplicitlyDenied",
                    "matchedStatements": {"items": denied.statements},
                    "context": {"principal": {"arn": principal["arn"]},
                                "action": denied.check["action"],
                                "resource": denied.check.get("display", denied.check["resource"]),
                                "conditions": {"items": [
                                    {"key": k, "values": v if isinstance(v, list) else [v]}
                                    for k, v in sorted(denied.check.get("context", {}).items())]}}}
        if denied.error:
            document["evaluatorError"] = denied.error
        return base64.urlsafe_b64encode(json.dumps(document).encode()).decode()

    def deny(self, principal, request, denied):
        self.record(principal, request, denied)
        message = self.message(principal, denied)
        request_id = str(uuid.uuid4())
        service = request.iam_service
        if service == "ec2":
            body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Errors><Error>"
                    "<Code>UnauthorizedOperation</Code><Message>You are not authorized to perform "
                    f"this operation. {escape(message)} Encoded authorization failure message: "
                    f"{self.encoded(principal, denied)}</Message></Error></Errors>"
                    f"<RequestID>{request_id}</RequestID></Response>")
            return 403, body, "text/xml", {}
        if service == "iam":
            body = ("<ErrorResponse xmlns=\"https://iam.amazonaws.com/doc/2010-05-08/\"><Error>"
                    f"<Type>Sender</Type><Code>AccessDenied</Code><Message>{escape(message)}"
                    f"</Message></Error><RequestId>{request_id}</RequestId></ErrorResponse>")
            return 403, body, "text/xml", {}
        if service == "sqs":
            body = json.dumps({"__type": "com.amazon.coral.service#AccessDeniedException",
                               "message": message})
            return 403, body, "application/x-amz-json-1.0", {
                "x-amzn-query-error": "AccessDenied;Sender", "x-amzn-RequestId": request_id}
        if service == "eks":
            return 403, json.dumps({"message": message}), "application/json", {
                "x-amzn-ErrorType": "AccessDeniedException", "x-amzn-RequestId": request_id}
        body = json.dumps({"__type": "AccessDeniedException", "message": message})
        return 400, body, "application/x-amz-json-1.1", {"x-amzn-RequestId": request_id}

    # --- the checks of each call --------------------------------------------------------------

    def ec2_arn(self, region, kind, resource_id):
        if kind == "image":
            return f"arn:aws:ec2:{region}::image/{resource_id}"
        return f"arn:aws:ec2:{region}:{self.account}:{kind}/{resource_id}"

    def new_resource(self, request, kind, context):
        return {"resource": self.ec2_arn(request.region, kind, NEW[kind]),
                "display": self.ec2_arn(request.region, kind, "*"), "context": context}

    def existing(self, request, kind, resource_id, tags=None):
        if tags is None:
            tags = self.moto.ec2_tags(request.region, resource_id)
        return {"resource": self.ec2_arn(request.region, kind, resource_id),
                "context": resource_tag_context(tags, "ec2")}

    def base_context(self, request):
        context = {"aws:RequestedRegion": request.region}
        if request.iam_service == "ec2":
            context["ec2:Region"] = request.region
        return context

    def check(self, request, action, target, extra=None):
        context = self.base_context(request)
        context.update(target.get("context", {}))
        context.update(extra or {})
        out = {"action": action, "resource": target["resource"], "context": context}
        if "display" in target:
            out["display"] = target["display"]
        return out

    def checks(self, request):
        builder = getattr(self, "checks_" + request.iam_service + "_" + request.operation, None)
        if builder is not None:
            return builder(request)
        if request.iam_service == "ec2" and request.operation.startswith("Describe") and \
                request.operation != "DescribeInstanceAttribute":
            return [self.check(request, request.action, {"resource": "*"})]
        if request.iam_service == "pricing":
            return [self.check(request, request.action, {"resource": "*"})]
        # Not mapped: refused, so that an enforced run shows the gap instead of passing it.
        raise Denied({"action": request.action, "resource": "*"}, "Error",
                     error=f"the proxy does not know how AWS authorizes {request.action}")

    def checks_ec2_DescribeInstanceAttribute(self, request):
        instance = request.form.get("InstanceId", "")
        return [self.check(request, request.action, self.existing(request, "instance", instance))]

    def checks_ec2_CreateLaunchTemplate(self, request):
        tags = tag_specifications(request.params).get("launch-template", {})
        target = self.new_resource(request, "launch-template", request_tag_context(tags))
        checks = [self.check(request, request.action, target)]
        if tags:
            checks.append(self.check(request, "ec2:CreateTags", target,
                                     {"ec2:CreateAction": "CreateLaunchTemplate"}))
        return checks

    def checks_ec2_DeleteLaunchTemplate(self, request):
        template = self.moto.launch_template(request.region,
                                             name=request.form.get("LaunchTemplateName"),
                                             template_id=request.form.get("LaunchTemplateId"))
        if template is None:
            return []  # moto answers that it does not exist
        return [self.check(request, request.action,
                           self.existing(request, "launch-template", template["id"],
                                         template["tags"]))]

    def checks_ec2_TerminateInstances(self, request):
        return [self.check(request, request.action, self.existing(request, "instance", i))
                for i in indexed_values(request.params, "InstanceId")]

    def checks_ec2_CreateTags(self, request):
        tags = {}
        for tag in indexed(request.params, "Tag"):
            tags[tag.get("Key", "")] = tag.get("Value", "")
        checks = []
        for resource_id in indexed_values(request.params, "ResourceId"):
            kind = ID_TYPES.get(resource_id.split("-", 1)[0], "instance")
            checks.append(self.check(request, request.action,
                                     self.existing(request, kind, resource_id),
                                     request_tag_context(tags)))
        return checks

    def checks_ec2_DeleteTags(self, request):
        # Keys alone (a value given only narrows which tags go): aws:TagKeys is what IAM checks.
        keys = sorted({tag.get("Key", "") for tag in indexed(request.params, "Tag")})
        return [self.check(request, request.action,
                           self.existing(request, ID_TYPES.get(resource_id.split("-", 1)[0],
                                                               "instance"), resource_id),
                           {"aws:TagKeys": keys})
                for resource_id in indexed_values(request.params, "ResourceId")]

    def checks_ec2_CreateFleet(self, request):
        tagged = tag_specifications(request.params)
        checks = [self.check(request, request.action,
                             self.new_resource(request, kind,
                                               request_tag_context(tagged.get(kind, {}))))
                  for kind in FLEET_TAGGED]
        for config in indexed(request.params, "LaunchTemplateConfigs"):
            # A template that does not exist (the controller's DryRun check names the one it
            # would create) has no tags to check; the subnets the request names are still checked.
            template = self.fleet_template(request, config)
            if template is not None:
                checks.append(self.check(request, request.action,
                                         self.existing(request, "launch-template", template["id"],
                                                       template["tags"])))
            for override in overrides(config):
                checks.append(self.check(request, request.action, self.existing(
                    request, "subnet", override.get("SubnetId", ""), {})))
                image = override.get("ImageId") or (template or {}).get("image")
                if image:
                    checks.append(self.check(request, request.action,
                                             self.existing(request, "image", image, {})))
        if "fleet" in tagged:
            checks.append(self.check(request, "ec2:CreateTags", self.new_resource(
                request, "fleet", request_tag_context(tagged["fleet"])),
                {"ec2:CreateAction": "CreateFleet"}))
        return checks

    def checks_ec2_RunInstances(self, request):
        """A launch without a launch template (the controller's DryRun check): RunInstances on the
        image, subnet and security groups it names and on what it creates, tagging on create,
        and passing the instance profile's role."""
        run = "ec2:RunInstances"
        form = request.form
        checks = [self.check(request, run, self.existing(request, "image", form.get("ImageId", ""),
                                                         {}))]
        subnet = form.get("NetworkInterface.1.SubnetId") or form.get("SubnetId", "")
        checks.append(self.check(request, run, self.existing(request, "subnet", subnet, {})))
        groups = indexed_values(request.params, "NetworkInterface.1.SecurityGroupId") + \
            indexed_values(request.params, "SecurityGroupId")
        for group in groups:
            checks.append(self.check(request, run,
                                     self.existing(request, "security-group", group, {})))
        reservation = form.get(
            "CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId", "")
        if reservation:
            checks.append(self.check(request, run, self.existing(
                request, "capacity-reservation", reservation, {})))
        tagged = tag_specifications(request.params)
        for kind in ("instance", "volume", "network-interface"):
            tags = tagged.get(kind, {})
            checks.append(self.check(request, run,
                                     self.new_resource(request, kind, request_tag_context(tags))))
            if tags:
                checks.append(self.check(request, "ec2:CreateTags", self.new_resource(
                    request, kind, request_tag_context(tags)),
                    {"ec2:CreateAction": "RunInstances"}))
        profile_name = form.get("IamInstanceProfile.Name", "")
        if profile_name:
            profile = memoized(request, ("profile", profile_name),
                               lambda: self.moto.instance_profile(profile_name))
            for role in (profile or {}).get("roles", []):
                checks.append({"action": "iam:PassRole", "resource": role,
                               "context": {"aws:RequestedRegion": request.region,
                                           "iam:PassedToService": "ec2.amazonaws.com"}})
        return checks

    def fleet_template(self, request, config):
        name = config.get("LaunchTemplateSpecification.LaunchTemplateName")
        template_id = config.get("LaunchTemplateSpecification.LaunchTemplateId")
        return memoized(request, ("template", name, template_id),
                        lambda: self.moto.launch_template(request.region, name=name,
                                                          template_id=template_id))

    def launch_checks(self, request, fields, override):
        """What AWS checks for one launch of an instant fleet: RunInstances on everything the
        instance uses and creates, tagging on create, and passing the instance profile's role."""
        template = self.fleet_template(request, fields)
        if template is None:
            return []
        tagged = tag_specifications(request.params)
        run = "ec2:RunInstances"
        checks = []
        image = override.get("ImageId") or template["image"]
        if image:
            checks.append(self.check(request, run, self.existing(request, "image", image, {})))
        checks.append(self.check(request, run, self.existing(
            request, "subnet", override.get("SubnetId", ""), {})))
        for group in template["security_groups"]:
            checks.append(self.check(request, run,
                                     self.existing(request, "security-group", group, {})))
        # A launch into a capacity reservation uses the reservation too.
        if template.get("capacity_reservation"):
            checks.append(self.check(request, run, self.existing(
                request, "capacity-reservation", template["capacity_reservation"], {})))
        checks.append(self.check(request, run, self.existing(
            request, "launch-template", template["id"], template["tags"]), {
                "ec2:LaunchTemplate": self.ec2_arn(request.region, "launch-template",
                                                   template["id"]),
                "ec2:IsLaunchTemplateResource": "true"}))
        # Instances and volumes take the fleet's tags; a network interface only the template's.
        created = {"instance": tagged.get("instance", {}), "volume": tagged.get("volume", {}),
                   "network-interface": template["tag_specifications"].get(
                       "network-interface", {})}
        for kind, tags in created.items():
            checks.append(self.check(request, run,
                                     self.new_resource(request, kind, request_tag_context(tags))))
        for kind, tags in created.items():
            if tags:
                checks.append(self.check(request, "ec2:CreateTags", self.new_resource(
                    request, kind, request_tag_context(tags)),
                    {"ec2:CreateAction": self.create_action_for_instances}))
        if template["profile"]:
            profile = memoized(request, ("profile", template["profile"]),
                               lambda: self.moto.instance_profile(template["profile"]))
            for role in (profile or {}).get("roles", []):
                checks.append({"action": "iam:PassRole", "resource": role,
                               "context": {"aws:RequestedRegion": request.region,
                                           "iam:PassedToService": "ec2.amazonaws.com"}})
        return checks

    def profile_target(self, request, name, path="/"):
        arn = f"arn:aws:iam::{self.account}:instance-profile{path or '/'}{name}"
        return {"resource": arn}

    def existing_profile(self, request):
        name = request.form.get("InstanceProfileName", "")
        profile = self.moto.instance_profile(name)
        if profile is None:
            return self.profile_target(request, name)
        return {"resource": profile["arn"], "context": resource_tag_context(profile["tags"])}

    def iam_request_tags(self, request):
        tags = {}
        for tag in indexed(request.params, "Tags.member"):
            tags[tag.get("Key", "")] = tag.get("Value", "")
        return tags

    def checks_iam_CreateInstanceProfile(self, request):
        target = self.profile_target(request, request.form.get("InstanceProfileName", ""),
                                     request.form.get("Path", "/"))
        return [self.check(request, request.action, target,
                           request_tag_context(self.iam_request_tags(request)))]

    def checks_iam_TagInstanceProfile(self, request):
        return [self.check(request, request.action, self.existing_profile(request),
                           request_tag_context(self.iam_request_tags(request)))]

    def checks_iam_GetInstanceProfile(self, request):
        return [self.check(request, request.action, self.existing_profile(request))]

    def checks_iam_AddRoleToInstanceProfile(self, request):
        # Adding a role to a profile passes it: IAM checks iam:PassRole to ec2.amazonaws.com.
        role = f"arn:aws:iam::{self.account}:role/{request.form.get('RoleName', '')}"
        return [self.check(request, request.action, self.existing_profile(request)),
                self.check(request, "iam:PassRole", {"resource": role},
                           {"iam:PassedToService": "ec2.amazonaws.com"})]

    checks_iam_RemoveRoleFromInstanceProfile = checks_iam_GetInstanceProfile
    checks_iam_DeleteInstanceProfile = checks_iam_GetInstanceProfile

    def checks_iam_ListInstanceProfiles(self, request):
        return [self.check(request, request.action, {
            "resource": f"arn:aws:iam::{self.account}:instance-profile/*"})]

    def checks_ssm_GetParameter(self, request):
        name = str(request.json.get("Name", "")).lstrip("/")
        account = "" if name.startswith("aws/") else self.account
        return [self.check(request, request.action, {
            "resource": f"arn:aws:ssm:{request.region}:{account}:parameter/{name}"})]

    def queue(self, request):
        name = request.json.get("QueueName") or str(request.json.get("QueueUrl", "")).rstrip(
            "/").rsplit("/", 1)[-1]
        owner = request.json.get("QueueOwnerAWSAccountId") or self.account
        return {"resource": f"arn:aws:sqs:{request.region}:{owner}:{name}"}

    def checks_sqs_GetQueueUrl(self, request):
        return [self.check(request, request.action, self.queue(request))]

    checks_sqs_ReceiveMessage = checks_sqs_GetQueueUrl
    checks_sqs_DeleteMessage = checks_sqs_GetQueueUrl
    checks_sqs_SendMessage = checks_sqs_GetQueueUrl

    def checks_events_ListRuleNamesByTarget(self, request):
        # No resource-level permission: IAM checks it against "*".
        return [self.check(request, request.action, {"resource": "*"})]

    def checks_events_DescribeRule(self, request):
        return [self.check(request, request.action, {
            "resource": f"arn:aws:events:{request.region}:{self.account}:rule/"
                        f"{request.json.get('Name', '')}"})]

    def checks_eks_DescribeCluster(self, request):
        return [self.check(request, request.action, {
            "resource": f"arn:aws:eks:{request.region}:{self.account}:cluster/"
                        f"{request.eks_path[0]}"})]

    checks_eks_ListNodegroups = checks_eks_DescribeCluster
    checks_eks_ListAccessEntries = checks_eks_DescribeCluster

    def checks_eks_DescribeNodegroup(self, request):
        cluster, _, name = request.eks_path[:3]
        # A node group's ARN ends in the id EKS gave it; one that does not exist has none yet.
        arn = self.moto.nodegroup_arn(request.region, cluster, name) or \
            f"arn:aws:eks:{request.region}:{self.account}:nodegroup/{cluster}/{name}"
        return [self.check(request, request.action, {"resource": arn})]

    checks_eks_UpdateNodegroupConfig = checks_eks_DescribeNodegroup

    def checks_eks_CreateAccessEntry(self, request):
        return [self.check(request, request.action, {
            "resource": f"arn:aws:eks:{request.region}:{self.account}:cluster/"
                        f"{request.eks_path[0]}"},
                           {"eks:principalArn": request.json.get("principalArn", ""),
                            "eks:accessEntryType": request.json.get("type") or "STANDARD"})]

    def checks_eks_DeleteAccessEntry(self, request):
        cluster, _, principal = request.eks_path
        # An entry's ARN names its principal and ends in an id EKS gives it.
        arn = self.moto.access_entry_arn(request.region, cluster, principal) or \
            f"arn:aws:eks:{request.region}:{self.account}:access-entry/{cluster}/" + \
            "/".join(principal.split(":", 5)[5:]) + "/"
        return [self.check(request, request.action, {"resource": arn},
                           {"eks:principalArn": principal})]

    def role(self, request):
        return {"resource": f"arn:aws:iam::{self.account}:role/{request.form.get('RoleName', '')}"}

    def checks_iam_GetRole(self, request):
        return [self.check(request, request.action, self.role(request))]

    checks_iam_PutRolePolicy = checks_iam_GetRole
    checks_iam_DeleteRolePolicy = checks_iam_GetRole
    checks_iam_ListRolePolicies = checks_iam_GetRole
    checks_iam_ListAttachedRolePolicies = checks_iam_GetRole
    checks_iam_DeleteRole = checks_iam_GetRole

    def checks_iam_CreateRole(self, request):
        # A role created with tags is tagged too: IAM checks iam:TagRole as well.
        tags = self.iam_request_tags(request)
        checks = [self.check(request, request.action, self.role(request),
                             request_tag_context(tags))]
        if tags:
            checks.append(self.check(request, "iam:TagRole", self.role(request),
                                     request_tag_context(tags)))
        return checks

    def checks_iam_AttachRolePolicy(self, request):
        return [self.check(request, request.action, self.role(request),
                           {"iam:PolicyARN": request.form.get("PolicyArn", "")})]

    checks_iam_DetachRolePolicy = checks_iam_AttachRolePolicy


def denial(principal, action, denied):
    """How a refusal is reported: the request's action and the check that failed."""
    return {"request": action, "action": denied.check["action"],
            "resource": denied.check.get("display", denied.check["resource"]),
            "decision": denied.decision, "statements": denied.statements,
            "error": denied.error, "principal": principal["arn"]}


def memoized(request, key, compute):
    """compute(), once per request and key."""
    if key not in request.memo:
        request.memo[key] = compute()
    return request.memo[key]


def indexed_values(params, prefix):
    """The values of prefix.N, in order of N."""
    return [entry[""] for entry in indexed(params, prefix) if "" in entry]


def overrides(config):
    out = {}
    for key, value in config.items():
        match = re.match(r"^Overrides\.(\d+)\.(.+)$", key)
        if match:
            out.setdefault(int(match[1]), {})[match[2]] = value
    return [out[i] for i in sorted(out)]
