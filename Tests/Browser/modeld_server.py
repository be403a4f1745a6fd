"""Starts the real modeld binary on 127.0.0.1:<ephemeral> for the console checks, and talks
HTTP to it with the standard library (no cookie jar, no redirects: every header is seen)."""
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

PORT_RE = re.compile(rb"listening on http://127\.0\.0\.1:([1-9][0-9]{0,4})")


class Modeld:
    def __init__(self, binary, repo, token="console-test-token-0123456789", console=None, public_base_url=None,
                 guard_interval=1, extra_config=None, catalog_releases=None):
        self.token = token
        self.root = tempfile.mkdtemp(prefix="modeld-console.")
        self.models = os.path.join(self.root, "models")
        self.data = os.path.join(self.root, "data")
        if catalog_releases:
            # A catalog of that many releases written directly (big_catalog.py), instead of the demo one.
            import big_catalog
            os.makedirs(self.models)
            big_catalog.write(os.path.join(self.models, "catalog.json"), catalog_releases)
        else:
            shutil.copytree(os.path.join(repo, "models"), self.models)
        os.makedirs(os.path.join(self.root, "config"))
        shutil.copy(os.path.join(repo, "config", "pricing.json"), os.path.join(self.root, "config", "pricing.json"))
        config = {"listen": "127.0.0.1:0", "models_dir": self.models, "data_dir": self.data, "instance_id": "console",
                  "guard_interval_seconds": guard_interval, "drain_seconds": 1}
        if token:
            config["admin_token"] = token
        if console is not None:
            config["console"] = console
        if public_base_url:
            config["public_base_url"] = public_base_url
        config.update(extra_config or {})
        self.config_path = os.path.join(self.root, "config", "modeld.json")
        with open(self.config_path, "w") as f:
            json.dump(config, f)
        self.log_path = os.path.join(self.root, "modeld.log")
        self.log = open(self.log_path, "wb")
        # cwd = the temp root; the console reads pricing.json beside the config file (SPEC §8 pricing_file).
        self.proc = subprocess.Popen([os.path.abspath(binary), "--config", self.config_path], cwd=self.root,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        self.port = None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and self.port is None:
            if self.proc.poll() is not None:
                raise RuntimeError("modeld exited: " + open(self.log_path, "rb").read().decode(errors="replace"))
            m = PORT_RE.search(open(self.log_path, "rb").read())
            if m:
                self.port = int(m.group(1))
            else:
                time.sleep(0.05)
        if self.port is None:
            self.stop()
            raise RuntimeError("modeld did not log its port within 20 s")
        self.base = "http://127.0.0.1:%d" % self.port

    def request(self, method, path, body=None, headers=None, timeout=30):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            return r.status, r.headers, r.read()
        finally:
            conn.close()

    def admin(self, method, path, body=None, headers=None):
        h = {"Authorization": "Bearer " + self.token}
        h.update(headers or {})
        return self.request(method, path, body, h)

    def sign_in(self):
        """A session by the form post: (cookie value, CSRF token of the session's pages)."""
        status, headers, _ = self.request("POST", "/console/login", "token=" + self.token,
                                          {"Content-Type": "application/x-www-form-urlencoded"})
        assert status == 303, status
        cookie = re.match(r"modeld_session=([0-9a-f]+);", headers["Set-Cookie"]).group(1)
        status, _, page = self.request("GET", "/console/", headers={"Cookie": "modeld_session=" + cookie})
        csrf = re.search(rb'<meta name="modeld-csrf" content="([0-9a-f]+)">', page).group(1).decode()
        return cookie, csrf

    def create_token(self, name, role):
        """A named token (SPEC §15.1) through the admin API: its secret."""
        status, _, body = self.admin("POST", "/admin/tokens", json.dumps({"name": name, "role": role}),
                                     {"Content-Type": "application/json"})
        assert status == 201, (status, body)
        return json.loads(body)["token"]

    def publish(self, content, sdk_min="1.0", extra=""):
        status, _, body = self.admin("POST", "/admin/models?sdk_min=%s&ext=bin%s" % (sdk_min, extra), content)
        assert status == 201, (status, body)
        return json.loads(body)

    def release(self, rid):
        status, _, body = self.admin("GET", "/admin/models/" + rid)
        assert status == 200, status
        return json.loads(body)

    def log_text(self):
        return open(self.log_path, "rb").read().decode(errors="replace")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.log.close()

    def cleanup(self):
        shutil.rmtree(self.root, ignore_errors=True)
