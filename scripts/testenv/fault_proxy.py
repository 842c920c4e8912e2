"""A proxy in front of moto that injects the faults EC2 shows in production.

Started by scripts/testenv/moto-up with the Python of scripts/aws-test-tools' venv (standard
library only). Forwards every request to the moto server at --upstream, except that, as set
through its control endpoint:
- CreateFleet overrides of chosen instance types (or every type) in chosen zones (or every zone)
  are taken out of the request and reported back in the response's errorSet as
  InsufficientInstanceCapacity, the way EC2 reports an instant fleet it could only partly fill
  (or not at all);
- the next N EC2 requests are refused with RequestLimitExceeded (throttling);
- the next N requests are held for S seconds before they are forwarded (slow answers, timeouts);
- requests signed with an access key that has an IAM policy are authorized as AWS would authorize
  them (scripts/testenv/iam_authz.py): a denial is answered as the service answers it, and a
  denied launch of an instant CreateFleet is reported in its errorSet as UnauthorizedOperation;
  a DryRun request of such a key gets the verdict alone (DryRunOperation, or UnauthorizedOperation
  for a fleet with a denied launch), as EC2 answers it.
Control: GET /_faults (the faults, how many of each were injected since they were set, and
"forwarded": how many requests of each query Action, e.g. {"CreateFleet": 1}, went on to moto since
then), POST /_faults with a JSON object {"insufficient_capacity": [{"instance_type": "m5.large",
"zone": ""}], "throttle": 2, "delay": {"count": 1, "seconds": 5}} (fields left out are cleared,
the counts start again), DELETE /_faults (none). IAM: GET /_iam (the enforced keys, the checks
allowed per IAM action, the denials), POST /_iam with {"principals": {"ACCESS_KEY_ID": {"arn":
"arn:aws:iam::…", "policies": [{"name": "…", "policy": {…}}]}}} (keys left out are not enforced;
the counts start again), DELETE /_iam (nothing enforced), POST /_iam/replay with {"policies":
[…]} (what those policies decide on every authorization asked since the policy was set, as GET
/_iam reports it).
Writes DIR/fault_endpoint once it listens and serves until SIGTERM.
"""

import argparse
import json
import os
import re
import signal
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from xml.sax.saxutils import escape

import iam_authz

EC2_NAMESPACE = "http://ec2.amazonaws.com/doc/2016-11-15/"


class Faults:
    """The faults to inject, shared by the handler threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.insufficient_capacity = []  # [{"instance_type", "zone"}]
        self.throttle = 0
        self.delay_count = 0
        self.delay_seconds = 0.0
        self.injected = {"insufficient_capacity": 0, "throttled": 0, "delayed": 0}
        self.forwarded = {}  # query Action -> requests passed on to moto

    def set(self, spec):
        with self.lock:
            self.insufficient_capacity = list(spec.get("insufficient_capacity", []))
            self.throttle = int(spec.get("throttle", 0))
            delay = spec.get("delay", {})
            self.delay_count = int(delay.get("count", 0))
            self.delay_seconds = float(delay.get("seconds", 0))
            self.injected = {"insufficient_capacity": 0, "throttled": 0, "delayed": 0}
            self.forwarded = {}

    def describe(self):
        with self.lock:
            return {"insufficient_capacity": self.insufficient_capacity,
                    "throttle": self.throttle,
                    "delay": {"count": self.delay_count, "seconds": self.delay_seconds},
                    "injected": dict(self.injected),
                    "forwarded": dict(self.forwarded)}

    def count_forwarded(self, action):
        with self.lock:
            self.forwarded[action] = self.forwarded.get(action, 0) + 1

    def take_throttle(self):
        with self.lock:
            if self.throttle <= 0:
                return False
            self.throttle -= 1
            self.injected["throttled"] += 1
            return True

    def take_delay(self):
        with self.lock:
            if self.delay_count <= 0:
                return 0.0
            self.delay_count -= 1
            self.injected["delayed"] += 1
            return self.delay_seconds

    def lacks_capacity(self, instance_type, zone):
        with self.lock:
            for rule in self.insufficient_capacity:
                if (rule.get("instance_type", "") in ("", instance_type)
                        and rule.get("zone", "") in ("", zone)):
                    self.injected["insufficient_capacity"] += 1
                    return True
            return False


OVERRIDE = re.compile(r"^LaunchTemplateConfigs\.(\d+)\.Overrides\.(\d+)\.(.+)$")
CONFIG = re.compile(r"^LaunchTemplateConfigs\.(\d+)\.(.+)$")


def split_fleet(params, refuse):
    """Takes the overrides `refuse` refuses (it returns an error code and message, or None) out of a
    CreateFleet request; returns the new parameters and the errorSet items for what was taken
    out."""
    configs = {}  # config index -> {"fields": {...}, "overrides": {index: {...}}}
    rest = []
    for key, value in params:
        match = OVERRIDE.match(key)
        if match:
            config = configs.setdefault(int(match[1]), {"fields": {}, "overrides": {}})
            config["overrides"].setdefault(int(match[2]), {})[match[3]] = value
            continue
        match = CONFIG.match(key)
        if match:
            configs.setdefault(int(match[1]), {"fields": {}, "overrides": {}})["fields"][
                match[2]] = value
            continue
        rest.append((key, value))
    lifecycle = dict(params).get("TargetCapacitySpecification.DefaultTargetCapacityType",
                                 "on-demand")
    errors = []
    kept = []
    for _, config in sorted(configs.items()):
        overrides = []
        for _, override in sorted(config["overrides"].items()):
            refused = refuse(config["fields"], override)
            if refused:
                errors.append((config["fields"], override, lifecycle, refused))
            else:
                overrides.append(override)
        if overrides:
            kept.append((config["fields"], overrides))
    out = list(rest)
    for i, (fields, overrides) in enumerate(kept, start=1):
        out += [(f"LaunchTemplateConfigs.{i}.{k}", v) for k, v in fields.items()]
        for j, override in enumerate(overrides, start=1):
            out += [(f"LaunchTemplateConfigs.{i}.Overrides.{j}.{k}", v)
                    for k, v in override.items()]
    return out, bool(kept), errors


def error_items(errors):
    items = []
    for fields, override, lifecycle, (code, message) in errors:
        name = fields.get("LaunchTemplateSpecification.LaunchTemplateName", "")
        items.append(
            "<item><launchTemplateAndOverrides><launchTemplateSpecification>"
            f"<launchTemplateName>{escape(name)}</launchTemplateName><version>1</version>"
            "</launchTemplateSpecification><overrides>"
            f"<instanceType>{escape(override.get('InstanceType', ''))}</instanceType>"
            f"<subnetId>{escape(override.get('SubnetId', ''))}</subnetId>"
            f"<availabilityZone>{escape(override.get('AvailabilityZone', ''))}</availabilityZone>"
            f"</overrides></launchTemplateAndOverrides><lifecycle>{escape(lifecycle)}</lifecycle>"
            f"<errorCode>{escape(code)}</errorCode><errorMessage>{escape(message)}</errorMessage>"
            "</item>")
    return "".join(items)


INSUFFICIENT_CAPACITY = ("InsufficientInstanceCapacity", "We currently do not have sufficient "
                         "capacity in the Availability Zone you requested.")


def make_handler(upstream, faults, authorizer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):  # pylint: disable=redefined-builtin
            pass

        def reply(self, status, body, content_type="text/xml", headers=None):
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def control(self, body):
            if self.command == "POST":
                try:
                    faults.set(json.loads(body or b"{}"))
                except (ValueError, TypeError, AttributeError) as error:
                    self.reply(400, json.dumps({"error": str(error)}), "application/json")
                    return
            elif self.command == "DELETE":
                faults.set({})
            self.reply(200, json.dumps(faults.describe()), "application/json")

        def control_iam(self, body):
            if self.command == "POST" and self.path.startswith("/_iam/replay"):
                try:
                    replayed = authorizer.replay(json.loads(body or b"{}"))
                except (ValueError, TypeError, AttributeError) as error:
                    self.reply(400, json.dumps({"error": str(error)}), "application/json")
                    return
                self.reply(200, json.dumps(replayed), "application/json")
                return
            if self.command == "POST":
                try:
                    authorizer.set(json.loads(body or b"{}"))
                except (ValueError, TypeError, AttributeError) as error:
                    self.reply(400, json.dumps({"error": str(error)}), "application/json")
                    return
            elif self.command == "DELETE":
                authorizer.set({})
            self.reply(200, json.dumps(authorizer.describe()), "application/json")

        def forward(self, body):
            request = urllib.request.Request(upstream + self.path, data=body or None,
                                             method=self.command)
            for key, value in self.headers.items():
                if key.lower() not in ("host", "content-length", "connection"):
                    request.add_header(key, value)
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    return response.status, response.read(), response.headers.get_content_type()
            except urllib.error.HTTPError as error:
                return error.code, error.read(), error.headers.get_content_type()

        def handle_any(self):
            length = int(self.headers.get("Content-Length", 0) or 0)
            body = self.rfile.read(length) if length else b""
            if self.path.startswith("/_faults"):
                self.control(body)
                return
            if self.path.startswith("/_iam"):
                self.control_iam(body)
                return
            delay = faults.take_delay()
            if delay:
                time.sleep(delay)
            form = self.headers.get_content_type() == "application/x-www-form-urlencoded"
            params = urllib.parse.parse_qsl(body.decode(), keep_blank_values=True) if form else []
            action = dict(params).get("Action", "")
            if action and faults.take_throttle():
                self.reply(503, "<Response><Errors><Error><Code>RequestLimitExceeded</Code>"
                           "<Message>Request limit exceeded.</Message></Error></Errors>"
                           f"<RequestID>{uuid.uuid4()}</RequestID></Response>")
                return
            request = iam_authz.Request(self.command, self.path, self.headers, body, params)
            denial = authorizer.authorize(request)
            if denial:
                self.reply(*denial)
                return
            if dict(params).get("DryRun", "").lower() == "true" and authorizer.enforced(request):
                # EC2 answers a DryRun with its authorization verdict alone: every launch of a
                # fleet must be allowed too.
                if action == "CreateFleet":
                    _, _, refused = split_fleet(
                        params, lambda fields, override: authorizer.launch_denial(
                            request, fields, override))
                    if refused:
                        code, message = refused[0][3]
                        self.reply(403, "<Response><Errors><Error>"
                                   f"<Code>{escape(code)}</Code><Message>{escape(message)}"
                                   f"</Message></Error></Errors><RequestID>{uuid.uuid4()}"
                                   "</RequestID></Response>")
                        return
                self.reply(412, "<Response><Errors><Error><Code>DryRunOperation</Code>"
                           "<Message>Request would have succeeded, but DryRun flag is set."
                           f"</Message></Error></Errors><RequestID>{uuid.uuid4()}</RequestID>"
                           "</Response>")
                return
            errors = []
            if action == "CreateFleet":
                def refuse(fields, override):
                    denied = authorizer.launch_denial(request, fields, override)
                    if denied:
                        return denied
                    if faults.lacks_capacity(override.get("InstanceType", ""),
                                             override.get("AvailabilityZone", "")):
                        return INSUFFICIENT_CAPACITY
                    return None
                params, any_left, errors = split_fleet(params, refuse)
                if not any_left:
                    self.reply(200, f'<CreateFleetResponse xmlns="{EC2_NAMESPACE}">'
                                    f"<requestId>{uuid.uuid4()}</requestId>"
                                    f"<fleetId>fleet-{uuid.uuid4()}</fleetId>"
                                    f"<errorSet>{error_items(errors)}</errorSet>"
                                    "<fleetInstanceSet/></CreateFleetResponse>")
                    return
                body = urllib.parse.urlencode(params).encode()
            if action:
                faults.count_forwarded(action)
            status, answer, content_type = self.forward(body)
            text = answer.decode("utf-8", "replace")
            if errors and status == 200:
                items = error_items(errors)
                if "<errorSet>" in text:
                    text = text.replace("<errorSet>", "<errorSet>" + items, 1)
                elif "<errorSet/>" in text:
                    text = text.replace("<errorSet/>", f"<errorSet>{items}</errorSet>", 1)
                else:
                    text = text.replace("</CreateFleetResponse>",
                                        f"<errorSet>{items}</errorSet></CreateFleetResponse>", 1)
            self.reply(status, text, content_type)

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = handle_any

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", required=True, help="where fault_endpoint goes")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream", required=True, help="moto's URL")
    parser.add_argument("--iam-eval", default="",
                        help="the installed scripts/testenv/iam-eval (enforcement needs it)")
    parser.add_argument("--account", default="123456789012", help="moto's account")
    args = parser.parse_args()
    upstream = args.upstream.rstrip("/")
    authorizer = iam_authz.Authorizer(upstream, args.iam_eval, args.account)
    server = ThreadingHTTPServer(("127.0.0.1", args.port),
                                 make_handler(upstream, Faults(), authorizer))
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    endpoint = f"http://127.0.0.1:{args.port}"
    with open(os.path.join(args.dir, "fault_endpoint.tmp"), "w", encoding="utf-8") as f:
        f.write(endpoint + "\n")
    os.replace(os.path.join(args.dir, "fault_endpoint.tmp"),
               os.path.join(args.dir, "fault_endpoint"))
    server.serve_forever()
    authorizer.close()


if __name__ == "__main__":
    main()
