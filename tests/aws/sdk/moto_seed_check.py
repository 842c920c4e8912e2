"""Checks, over HTTP with boto3, that the moto server scripts/testenv/moto-up started is seeded as
an EKS account: what Karpenter discovers by tag and resolves through SSM is there and agrees
with DIR/seed.json. Prints one line per check; exits non-zero on the first that fails.

Usage: python moto_seed_check.py DIR
"""

import json
import sys

import boto3


def check(what, ok, detail=""):
    if not ok:
        print(f"FAIL {what}: {detail}", flush=True)
        sys.exit(1)
    print(f"ok   {what}", flush=True)


def main(directory):
    with open(f"{directory}/endpoint", encoding="utf-8") as f:
        endpoint = f.read().strip()
    with open(f"{directory}/seed.json", encoding="utf-8") as f:
        seed = json.load(f)
    session = boto3.session.Session(
        aws_access_key_id=seed["credentials"]["access_key_id"],
        aws_secret_access_key=seed["credentials"]["secret_access_key"],
        region_name=seed["region"])
    ec2, ssm, sqs, iam = (session.client(s, endpoint_url=endpoint)
                          for s in ("ec2", "ssm", "sqs", "iam"))
    discovery = [{"Name": "tag:karpenter.sh/discovery", "Values": [seed["cluster"]]}]

    subnets = ec2.describe_subnets(Filters=discovery)["Subnets"]
    check("three subnets carry the discovery tag",
          sorted(s["SubnetId"] for s in subnets) == sorted(s["id"] for s in seed["subnets"]),
          subnets)
    check("one per zone", sorted(s["AvailabilityZone"] for s in subnets)
          == [seed["region"] + z for z in "abc"])
    free = sorted(s["AvailableIpAddressCount"] for s in subnets)
    check("their free addresses differ", len(set(free)) == 3, free)
    check("the untagged subnet is not discovered",
          seed["untagged_subnet"] not in {s["SubnetId"] for s in subnets})

    groups = ec2.describe_security_groups(Filters=discovery)["SecurityGroups"]
    check("one security group carries the discovery tag",
          [g["GroupId"] for g in groups] == [seed["security_group"]], groups)

    for key, image in seed["images"].items():
        found = ec2.describe_images(ImageIds=[image["id"]])["Images"]
        check(f"image {key} is registered with its name and architecture",
              len(found) == 1 and found[0]["Name"] == image["name"]
              and found[0]["Architecture"] == image["architecture"], found)

    k8s = seed["kubernetes_version"]
    prefix = f"/aws/service/eks/optimized-ami/{k8s}/amazon-linux-2023"
    for arch, variant, key in (("x86_64", "standard", "al2023_x86_64"),
                               ("arm64", "standard", "al2023_arm64"),
                               ("x86_64", "nvidia", "al2023_x86_64_nvidia")):
        name = f"{prefix}/{arch}/{variant}/recommended/image_id"
        value = ssm.get_parameter(Name=name)["Parameter"]["Value"]
        check(f"SSM {name} names the {key} image", value == seed["images"][key]["id"], value)

    url = sqs.get_queue_url(QueueName=seed["cluster"])["QueueUrl"]
    check("the interruption queue exists", url.endswith("/" + seed["cluster"]), url)

    role = iam.get_role(RoleName=f"KarpenterNodeRole-{seed['cluster']}")["Role"]
    check("the node role exists", role["Arn"] == seed["node_role_arn"], role["Arn"])

    instances = [i for r in ec2.describe_instances(
        InstanceIds=[seed["unmanaged_instance"]])["Reservations"] for i in r["Instances"]]
    check("the unmanaged instance is running",
          len(instances) == 1 and instances[0]["State"]["Name"] == "running", instances)
    check("and carries no karpenter tags", not any(
        t["Key"].startswith("karpenter") for t in instances[0].get("Tags", [])))
    print("moto seed: all checks passed", flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
