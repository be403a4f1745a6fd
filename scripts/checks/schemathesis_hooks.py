"""schemathesis hooks for scripts/checks/schemathesis.sh (loaded through SCHEMATHESIS_HOOKS).

Two rules of the admin API relate two values, which OpenAPI cannot state (docs/openapi.yaml
writes them in the descriptions): `sdk_max` must be greater than `sdk_min` (SPEC §3: an empty
range is refused, 400 `invalid_parameter`), and `X-Model-SHA256` must be the digest of the body
(SPEC §7.1: 422 `sha256_mismatch`). A third is a grammar inside one value: the `requires` of
`POST /admin/models/{id}/variants` (SPEC §3.1: `key=value` pairs, known keys once each, typed
values) is a string to OpenAPI, and so is the `guard` query parameter of a publish (SPEC §11.1:
URL-encoded JSON of the GuardInput schema). Within a guard, `stages` must be strictly
increasing; a PATCH `guard` cannot be combined with `rollout_percent`/`state` and is refused on a
release that already reached 100 % (docs/decisions/guardrails.md). A publish's `content_type` must
be one `type/subtype` of RFC 9110 tokens and not a type browsers render or run (SPEC §15.1,
docs/decisions/origin-isolation.md). A request that is schema-valid but breaks one of them is
rightly rejected, so positive_data_acceptance ("schema-valid request rejected", ST202) is
dropped for exactly those answers — and only after re-checking, on the request as it was sent,
that it really broke the rule the server named. Every other rejection of a schema-valid request
still fails the run.

The other way round, a FiniteNumber (docs/openapi.yaml) beyond ±1.7976931348623157e308 that still
rounds to the largest double is read as that double and rightly accepted: schema-violating
request accepted (ST201) is dropped when the body, with such numbers read as doubles, is valid.
"""
import hashlib
import json
import math
import re
from urllib.parse import parse_qs, urlsplit

import jsonschema
import schemathesis
import yaml

PUBLISH = "POST /admin/models"
PATCH = "PATCH /admin/models/{id}"
ADD_VARIANT = "POST /admin/models/{id}/variants"
_NAME = re.compile(r"^[a-z0-9_-]{1,32}$")
_VERSION = re.compile(r"^[0-9]{1,6}(\.[0-9]{1,6}){0,2}$")
_EMPTY_RANGE = re.compile(r"^sdk_max: must be greater than sdk_min \((.*)\)$")
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_MEDIA_TYPE = re.compile(rf"^[ \t]*({_TOKEN})/({_TOKEN})[ \t]*(;.*)?$")
# The families SPEC §15.1 and docs/decisions/origin-isolation.md refuse, written again here as
# an independent oracle: any text/* but text/plain, XML, script, multipart, message, PDF, Flash.
_RENDERED = re.compile(r"^(text/(?!plain$).*|.*/xml|.*/.*\+xml|multipart/.*|message/.*|application/pdf"
                       r"|application/(x-)?(java|ecma)script|application/x-shockwave-flash|.*/.*javascript.*)$")


def _version(text):
    """`MAJOR[.MINOR[.PATCH]]` as a comparable tuple (missing parts are 0), or None."""
    if not isinstance(text, str) or not _VERSION.match(text):
        return None
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def _json(data):
    try:
        value = json.loads(data or b"")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _body(request):
    body = request.body or b""
    return body.encode() if isinstance(body, str) else body


def _empty_range(label, request, message):
    """The server said "sdk_max must be greater than sdk_min (X)"; true when the request agrees."""
    match = _EMPTY_RANGE.match(message or "")
    if not match:
        return False
    quoted_min = match.group(1)
    if label == PUBLISH:
        query = parse_qs(urlsplit(request.url).query, keep_blank_values=True)
        sent_min, sent_max = query.get("sdk_min", [None])[0], query.get("sdk_max", [None])[0]
        if sent_min != quoted_min:
            return False
    else:  # PATCH: the server quotes the release's own sdk_min
        sent_max = (_json(_body(request)) or {}).get("sdk_max")
    low, high = _version(quoted_min), _version(sent_max)
    return low is not None and high is not None and not low < high


def _digest_mismatch(request):
    """The X-Model-SHA256 sent is not the SHA-256 of the body sent."""
    claimed = request.headers.get("X-Model-SHA256")
    return claimed is not None and claimed != hashlib.sha256(_body(request)).hexdigest()


def _requires_valid(text):
    """SPEC §3.1 `requires`, independently of the server: a JSON object or `k=v,…` (lists `|`)."""
    if text.lstrip().startswith("{"):
        conditions = _json(text.encode())
        if conditions is None or not conditions:
            return False
        pairs = list(conditions.items())
    else:
        pairs = []
        for item in text.split(","):
            if "=" not in item:
                return False
            key, value = item.split("=", 1)
            value = value.strip(" ")
            pairs.append((key.strip(" "), [v.strip(" ") for v in value.split("|")]
                          if key.strip(" ") in ("platform", "device_prefix") else value))
    if not pairs or len({k for k, _ in pairs}) != len(pairs):
        return False
    for key, value in pairs:
        if key == "platform":
            ok = isinstance(value, list) and value and all(isinstance(v, str) and _NAME.match(v) for v in value)
        elif key == "device_prefix":
            ok = isinstance(value, list) and value and all(
                isinstance(v, str) and 1 <= len(v) <= 64 and all(0x20 <= ord(c) <= 0x7E for c in v) for v in value)
        elif key == "min_os":
            ok = _version(value) is not None
        elif key == "min_ram_mb":
            ok = (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, str) and value.isascii()
                                                                            and value.isdigit() and str(int(value)) == value)
            ok = ok and 0 <= int(value) <= 10_000_000
        elif key == "system_model":
            ok = isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9._-]{1,32}", value) is not None
        else:
            ok = False
        if not ok:
            return False
    return True


with open("docs/openapi.yaml", encoding="utf-8") as _f:
    _SPEC = yaml.safe_load(_f)


def _schema(schema):
    """A schema of docs/openapi.yaml, resolved against its own components."""
    return dict(schema, components=_SPEC["components"])


_GUARD_INPUT = _schema(_SPEC["components"]["schemas"]["GuardInput"])


# 1.7976931348623157e308 as written in docs/openapi.yaml, exactly (schemathesis reads the bound as
# that decimal, not as the double it names, which is a little larger).
_SHORT_FORM_MAX = 17976931348623157 * 10**292


def _as_doubles(value):
    """The JSON value as the server reads it: every number as the nearest IEEE 754 double."""
    if isinstance(value, dict):
        return {k: _as_doubles(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_doubles(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _SHORT_FORM_MAX:
        try:
            rounded = float(value)
        except OverflowError:
            return value
        return rounded if math.isfinite(rounded) else value
    return value


def _valid_as_doubles(case, request):
    """ST201 on a body whose only violation is a number beyond the largest double's short form
    that rounds to a finite double: the body as the server reads it is valid."""
    body = _json(_body(request))
    if body is None:
        return False
    read = _as_doubles(body)
    if read == body:
        return False
    operation = _SPEC["paths"].get(case.operation.path, {}).get(case.operation.method.lower(), {})
    body_spec = operation.get("requestBody", {})
    if "$ref" in body_spec:  # #/components/requestBodies/NAME
        body_spec = _SPEC["components"]["requestBodies"][body_spec["$ref"].rsplit("/", 1)[1]]
    schema = body_spec.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return False
    return jsonschema.Draft202012Validator(_schema(schema)).is_valid(read)


def _guard_valid(guard):
    """SPEC §11.1 independently of the server: GuardInput, and stages strictly increasing."""
    try:
        jsonschema.Draft202012Validator(_GUARD_INPUT).validate(guard)
    except jsonschema.ValidationError:
        return False
    stages = guard.get("stages", [1])
    return all(a < b for a, b in zip(stages, stages[1:]))


def _bad_guard(label, request, message):
    """The server refused `guard`; true when the request really breaks a guard rule."""
    if not (message or "").startswith("guard"):
        return False
    if label == PUBLISH:
        sent = parse_qs(urlsplit(request.url).query, keep_blank_values=True).get("guard", [None])[0]
        try:
            guard = json.loads(sent) if sent is not None else None
        except ValueError:
            return True
        return not isinstance(guard, dict) or not _guard_valid(guard)
    body = _json(_body(request)) or {}
    guard = body.get("guard")
    if not isinstance(guard, dict) or not _guard_valid(guard):
        return True
    if "rollout_percent" in body or "state" in body:
        return True
    # The one state-dependent rule: the release's rollout is not in the request.
    return "already reached 100 %" in message


def _bad_requires(request, message):
    """The server refused `requires`; true when the request's `requires` really breaks SPEC §3.1."""
    if not (message or "").startswith("requires"):
        return False
    sent = parse_qs(urlsplit(request.url).query, keep_blank_values=True).get("requires", [None])[0]
    return sent is not None and not _requires_valid(sent)


def _bad_content_type(request, message):
    """The server refused `content_type`; true when the value sent really is refused."""
    if not (message or "").startswith("content_type"):
        return False
    sent = parse_qs(urlsplit(request.url).query, keep_blank_values=True).get("content_type", [None])[0]
    if sent is None:
        return False
    media = _MEDIA_TYPE.match(sent)
    if media is None or "," in sent:
        return True
    return _RENDERED.match(f"{media.group(1)}/{media.group(2)}".lower()) is not None


def _bad_adapter_field(label, request, message):
    """SPEC §3.2 rules OpenAPI does not state: `base_channel` and `base_sha256` go together, a
    display name has no control characters and is not empty, a licence URL is http(s) without
    spaces; PATCH `base` only while the release served nobody (state the request cannot show)."""
    message = message or ""
    if label == PATCH:
        return message.startswith("base") and "may have served" in message
    query = parse_qs(urlsplit(request.url).query, keep_blank_values=True)
    sent = {k: v[0] for k, v in query.items()}
    if message.startswith(("base_channel", "base_sha256")):
        return ("base_channel" in sent) != ("base_sha256" in sent)
    if message.startswith("display_name"):
        name = sent.get("display_name")
        return name is not None and (name == "" or any(ord(c) < 0x20 or ord(c) == 0x7F for c in name))
    if message.startswith("license_url"):
        url = sent.get("license_url")
        return url is not None and (re.fullmatch(r"https?://[\x21-\x7e]+", url, re.I) is None or len(url) > 2048)
    return False


@schemathesis.hook
def filter_failure(context, failure, case, response):
    label = case.operation.label
    if failure.code == "ST201" and _valid_as_doubles(case, response.request):
        return False
    # An over-long query (e.g. license_url past maxLength, percent-encoded 4-byte characters)
    # is refused before routing: SPEC §10's 414 for a request line over 8 KiB is a rejection
    # schemathesis does not count as one.
    if failure.code == "ST201" and response.status_code == 414 and (_json(response.content) or {}).get("error") == "uri_too_long":
        return False
    if failure.code != "ST202" or label not in (PUBLISH, PATCH, ADD_VARIANT):
        return True
    error = _json(response.content) or {}
    if label == ADD_VARIANT and response.status_code == 400 and error.get("error") == "invalid_parameter" \
            and _bad_requires(response.request, error.get("message")):
        return False
    if label in (PUBLISH, PATCH) and response.status_code == 400 and error.get("error") == "invalid_parameter" \
            and _bad_guard(label, response.request, error.get("message")):
        return False
    if response.status_code == 400 and error.get("error") == "invalid_parameter" \
            and _empty_range(label, response.request, error.get("message")):
        return False
    if label == PUBLISH and response.status_code == 400 and error.get("error") == "invalid_parameter" \
            and _bad_content_type(response.request, error.get("message")):
        return False
    if label in (PUBLISH, PATCH) and response.status_code == 400 and error.get("error") == "invalid_parameter" \
            and _bad_adapter_field(label, response.request, error.get("message")):
        return False
    if response.status_code == 422 and label == PUBLISH and error.get("error") == "sha256_mismatch" \
            and _digest_mismatch(response.request):
        return False
    return True
