"""Checks an EC2 Query request against botocore's EC2 service model.

Usage: python botocore_query_check.py OPERATION < PARAMS.json
PARAMS.json: the request's form parameters as [[name, value], ...] (Action and Version may be
among them). Every parameter must name a member of the operation's input shape the way botocore's
EC2 serializer names it (queryName, else the capitalized locationName, else the member's name;
lists flattened as Name.1, Name.2), scalars must parse as their type and lie in their enum and
range, and every required member of each structure given must be present. Prints "ok", or one
line per problem and exits 1. Run with the Python of scripts/aws-test-tools (it has botocore).
"""

import json
import sys

import botocore.session


def serialized_name(member, shape):
    if "queryName" in shape.serialization:
        return shape.serialization["queryName"]
    if "name" in shape.serialization:
        name = shape.serialization["name"]
        return name[0].upper() + name[1:]
    return member


def check_scalar(shape, value, path):
    kind = shape.type_name
    if kind in ("integer", "long"):
        try:
            number = int(value)
        except ValueError:
            return [f"{path}: {value!r} is not an {kind}"]
        low, high = shape.metadata.get("min"), shape.metadata.get("max")
        if (low is not None and number < low) or (high is not None and number > high):
            return [f"{path}: {number} is outside [{low}, {high}]"]
        return []
    if kind == "boolean":
        return [] if value in ("true", "false") else [f"{path}: {value!r} is not a boolean"]
    if kind in ("double", "float"):
        try:
            float(value)
        except ValueError:
            return [f"{path}: {value!r} is not a number"]
        return []
    if kind == "string":
        if shape.enum and value not in shape.enum:
            return [f"{path}: {value!r} is not one of {shape.enum}"]
        return []
    return []  # timestamps and blobs: any text


def check(shape, tree, path):
    """`tree`: the parameters under `path`, as {part: subtree}, or a string value at a leaf."""
    kind = shape.type_name
    if kind == "structure":
        if isinstance(tree, str):
            return [f"{path}: {shape.name} is a structure, not a value"]
        members = {serialized_name(name, member): (name, member)
                   for name, member in shape.members.items()}
        problems = []
        for part, subtree in tree.items():
            at = f"{path}.{part}" if path else part
            if part not in members:
                problems.append(f"{at}: {shape.name} has no such member")
                continue
            problems += check(members[part][1], subtree, at)
        given = {members[part][0] for part in tree if part in members}
        for required in shape.required_members:
            if required not in given:
                problems.append(f"{path or shape.name}: required member {required} is missing")
        return problems
    if kind == "list":
        if isinstance(tree, str):
            return [f"{path}: a list needs an index (Name.1)"]
        problems = []
        indexes = []
        for part, subtree in tree.items():
            if not part.isdigit() or int(part) < 1:
                problems.append(f"{path}.{part}: not a list index")
                continue
            indexes.append(int(part))
            problems += check(shape.member, subtree, f"{path}.{part}")
        if sorted(indexes) != list(range(1, len(indexes) + 1)):
            problems.append(f"{path}: indexes {sorted(indexes)} are not 1..n")
        return problems
    if not isinstance(tree, str):
        return [f"{path}: {kind} has no members ({sorted(tree)})"]
    return check_scalar(shape, tree, path)


def main():
    operation = botocore.session.get_session().get_service_model("ec2").operation_model(
        sys.argv[1])
    tree = {}
    for name, value in json.load(sys.stdin):
        if name in ("Action", "Version"):
            continue
        node = tree
        parts = name.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if isinstance(node, str):
                print(f"{name}: a value and members at once")
                return 1
        if parts[-1] in node:
            print(f"{name}: given twice")
            return 1
        node[parts[-1]] = value
    problems = check(operation.input_shape, tree, "")
    for problem in problems:
        print(problem)
    if not problems:
        print("ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
