"""Console measurements (Benchmarks/console.sh): page weight and time to first render of each
view in headless Chromium, and /latest throughput with and without a console open.

    python3 Benchmarks/console_measure.py MODELD MODELCTL [RELEASES] [WRK_SECONDS] [ROUNDS]
"""
import json
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "Browser"))
from console_paint import weigh  # noqa: E402
from modeld_server import Modeld  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
MODELD, MODELCTL = sys.argv[1], sys.argv[2]
RELEASES = int(sys.argv[3]) if len(sys.argv) > 3 else 500
WRK_SECONDS = int(sys.argv[4]) if len(sys.argv) > 4 else 8
ROUNDS = int(sys.argv[5]) if len(sys.argv) > 5 else 3
GUARD = json.dumps({"metric": {"name": "prediction", "outcome": "success"}, "stages": [10, 50], "min_clients_per_arm": 5})


def seed(server):
    """RELEASES small releases over three channels through the admin API (one guarded)."""
    import urllib.parse
    ids = []
    for i in range(RELEASES - 1):
        ids.append(server.publish(b"%d" % i, extra="&channel=%s&label=r%d" % (("stable", "beta", "canary")[i % 3], i))["id"])
    guarded = server.publish(b"guarded", extra="&channel=guarded&guard=" + urllib.parse.quote(GUARD))["id"]
    return ids[0], guarded


def cpu_seconds(pid):
    """User + system CPU time of a process so far (/proc/PID/stat, clock ticks)."""
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(server, connections=16):
    out = subprocess.run(["wrk", "-t1", "-c%d" % connections, "-d%ds" % WRK_SECONDS, server.base + "/latest?sdk=1.0"],
                         capture_output=True, text=True, timeout=WRK_SECONDS + 30).stdout
    return float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))


def main():
    server = Modeld(MODELD, REPO, console={"enabled": True, "session_hours": 12})
    try:
        t0 = time.monotonic()
        first, guarded = seed(server)
        print("seeded %d releases in %.1f s" % (RELEASES, time.monotonic() - t0))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), args=["--no-sandbox"])
            print("view                      requests   bytes  first-contentful-paint  load (ms)")
            for name, url in (("releases (%d)" % RELEASES, "/console/"), ("release (guarded)", "/console/releases/" + guarded),
                              ("release", "/console/releases/" + first), ("events", "/console/events"),
                              ("cost", "/console/cost?downloads=5000000&size=1MB")):
                best = None
                for _ in range(3):
                    n, size, paint, _, wall = weigh(browser, server, url)
                    best = (n, size, paint, wall) if best is None or (paint or 1e9) < (best[2] or 1e9) else best
                print("%-24s %9d %8d %14.0f ms %12.0f" % (name, best[0], best[1], best[2] or -1, best[3]))

            # /latest with and without a console open, alternating per round in the same run.
            # modeld's own CPU per /latest answered, with and without: the browser shares the two
            # cores with wrk and modeld, so req/s alone cannot tell the server's cost from Chromium's.
            without, with_console, cost_without, cost_with = [], [], [], []
            pid = server.proc.pid
            for _ in range(ROUNDS):
                cpu = cpu_seconds(pid)
                without.append(wrk(server))
                cost_without.append((cpu_seconds(pid) - cpu) / (without[-1] * WRK_SECONDS))
                cpu = cpu_seconds(pid)
                # Playwright's sync API stays on this thread: wrk runs in another while this one
                # keeps a console open (the releases view reloaded every second, and the guarded
                # release's page refreshing its chart every 5 s).
                result = {}
                t = threading.Thread(target=lambda: result.setdefault("rps", wrk(server)))
                t.start()
                deadline = time.monotonic() + WRK_SECONDS
                context = browser.new_context()
                page = context.new_page()
                page.goto(server.base + "/console/")
                page.get_by_label("Token").fill(server.token)
                page.get_by_role("button", name="Sign in").click()
                chart = context.new_page()
                chart.goto(server.base + "/console/releases/" + guarded)
                reloads = 0
                while time.monotonic() < deadline:
                    page.reload()
                    reloads += 1
                    page.wait_for_timeout(1000)
                t.join(timeout=WRK_SECONDS + 60)
                context.close()
                with_console.append(result["rps"])
                cost_with.append((cpu_seconds(pid) - cpu) / (with_console[-1] * WRK_SECONDS))
                print("round: without %.0f req/s, with console %.0f req/s (%d releases-view reloads); "
                      "modeld CPU per /latest answer (console's own requests included) %.1f / %.1f us"
                      % (without[-1], with_console[-1], reloads, cost_without[-1] * 1e6, cost_with[-1] * 1e6))
            median = lambda xs: sorted(xs)[len(xs) // 2]
            a, b = median(without), median(with_console)
            print("/latest median: without console %.0f req/s, with console open %.0f req/s: %.3fx" % (a, b, b / a))
            print("modeld CPU per /latest answer, median: %.1f us without, %.1f us with the console open: "
                  "the server can answer %.3fx as many" % (median(cost_without) * 1e6, median(cost_with) * 1e6,
                                                           median(cost_without) / median(cost_with)))
            browser.close()
    finally:
        server.stop()
        server.cleanup()


if __name__ == "__main__":
    main()
