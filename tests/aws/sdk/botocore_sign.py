"""Signs one HTTP request with botocore's SigV4Auth at a fixed time, for sigv4_botocore_test.cc.

Reads a JSON request from the file named by the first argument:
  {"method", "scheme", "host", "path" (decoded), "query": [[name, value], ...] (decoded),
   "headers": [[name, value], ...], "body", "region", "service",
   "time": "YYYYMMDDTHHMMSSZ", "access_key_id", "secret_access_key", "session_token"}
and prints JSON: the headers botocore set (X-Amz-Date, X-Amz-Security-Token, Authorization) and
its canonical request (to show where a difference comes from).
"""

import datetime
import json
import sys
from urllib.parse import quote

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


def main(path):
    with open(path, encoding="utf-8") as f:
        req = json.load(f)
    fixed = datetime.datetime.strptime(req["time"], "%Y%m%dT%H%M%SZ")
    # SigV4Auth reads the clock through this function; pin it to the request's time.
    botocore.auth.get_current_datetime = lambda *_, **__: fixed

    # As botocore's serializers build a URL: the path percent-encoded once ('/' and '~' kept),
    # the query as decoded parameters that the signer encodes itself.
    url = f"{req['scheme']}://{req['host']}{quote(req['path'], safe='/~')}"
    request = AWSRequest(method=req["method"], url=url, data=req["body"].encode("utf-8"),
                         params=[tuple(pair) for pair in req["query"]])
    for name, value in req["headers"]:
        request.headers[name] = value
    signer = botocore.auth.SigV4Auth(
        Credentials(req["access_key_id"], req["secret_access_key"],
                    req["session_token"] or None), req["service"], req["region"])
    # Keep the canonical request add_auth signs (computed again afterwards, it would differ).
    canonical = []
    build_canonical = signer.canonical_request
    signer.canonical_request = lambda r: canonical.append(build_canonical(r)) or canonical[-1]
    signer.add_auth(request)
    out = {name: request.headers.get(name)
           for name in ("X-Amz-Date", "X-Amz-Security-Token", "Authorization")}
    out["canonical_request"] = canonical[0]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
