"""Prints what moto keeps of a launch template: the LaunchTemplateData of its latest version, as
JSON, read with boto3 (moto echoes most of what CreateLaunchTemplate was given).

Usage: python describe_launch_template.py ENDPOINT REGION ACCESS_KEY_ID SECRET_ACCESS_KEY NAME
Run with the Python of scripts/aws-test-tools (it has boto3).
"""

import json
import sys

import boto3


def main():
    endpoint, region, key, secret, name = sys.argv[1:6]
    ec2 = boto3.client("ec2", endpoint_url=endpoint, region_name=region,
                       aws_access_key_id=key, aws_secret_access_key=secret)
    versions = ec2.describe_launch_template_versions(LaunchTemplateName=name,
                                                     Versions=["$Latest"])
    print(json.dumps(versions["LaunchTemplateVersions"][0]["LaunchTemplateData"], default=str))


if __name__ == "__main__":
    main()
