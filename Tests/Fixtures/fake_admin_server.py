#!/usr/bin/env python3
"""A stand-in for modeld's admin API (SPEC §7.1) for modelctl's client tests.

Prints "PORT <n>" on stdout once listening. Reads chunked bodies and their trailers itself,
checks the bearer token, keeps releases in memory, and adds a "received" object to each
published release describing the request as it arrived (framing, trailer, headers, query),
so a test can check the wire without a packet capture.
"""
import argparse, datetime, hashlib, json, sys, threading, uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs

releases, lock = {}, threading.Lock()


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def version(text):
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, document, extra=()):
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def error(self, status, code, message):
        self.reply(status, {"error": code, "message": message}, [("Cache-Control", "no-store")])

    def authorized(self):
        return self.headers.get("Authorization") == "Bearer " + self.server.token

    def handle_expect_100(self):
        # Like modeld: a bad token is answered before the body is read (SPEC §7.1).
        if self.path.startswith("/admin/") and not self.authorized():
            self.close_connection = True
            self.error(401, "unauthorized", "missing or wrong admin token")
            return False
        return super().handle_expect_100()

    def read_body(self):
        """Returns (body, chunked, trailers)."""
        if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
            return self.rfile.read(int(self.headers.get("Content-Length", "0"))), False, {}
        body, trailers = bytearray(), {}
        while True:
            size = int(self.rfile.readline().split(b";")[0], 16)
            if size == 0:
                break
            body += self.rfile.read(size)
            self.rfile.read(2)
        while (line := self.rfile.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode().partition(":")
            trailers[name.strip().lower()] = value.strip()
        return bytes(body), True, trailers

    def route(self):
        url = urlsplit(self.path)
        return url.path, {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}

    def do_GET(self):
        path, query = self.route()
        if path == "/healthz":
            ok = self.server.health_status == 200
            return self.reply(self.server.health_status, {"status": "ok" if ok else "draining"})
        if path == "/latest":
            return self.latest(query)
        if not self.admin_allowed():
            return
        if path == "/admin/models":
            with lock:
                return self.reply(200, {"releases": sorted(releases.values(), key=lambda r: r["seq"])})
        self.with_release(path, lambda r: self.reply(200, r))

    def do_POST(self):
        path, query = self.route()
        if not self.admin_allowed():
            return
        if path != "/admin/models":
            return self.error(404, "not_found", path)
        body, chunked, trailers = self.read_body()
        digest = hashlib.sha256(body).hexdigest()
        if "x-model-sha256" in trailers and trailers["x-model-sha256"] != digest:
            return self.error(422, "sha256_mismatch", "body sha256 is " + digest)
        rid = query.get("id") or str(uuid.uuid4())
        with lock:
            if rid in releases:
                return self.error(409, "id_in_use", rid + " is already in the catalog")
            release = {
                "id": rid, "seq": len(releases) + 1, "file": rid + "." + query["ext"], "ext": query["ext"],
                "sha256": digest, "size": len(body), "sdk_min": query["sdk_min"],
                "channel": query.get("channel", "stable"), "rollout_percent": int(query.get("rollout", "100")),
                "state": "active", "label": query.get("label", ""), "published_at": now(),
                "content_type": query.get("content_type", "application/octet-stream"),
                "url": "http://cdn.example/models/" + rid + "." + query["ext"],
                "received": {
                    "chunked": chunked, "trailers": trailers, "query": query,
                    "authorization": self.headers.get("Authorization"),
                    "expect": self.headers.get("Expect"),
                    "content_type": self.headers.get("Content-Type"),
                },
            }
            if "sdk_max" in query:
                release["sdk_max"] = query["sdk_max"]
            releases[rid] = release
        self.reply(201, release, [("Location", "/admin/models/" + rid)])

    def do_PATCH(self):
        path, _ = self.route()
        if not self.admin_allowed():
            return
        change = json.loads(self.read_body()[0])

        def apply(release):
            if release["state"] == "retired":
                return self.error(409, "retired", "a retired release cannot change")
            release.update({k: change[k] for k in ("rollout_percent", "state") if k in change})
            self.reply(200, release)
        self.with_release(path, apply)

    def do_DELETE(self):
        path, _ = self.route()
        if not self.admin_allowed():
            return

        def retire(release):
            release.update(state="retired", retired_at=now())
            self.reply(200, release)
        self.with_release(path, retire)

    def admin_allowed(self):
        if self.authorized():
            return True
        self.error(401, "unauthorized", "missing or wrong admin token")
        return False

    def with_release(self, path, action):
        rid = path.rsplit("/", 1)[-1]
        with lock:
            if path.startswith("/admin/models/") and rid in releases:
                return action(releases[rid])
        self.error(404, "not_found", "no release " + rid)

    def latest(self, query):
        try:
            sdk = version(query["sdk"])
        except (KeyError, ValueError):
            return self.error(400, "invalid_sdk", "sdk must be MAJOR[.MINOR[.PATCH]]")
        with lock:
            eligible = [r for r in releases.values()
                        if r["state"] == "active" and r["channel"] == query.get("channel", "stable")
                        and version(r["sdk_min"]) <= sdk < version(r.get("sdk_max", "999999"))]
        if not eligible:
            return self.error(404, "no_model", "no release for sdk " + query["sdk"])
        best = max(eligible, key=lambda r: r["seq"])
        keys = ("url", "id", "sha256", "size", "sdk_min", "sdk_max", "channel", "label", "published_at")
        self.reply(200, {k: best[k] for k in keys if k in best})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--token", required=True)
    parser.add_argument("--health-status", type=int, default=200)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.token, server.health_status = args.token, args.health_status
    print("PORT", server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
