"""Runs moto's AWS server on 127.0.0.1 and seeds it like the AWS account of an EKS cluster.

Started by scripts/testenv/moto-up with the Python of scripts/aws-test-tools' venv. Seeds, for
cluster CLUSTER in REGION: a VPC; three subnets (one per zone, of different sizes) and a security
group tagged karpenter.sh/discovery=CLUSTER, plus one untagged subnet and security group; EKS
optimized AL2023 (x86_64, arm64, x86_64 NVIDIA, and an older x86_64 and arm64 release), AL2
(x86_64, arm64, GPU), Bottlerocket (x86_64, arm64, x86_64 NVIDIA) and Windows Server 2022 AMIs
and the SSM parameters that resolve them (for --kubernetes-version and every
--also-kubernetes-version); three custom AMIs
of this account tagged karpenter.sh/discovery=CLUSTER (two x86_64 of different dates, one
arm64); an SQS interruption queue named CLUSTER; the node IAM role and a second role (to switch
an EC2NodeClass to); the EKS cluster; and one running instance Karpenter does not own. Writes
DIR/seed.json (the ids seeded), then DIR/endpoint (written last: its presence means ready), and
serves until SIGTERM.

One fix to moto's EC2: its fleets launch every instance into the VPC's default security group,
where EC2 gives it the launch template's (top-level or on its primary network interface), which
drift on security groups reads back. Two additions moto lacks: On-Demand Capacity Reservations
(serve_capacity_reservations; tests create the reservations they need through the EC2 API) and AMI
deprecation (deprecate_images).
"""

import argparse
import datetime
import hashlib
import json
import os
import signal
import sys
import threading
import urllib.parse
import uuid

ACCOUNT_ID = "123456789012"
SERVICE_CIDR = "10.100.0.0/16"  # the seeded EKS cluster's services
ACCESS_KEY_ID = "AKIAKARPENTERTEST"
SECRET_ACCESS_KEY = "karpenter-test-secret-access-key"
# The controller's own key: tests give it a policy through the fault proxy's /_iam endpoint
# (scripts/testenv/iam_authz.py), as IRSA gives the controller its role; the key above stays
# unrestricted for the test harness.
CONTROLLER_ACCESS_KEY_ID = "AKIAKARPENTERCONTROLLER"
CONTROLLER_SECRET_ACCESS_KEY = "karpenter-controller-secret-access-key"
# The account EKS publishes its optimized AMIs from (their OwnerId in DescribeImages).
AMI_OWNER_ID = "602401143452"
AMI_RELEASE = "v20241121"  # the release date suffix of the seeded AMIs' names
# An older AL2023 release, named only by its versioned parameters (al2023@v20240807, the guide's
# pin): bumping the alias to latest rolls nodes by AMI drift.
PREVIOUS_AMI_RELEASE = "v20240807"
# A newer AL2023 release, named only by its versioned parameters until a test publishes it under
# the recommended parameter (publish_releases), as AWS does: al2023@latest nodes then drift.
NEXT_AMI_RELEASE = "v20241205"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", required=True, help="where endpoint and seed.json go")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cluster", default="karpenter-test")
    parser.add_argument("--region", default="us-west-2")
    parser.add_argument("--kubernetes-version", default="1.31")
    parser.add_argument("--also-kubernetes-version", action="append", default=[],
                        help="publish the optimized AMIs of this version too (the test cluster's)")
    return parser.parse_args()


def ami_id(name):
    """A stable AMI id derived from the image's name, so reruns seed the same ids."""
    return "ami-" + hashlib.sha256(name.encode()).hexdigest()[:17]


def images(k8s):
    """The AMIs to seed and the SSM parameter that names each, as real EKS publishes them."""
    eks = "/aws/service/eks/optimized-ami/" + k8s + "/amazon-linux-2023"
    al2 = "/aws/service/eks/optimized-ami/" + k8s + "/amazon-linux-2"
    bottlerocket = "/aws/service/bottlerocket/aws-k8s-" + k8s
    specs = [  # key, image name, architecture, SSM parameters naming it
        ("al2023_x86_64", f"amazon-eks-node-al2023-x86_64-standard-{k8s}-{AMI_RELEASE}", "x86_64",
         [f"{eks}/x86_64/standard/recommended/image_id"]),
        ("al2023_arm64", f"amazon-eks-node-al2023-arm64-standard-{k8s}-{AMI_RELEASE}", "arm64",
         [f"{eks}/arm64/standard/recommended/image_id"]),
        ("al2023_x86_64_nvidia", f"amazon-eks-node-al2023-x86_64-nvidia-{k8s}-{AMI_RELEASE}",
         "x86_64", [f"{eks}/x86_64/nvidia/recommended/image_id"]),
        ("bottlerocket_x86_64", f"bottlerocket-aws-k8s-{k8s}-x86_64-{AMI_RELEASE}", "x86_64",
         [f"{bottlerocket}/x86_64/latest/image_id"]),
        ("bottlerocket_arm64", f"bottlerocket-aws-k8s-{k8s}-aarch64-{AMI_RELEASE}", "arm64",
         [f"{bottlerocket}/arm64/latest/image_id"]),
        ("bottlerocket_x86_64_nvidia", f"bottlerocket-aws-k8s-{k8s}-nvidia-x86_64-{AMI_RELEASE}",
         "x86_64", [f"{bottlerocket}-nvidia/x86_64/latest/image_id"]),
        ("al2_x86_64", f"amazon-eks-node-{k8s}-{AMI_RELEASE}", "x86_64",
         [f"{al2}/recommended/image_id", f"{al2}/amazon-eks-node-{k8s}-{AMI_RELEASE}/image_id"]),
        ("al2_arm64", f"amazon-eks-arm64-node-{k8s}-{AMI_RELEASE}", "arm64",
         [f"{al2}-arm64/recommended/image_id",
          f"{al2}-arm64/amazon-eks-arm64-node-{k8s}-{AMI_RELEASE}/image_id"]),
        ("al2_x86_64_gpu", f"amazon-eks-gpu-node-{k8s}-{AMI_RELEASE}", "x86_64",
         [f"{al2}-gpu/recommended/image_id",
          f"{al2}-gpu/amazon-eks-gpu-node-{k8s}-{AMI_RELEASE}/image_id"]),
        ("al2023_x86_64_previous",
         f"amazon-eks-node-al2023-x86_64-standard-{k8s}-{PREVIOUS_AMI_RELEASE}", "x86_64", []),
        ("al2023_arm64_previous",
         f"amazon-eks-node-al2023-arm64-standard-{k8s}-{PREVIOUS_AMI_RELEASE}", "arm64", []),
        ("al2023_x86_64_next",
         f"amazon-eks-node-al2023-x86_64-standard-{k8s}-{NEXT_AMI_RELEASE}", "x86_64", []),
        ("windows2022_x86_64", f"Windows_Server-2022-English-Core-EKS_Optimized-{k8s}-"
         f"{AMI_RELEASE}", "x86_64",
         [f"/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-{k8s}"
          "/image_id"]),
    ]
    # Versioned names too, as the alias al2023@<version> resolves them.
    for key, name, arch, params in specs:
        if key.startswith("al2023"):
            variant = "nvidia" if key.endswith("nvidia") else "standard"
            params.append(f"{eks}/{arch}/{variant}/{name}/image_id")
    return specs


def custom_images():
    """AMIs this account built (key, name, architecture, creation date): no SSM parameter names
    them; they are found by tag or name, and the newest per architecture wins. The "retiring" ones
    carry their own tag (karpenter.sh/retiring), and the seed deprecates the newer x86_64 one and
    the arm64 one: a selector of that tag gets the older x86_64 image, and the deprecated arm64
    one only because nothing else matches."""
    return [
        ("retiring_x86_64_old", "karpenter-retiring-node-x86_64-20240901", "x86_64",
         "2024-09-01T12:00:00.000Z"),
        ("retiring_x86_64_new", "karpenter-retiring-node-x86_64-20241001", "x86_64",
         "2024-10-01T12:00:00.000Z"),
        ("retiring_arm64", "karpenter-retiring-node-arm64-20241001", "arm64",
         "2024-10-01T12:00:00.000Z"),
        ("custom_x86_64_old", "karpenter-custom-node-x86_64-20241001", "x86_64",
         "2024-10-01T12:00:00.000Z"),
        ("custom_x86_64_new", "karpenter-custom-node-x86_64-20241101", "x86_64",
         "2024-11-01T12:00:00.000Z"),
        ("custom_arm64", "karpenter-custom-node-arm64-20241015", "arm64",
         "2024-10-15T12:00:00.000Z"),
    ]


def image_definition(name, arch, owner, description, created):
    """One image as moto's AMI catalogue (MOTO_AMIS_PATH) describes it."""
    return {
        "ami_id": ami_id(name),
        "name": name,
        "description": description,
        "owner_id": owner,
        "state": "available",
        "architecture": arch,
        "virtualization_type": "hvm",
        "hypervisor": "xen",
        "root_device_type": "ebs",
        "root_device_name": "/dev/xvda",
        "image_type": "machine",
        "image_location": f"{'amazon' if owner == AMI_OWNER_ID else owner}/{name}",
        "platform": None,
        "sriov": "simple",
        "boot_mode": "uefi-preferred",
        "creation_date": created,
    }


def write_ami_definitions(path, specs):
    """moto loads these (MOTO_AMIS_PATH) in place of its default catalogue."""
    definitions = [image_definition(name, arch, AMI_OWNER_ID,
                                    f"EKS Kubernetes Worker AMI ({name})",
                                    "2024-11-21T12:00:00.000Z")
                   for _, name, arch, _ in specs]
    definitions += [image_definition(name, arch, ACCOUNT_ID, f"custom node image ({name})", created)
                    for _, name, arch, created in custom_images()]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(definitions, f, indent=1)


def seed_ssm(region, specs):
    """/aws/... names are reserved to AWS (PutParameter refuses them), so go to moto's backend."""
    from moto.ssm.models import Parameter, ssm_backends  # pylint: disable=import-outside-toplevel
    backend = ssm_backends[ACCOUNT_ID][region]
    now = datetime.datetime.now(datetime.timezone.utc)
    seeded = {}
    for _, name, _, params in specs:
        for param in params:
            backend._parameters[param].append(  # pylint: disable=protected-access
                Parameter(account_id=ACCOUNT_ID, name=param, value=ami_id(name),
                          parameter_type="String", description=None, allowed_pattern=None,
                          keyid=None, last_modified_date=now, version=1, data_type="text"))
            seeded[param] = ami_id(name)
    return seeded


def publish_releases():
    """PutParameter refuses names under /aws/ (only AWS writes them); here a caller may overwrite an
    existing /aws/service/ parameter, standing in for AWS publishing a new release under it."""
    # pylint: disable=import-outside-toplevel
    from moto.ssm.models import Parameter, SimpleSystemManagerBackend
    put_parameter = SimpleSystemManagerBackend.put_parameter

    def publish(self, name, description, value, parameter_type, allowed_pattern, keyid,
                overwrite, *args, **kwargs):
        versions = self._parameters.get(name)  # pylint: disable=protected-access
        if not name.startswith("/aws/service/") or not versions or not overwrite:
            return put_parameter(self, name, description, value, parameter_type, allowed_pattern,
                                 keyid, overwrite, *args, **kwargs)
        versions.append(Parameter(
            account_id=self.account_id, name=name, value=value, parameter_type="String",
            description=None, allowed_pattern=None, keyid=None,
            last_modified_date=datetime.datetime.now(datetime.timezone.utc),
            version=versions[-1].version + 1, data_type="text"))
        return versions[-1]

    SimpleSystemManagerBackend.put_parameter = publish


def tags(**pairs):
    return [{"Key": k, "Value": v} for k, v in pairs.items()]


def seed(endpoint, args, specs, extra_specs):
    import boto3  # pylint: disable=import-outside-toplevel
    session = boto3.session.Session(aws_access_key_id=ACCESS_KEY_ID,
                                    aws_secret_access_key=SECRET_ACCESS_KEY,
                                    region_name=args.region)
    ec2, sqs, iam, eks = (session.client(s, endpoint_url=endpoint)
                          for s in ("ec2", "sqs", "iam", "eks"))
    discovery = {"karpenter.sh/discovery": args.cluster}
    out = {"account": ACCOUNT_ID, "region": args.region, "cluster": args.cluster,
           "kubernetes_version": args.kubernetes_version,
           "credentials": {"access_key_id": ACCESS_KEY_ID,
                           "secret_access_key": SECRET_ACCESS_KEY},
           "controller_credentials": {
               "access_key_id": CONTROLLER_ACCESS_KEY_ID,
               "secret_access_key": CONTROLLER_SECRET_ACCESS_KEY,
               "principal_arn": f"arn:aws:sts::{ACCOUNT_ID}:assumed-role/"
                                f"KarpenterControllerRole-{args.cluster}/karpenter"}}

    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16", TagSpecifications=[{
        "ResourceType": "vpc", "Tags": tags(Name=f"{args.cluster}-vpc")}])["Vpc"]["VpcId"]
    out["vpc"] = vpc

    # Discovered subnets of different sizes: the one in zone a has the most free addresses.
    zones = [args.region + z for z in "abc"]
    blocks = ["10.0.0.0/20", "10.0.16.0/22", "10.0.20.0/24"]
    out["subnets"] = []
    for zone, block in zip(zones, blocks):
        subnet = ec2.create_subnet(VpcId=vpc, CidrBlock=block, AvailabilityZone=zone,
                                   TagSpecifications=[{"ResourceType": "subnet", "Tags": tags(
                                       Name=f"{args.cluster}-private-{zone}",
                                       **discovery)}])["Subnet"]
        out["subnets"].append({"id": subnet["SubnetId"], "zone": zone, "cidr": block,
                               "available_ips": subnet["AvailableIpAddressCount"]})
    untagged = ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.64.0/24", AvailabilityZone=zones[0],
                                 TagSpecifications=[{"ResourceType": "subnet", "Tags": tags(
                                     Name=f"{args.cluster}-untagged")}])["Subnet"]["SubnetId"]
    out["untagged_subnet"] = untagged

    group = ec2.create_security_group(
        GroupName=f"{args.cluster}-node", Description="EKS nodes", VpcId=vpc,
        TagSpecifications=[{"ResourceType": "security-group",
                            "Tags": tags(**discovery)}])["GroupId"]
    other = ec2.create_security_group(GroupName=f"{args.cluster}-other",
                                      Description="not for nodes", VpcId=vpc)["GroupId"]
    out["security_group"], out["untagged_security_group"] = group, other

    out["images"] = {key: {"id": ami_id(name), "name": name, "architecture": arch}
                     for key, name, arch, _ in specs}
    out["ssm_parameters"] = seed_ssm(args.region, specs + extra_specs)
    out["also_kubernetes_versions"] = args.also_kubernetes_version
    # Per Kubernetes version, the recommended standard x86_64 AL2023 parameter and the newer
    # release a test may publish under it (publish_releases).
    out["next_releases"] = {}
    for version in [args.kubernetes_version] + args.also_kubernetes_version:
        named = {key: (name, params) for key, name, _, params in images(version)}
        out["next_releases"][named["al2023_x86_64"][1][0]] = ami_id(named["al2023_x86_64_next"][0])
    out["custom_images"] = {key: {"id": ami_id(name), "name": name, "architecture": arch,
                                  "creation_date": created}
                            for key, name, arch, created in custom_images()}
    retiring = [key for key in out["custom_images"] if key.startswith("retiring")]
    ec2.create_tags(Resources=[image["id"] for key, image in out["custom_images"].items()
                               if key not in retiring],
                    Tags=tags(**discovery))
    ec2.create_tags(Resources=[out["custom_images"][key]["id"] for key in retiring],
                    Tags=tags(**{"karpenter.sh/retiring": args.cluster}))
    for key in ("retiring_x86_64_new", "retiring_arm64"):
        ec2.enable_image_deprecation(ImageId=out["custom_images"][key]["id"],
                                     DeprecateAt=datetime.datetime(2025, 1, 1,
                                                                   tzinfo=datetime.timezone.utc))

    out["queue_url"] = sqs.create_queue(QueueName=args.cluster)["QueueUrl"]

    role_name = f"KarpenterNodeRole-{args.cluster}"
    trust = {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"},
        "Action": "sts:AssumeRole"}]}
    out["node_role_arn"] = iam.create_role(
        RoleName=role_name, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    out["node_role"] = role_name
    other_role = f"KarpenterNodeRole-{args.cluster}-other"
    iam.create_role(RoleName=other_role, AssumeRolePolicyDocument=json.dumps(trust))
    out["other_node_role"] = other_role

    cluster = eks.create_cluster(
        name=args.cluster, version=args.kubernetes_version, roleArn=out["node_role_arn"],
        resourcesVpcConfig={"subnetIds": [s["id"] for s in out["subnets"]],
                            "securityGroupIds": [group]},
        kubernetesNetworkConfig={"serviceIpv4Cidr": SERVICE_CIDR})["cluster"]
    out["cluster_arn"] = cluster["arn"]
    out["service_cidr"] = SERVICE_CIDR
    # A cluster whose nodes join through EKS access entries (authentication mode API), with the
    # entry of its node role.
    api_cluster = args.cluster + "-api"
    eks.create_cluster(
        name=api_cluster, version=args.kubernetes_version, roleArn=out["node_role_arn"],
        resourcesVpcConfig={"subnetIds": [s["id"] for s in out["subnets"]],
                            "securityGroupIds": [group]},
        accessConfig={"authenticationMode": "API"})
    eks.create_access_entry(
        clusterName=api_cluster, type="EC2_LINUX",
        principalArn=f"arn:aws:iam::{ACCOUNT_ID}:role/KarpenterNodeRole-{api_cluster}")
    out["api_cluster"] = api_cluster
    # Managed node groups as a cluster migrating off Cluster Autoscaler has them: a general
    # on-demand group over every zone, and a tainted arm64 spot group for batch work.
    out["node_groups"] = {}
    group_role = iam.create_role(RoleName=f"eks-nodegroup-{args.cluster}",
                                 AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    for name, config in {
            "general": dict(instanceTypes=["m5.xlarge", "m5.2xlarge"], capacityType="ON_DEMAND",
                            amiType="AL2023_x86_64_STANDARD", labels={"role": "general"},
                            scalingConfig={"minSize": 2, "maxSize": 6, "desiredSize": 3},
                            subnets=[s["id"] for s in out["subnets"]]),
            "batch-spot": dict(instanceTypes=["c6g.xlarge", "c7g.xlarge"], capacityType="SPOT",
                               amiType="AL2023_ARM_64_STANDARD", labels={"workload": "batch"},
                               taints=[{"key": "dedicated", "value": "batch",
                                        "effect": "NO_SCHEDULE"}],
                               scalingConfig={"minSize": 0, "maxSize": 10, "desiredSize": 2},
                               subnets=[out["subnets"][0]["id"]])}.items():
        eks.create_nodegroup(clusterName=args.cluster, nodegroupName=name,
                             nodeRole=group_role, **config)
        out["node_groups"][name] = config

    # An instance Karpenter must never touch: no karpenter.sh/* tags, in the untagged subnet.
    instance = ec2.run_instances(
        ImageId=out["images"]["al2023_x86_64"]["id"], InstanceType="t3.micro", MinCount=1,
        MaxCount=1, SubnetId=untagged, SecurityGroupIds=[other],
        TagSpecifications=[{"ResourceType": "instance",
                            "Tags": tags(Name="bastion")}])["Instances"][0]["InstanceId"]
    out["unmanaged_instance"] = instance
    return out


def write_atomically(path, text):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def launch_fleets_with_template_security_groups():
    """moto's fleet launches take the security groups from a launch template's "GroupSet", which
    CreateLaunchTemplate never fills: fill it from what the template was given."""
    from moto.ec2.models import launch_templates  # pylint: disable=import-outside-toplevel
    original = launch_templates.LaunchTemplateVersion.__init__

    def init(self, template, number, data, description):
        groups = data.get("SecurityGroupIds") or []
        for interface in data.get("NetworkInterfaces") or []:
            if str(interface.get("DeviceIndex", 0)) == "0":
                groups = groups or interface.get("Groups") or []
        if groups and "GroupSet" not in data:
            data = dict(data, GroupSet=list(groups))
        original(self, template, number, data, description)

    launch_templates.LaunchTemplateVersion.__init__ = init


def serve_capacity_reservations():
    """EC2 On-Demand Capacity Reservations, which moto 5.2 lacks: CreateCapacityReservation,
    DescribeCapacityReservations, ModifyCapacityReservation and CancelCapacityReservation as EC2
    answers them, and fleet launches whose launch template targets one (CapacityReservationTarget)
    go into it while it has room; else the launch is reported in the fleet's errorSet as
    ReservationCapacityExceeded, as EC2 does. A reservation's available count is its total less the
    instances running in it. Once it ends (cancelled, or past its end date: expired), its
    instances run on as on-demand ones that name no reservation, as on EC2. EC2 makes a capacity
    block only by PurchaseCapacityBlock from an offering; this fixture makes one from
    CreateCapacityReservation with the extra parameter ReservationType=capacity-block."""
    # pylint: disable=import-outside-toplevel,protected-access
    from moto.ec2.exceptions import EC2ClientError
    from moto.ec2.models import fleets
    from moto.ec2.responses import EC2Response
    from moto.core.responses import ActionResult

    reservations = {}  # id -> dict of the reservation's fields
    now = lambda: datetime.datetime.now(datetime.timezone.utc)  # noqa: E731

    def settle(backend):
        """Ends what has expired and takes ended reservations' instances out of them."""
        for reservation in reservations.values():
            end = reservation.get("EndDate")
            if reservation["State"] == "active" and end is not None and end <= now():
                reservation["State"] = "expired"
        running = {}
        for instance in backend.all_instances():
            reservation_id = getattr(instance, "capacity_reservation_id", None)
            if not reservation_id:
                continue
            reservation = reservations.get(reservation_id)
            if reservation is None or reservation["State"] != "active":
                instance.capacity_reservation_id = None
            elif instance.state in ("pending", "running", "stopping", "stopped"):
                running[reservation_id] = running.get(reservation_id, 0) + 1
        for reservation_id, reservation in reservations.items():
            used = running.get(reservation_id, 0) if reservation["State"] == "active" else 0
            reservation["AvailableInstanceCount"] = max(reservation["TotalInstanceCount"] - used, 0)

    def not_found(reservation_id):
        return EC2ClientError("InvalidCapacityReservationId.NotFound",
                              f"The capacity reservation ID '{reservation_id}' does not exist")

    def named(response):
        """The reservation a Modify or Cancel request names."""
        reservation_id = response._get_param("CapacityReservationId")
        if reservation_id not in reservations:
            raise not_found(reservation_id)
        return reservations[reservation_id]

    def end_date(response):
        """The request's EndDate as a datetime, or None."""
        end = response._get_param("EndDate")
        if isinstance(end, str):
            end = datetime.datetime.fromisoformat(end.replace("Z", "+00:00"))
        if isinstance(end, datetime.datetime) and end.tzinfo is None:
            end = end.replace(tzinfo=datetime.timezone.utc)  # moto parses it without its zone
        return end

    def create_capacity_reservation(self):
        self.error_on_dryrun()
        reservation_id = "cr-" + hashlib.sha256(os.urandom(16)).hexdigest()[:17]
        end = end_date(self)
        tags = self._parse_tag_specification().get("capacity-reservation", {})
        reservation = {
            "CapacityReservationId": reservation_id,
            "OwnerId": ACCOUNT_ID,
            "CapacityReservationArn":
                f"arn:aws:ec2:{self.region}:{ACCOUNT_ID}:capacity-reservation/{reservation_id}",
            "InstanceType": self._get_param("InstanceType"),
            "InstancePlatform": self._get_param("InstancePlatform"),
            "AvailabilityZone": self._get_param("AvailabilityZone"),
            "Tenancy": self._get_param("Tenancy") or "default",
            "TotalInstanceCount": int(self._get_param("InstanceCount")),
            "AvailableInstanceCount": int(self._get_param("InstanceCount")),
            "State": "active",
            "StartDate": now(),
            "EndDate": end,
            "EndDateType": "limited" if end is not None else "unlimited",
            "InstanceMatchCriteria": self._get_param("InstanceMatchCriteria") or "open",
            "CreateDate": now(),
            # Not in EC2's model of this call, so read from the raw query, which moto keeps.
            "ReservationType": (self.querystring.get("ReservationType") or ["default"])[0],
            "Tags": [{"Key": k, "Value": v} for k, v in tags.items()],
        }
        reservations[reservation_id] = reservation
        settle(self.ec2_backend)
        return ActionResult({"CapacityReservation": dict(reservation)})

    def describe_capacity_reservations(self):
        self.error_on_dryrun()
        settle(self.ec2_backend)
        ids = self._get_param("CapacityReservationIds", [])
        for reservation_id in ids:
            if reservation_id not in reservations:
                raise not_found(reservation_id)
        filters = self._filters_from_querystring()

        def matches(reservation):
            tags = {t["Key"]: t["Value"] for t in reservation["Tags"]}
            for name, values in filters.items():
                if name.startswith("tag:"):
                    if tags.get(name[4:]) not in values:
                        return False
                elif name == "tag-key":
                    if not any(v in tags for v in values):
                        return False
                else:
                    field = {"state": "State", "owner-id": "OwnerId",
                             "instance-match-criteria": "InstanceMatchCriteria",
                             "instance-type": "InstanceType",
                             "availability-zone": "AvailabilityZone"}.get(name)
                    if field is None:
                        raise EC2ClientError("InvalidParameterValue",
                                             f"The filter '{name}' is invalid")
                    if reservation[field] not in values:
                        return False
            return True
        chosen = [dict(r) for i, r in sorted(reservations.items())
                  if (not ids or i in ids) and matches(r)]
        return ActionResult({"CapacityReservations": chosen})

    def modify_capacity_reservation(self):
        self.error_on_dryrun()
        reservation = named(self)
        if self._get_param("InstanceCount") is not None:
            reservation["TotalInstanceCount"] = int(self._get_param("InstanceCount"))
        end = end_date(self)
        if end is not None:
            reservation["EndDate"], reservation["EndDateType"] = end, "limited"
        settle(self.ec2_backend)
        return ActionResult({"Return": True})

    def cancel_capacity_reservation(self):
        self.error_on_dryrun()
        named(self)["State"] = "cancelled"
        settle(self.ec2_backend)
        return ActionResult({"Return": True})

    for method in (create_capacity_reservation, describe_capacity_reservations,
                   modify_capacity_reservation, cancel_capacity_reservation):
        setattr(EC2Response, method.__name__, method)


    def target_of(backend, spec):
        """The reservation a fleet launch spec's template targets, or None."""
        template_spec = spec.launch_template_spec or {}
        template = backend.get_launch_template(template_spec["LaunchTemplateId"])
        data = template.get_version(template_spec.get("Version", template.latest_version_number))
        specification = data.data.get("CapacityReservationSpecification") or {}
        return (specification.get("CapacityReservationTarget") or {}).get("CapacityReservationId")

    original_on_demand = fleets.Fleet.create_on_demand_requests

    def create_on_demand_requests(self, weight_to_add):
        settle(self.ec2_backend)
        self.reservation_errors = []
        usable = []
        for spec in self.launch_specs:
            reservation_id = target_of(self.ec2_backend, spec)
            if reservation_id is None:
                usable.append((spec, None))
                continue
            reservation = reservations.get(reservation_id)
            zone = self.ec2_backend.get_subnet(spec.subnet_id).availability_zone
            if (reservation is None or reservation["State"] != "active"
                    or reservation["InstanceType"] != spec.instance_type
                    or reservation["AvailabilityZone"] != zone
                    or reservation["AvailableInstanceCount"] < 1):
                self.reservation_errors.append((spec, zone))
                continue
            usable.append((spec, reservation))
        if not usable:
            return
        if usable[0][1] is None:
            self.launch_specs = [spec for spec, _ in usable]
            original_on_demand(self, weight_to_add)
            return
        spec, reservation = usable[0]
        count = min(int(weight_to_add), reservation["AvailableInstanceCount"])
        launched = self.ec2_backend.run_instances(
            image_id=spec.image_id, count=count, instance_type=spec.instance_type,
            is_instance_type_default=False, key_name=spec.key_name,
            security_group_names=spec.group_set, user_data=spec.user_data, placement=None,
            kernel_id=None, ramdisk_id=None, monitoring_enabled=spec.monitoring,
            subnet_id=spec.subnet_id, fleet_id=self.id, tags=spec.tag_specifications)
        for instance in launched.instances:
            instance.capacity_reservation_id = reservation["CapacityReservationId"]
            self.on_demand_instances.append(
                {"id": launched.id, "instance": instance, "launch_spec": spec})
        self.fulfilled_capacity += count
        settle(self.ec2_backend)

    fleets.Fleet.create_on_demand_requests = create_on_demand_requests

    original_create_fleet = EC2Response.create_fleet

    def create_fleet(self):
        answer = original_create_fleet(self)
        fleet = self.ec2_backend.get_fleet(answer.result["FleetId"])
        errors = []
        for spec, zone in getattr(fleet, "reservation_errors", []):
            errors.append({
                "LaunchTemplateAndOverrides": {
                    "LaunchTemplateSpecification": {
                        "LaunchTemplateId": spec.launch_template_spec.get("LaunchTemplateId"),
                        "Version": str(spec.launch_template_spec.get("Version", "1"))},
                    "Overrides": {"InstanceType": spec.instance_type, "SubnetId": spec.subnet_id,
                                  "AvailabilityZone": zone}},
                "Lifecycle": "on-demand",
                "ErrorCode": "ReservationCapacityExceeded",
                "ErrorMessage": "There is insufficient capacity in the capacity reservation."})
        if errors:
            answer.result["Errors"] = errors
        return answer

    EC2Response.create_fleet = create_fleet


def deprecate_images():
    """moto 5.2 has no AMI deprecation: EnableImageDeprecation records the time, which
    DescribeImages then reports as deprecationTime (it returns deprecated images either way, as EC2
    does with IncludeDeprecated)."""
    # pylint: disable=import-outside-toplevel
    from moto.ec2.responses import EC2Response
    from moto.core.responses import ActionResult

    def enable_image_deprecation(self):
        self.error_on_dryrun()
        image = self.ec2_backend.describe_images(ami_ids=[self._get_param("ImageId")])[0]
        at = self._get_param("DeprecateAt")
        if isinstance(at, datetime.datetime):
            at = at.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        image.deprecation_time = at
        return ActionResult({"Return": True})

    EC2Response.enable_image_deprecation = enable_image_deprecation


def list_nodegroups_of_unknown_cluster():
    """moto 5.2's ListNodegroups fails with a KeyError (HTTP 500) for a cluster that does not
    exist, where EKS answers ResourceNotFoundException as DescribeNodegroup does."""
    # pylint: disable=import-outside-toplevel
    from moto.eks import models

    original = models.EKSBackend.list_nodegroups

    def list_nodegroups(self, cluster_name, max_results, next_token):
        if cluster_name not in self.clusters:
            raise models.ResourceNotFoundException(
                clusterName=cluster_name, nodegroupName=None, fargateProfileName=None,
                addonName=None,
                message=models.CLUSTER_NOT_FOUND_MSG.format(clusterName=cluster_name))
        return original(self, cluster_name, max_results, next_token)

    models.EKSBackend.list_nodegroups = list_nodegroups


def eks_access_entries():
    """moto 5.2's EKS has neither authentication modes nor access entries: a cluster created with
    accessConfig keeps it (DescribeCluster returns it), and Create/List/Describe/DeleteAccessEntry
    keep a cluster's entries, as EKS does for clusters in API or API_AND_CONFIG_MAP mode."""
    # pylint: disable=import-outside-toplevel
    from moto.core.responses import ActionResult
    from moto.eks import models, responses, urls

    original_create_cluster = responses.EKSResponse.create_cluster

    def create_cluster(self):
        original_create_cluster(self)
        cluster = self.eks_backend.clusters[self._get_param("name")]
        access = self._get_param("accessConfig")
        if access:
            cluster.access_config = {
                "authenticationMode": access.get("authenticationMode", "CONFIG_MAP")}
        return ActionResult({"cluster": cluster})

    def create_access_entry(self):
        cluster = self.eks_backend.describe_cluster(name=self._get_param("name"))
        principal = self._get_param("principalArn")
        # arn:aws:iam::<account>:role/<path/><name>
        fields = (principal or "").split(":", 5)
        if len(fields) != 6 or fields[2] != "iam":
            raise models.InvalidParameterException(
                clusterName=cluster.name, nodegroupName=None, fargateProfileName=None,
                addonName=None, message=f"{principal} is not the ARN of an IAM principal")
        account, resource = fields[4], fields[5]
        kind, _, name = resource.partition("/")
        name = name.rsplit("/", 1)[-1]
        if not hasattr(cluster, "access_entries"):
            cluster.access_entries = {}
        entry = {"clusterName": cluster.name, "principalArn": principal,
                 "type": self._get_param("type") or "STANDARD",
                 "username": self._get_param("username") or "",
                 "kubernetesGroups": self._get_param("kubernetesGroups") or [],
                 # access-entry/<cluster>/<role|user>/<account>/<name>/<id>, as EKS names them.
                 "accessEntryArn": f"arn:aws:eks:{self.region}:{self.current_account}:"
                                   f"access-entry/{cluster.name}/{kind}/{account}/{name}/"
                                   f"{uuid.uuid4()}"}
        if principal in cluster.access_entries:
            raise models.ResourceInUseException(
                clusterName=cluster.name, nodegroupName=None, addonName=None,
                message=f"The specified access entry resource is already in use on this "
                        f"cluster: {principal}")
        cluster.access_entries[principal] = entry
        return ActionResult({"accessEntry": entry})

    def entry_of_path(self):
        """The cluster and principal of /clusters/<name>/access-entries/<principal ARN>."""
        cluster = self.eks_backend.describe_cluster(name=self._get_param("name"))
        # The principal's ARN is one segment of the path, ':' and '/' encoded.
        principal = urllib.parse.unquote(self.path.split("/access-entries/", 1)[1].split("?")[0])
        if principal not in getattr(cluster, "access_entries", {}):
            raise models.ResourceNotFoundException(
                clusterName=cluster.name, nodegroupName=None, fargateProfileName=None,
                addonName=None, message=f"The specified access entry {principal} is not found")
        return cluster, principal

    def describe_access_entry(self):
        cluster, principal = entry_of_path(self)
        return ActionResult({"accessEntry": cluster.access_entries[principal]})

    def delete_access_entry(self):
        cluster, principal = entry_of_path(self)
        del cluster.access_entries[principal]
        return ActionResult({})

    def list_access_entries(self):
        cluster = self.eks_backend.describe_cluster(name=self._get_param("name"))
        return ActionResult({"accessEntries": sorted(getattr(cluster, "access_entries", {}))})

    responses.EKSResponse.create_cluster = create_cluster
    responses.EKSResponse.create_access_entry = create_access_entry
    responses.EKSResponse.list_access_entries = list_access_entries
    responses.EKSResponse.describe_access_entry = describe_access_entry
    responses.EKSResponse.delete_access_entry = delete_access_entry
    urls.url_paths["{0}/clusters/(?P<name>[^/]+)/access-entries$"] = urls.response.dispatch
    urls.url_paths["{0}/clusters/(?P<name>[^/]+)/access-entries/(?P<principalArn>.+)$"] = \
        urls.response.dispatch


def node_role_policies():
    """moto has AWS's managed policies only all at once (MOTO_IAM_LOAD_MANAGED_POLICIES: over a
    thousand, parsed for every account): the four the migration guide's node role carries are
    loaded alone, so that AttachRolePolicy of them works as in AWS."""
    # pylint: disable=import-outside-toplevel
    from moto.iam import models
    from moto.iam.aws_managed_policies import aws_managed_policies_data

    names = ("AmazonEKS_CNI_Policy", "AmazonEKSWorkerNodePolicy",
             "AmazonEC2ContainerRegistryPullOnly", "AmazonSSMManagedInstanceCore")

    def init_aws_policies(self):
        data = json.loads(aws_managed_policies_data)
        return [models.AWSManagedPolicy.from_data(name, self.account_id, self.region_name,
                                                  data[name]) for name in names]

    models.IAMBackend._init_aws_policies = init_aws_policies  # pylint: disable=protected-access


def main():
    args = parse_args()
    specs = images(args.kubernetes_version)
    extra_specs = [spec for version in args.also_kubernetes_version for spec in images(version)]
    # moto reads these when imported: set them first.
    ami_file = os.path.join(args.dir, "amis.json")
    write_ami_definitions(ami_file, specs + extra_specs)
    os.environ["MOTO_AMIS_PATH"] = ami_file
    os.environ["MOTO_ACCOUNT_ID"] = ACCOUNT_ID
    from moto.server import ThreadedMotoServer  # pylint: disable=import-outside-toplevel

    launch_fleets_with_template_security_groups()
    serve_capacity_reservations()
    deprecate_images()
    list_nodegroups_of_unknown_cluster()
    eks_access_entries()
    node_role_policies()
    publish_releases()

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=args.port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{args.port}"
    seeded = seed(endpoint, args, specs, extra_specs)
    write_atomically(os.path.join(args.dir, "seed.json"), json.dumps(seeded, indent=2) + "\n")
    write_atomically(os.path.join(args.dir, "endpoint"), endpoint + "\n")
    print(f"moto: serving {endpoint}, seeded for cluster {args.cluster}", flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
