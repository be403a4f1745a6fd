"""The console at fleet scale (issue 36, SPEC §17.1; Benchmarks/console-scale.sh): the releases
view's first paint and load in headless Chromium with a 10,000-release catalog (500 channels of
20, a tenth with 2 variants; Tests/Browser/big_catalog.py) beside a one-release catalog, the
two servers measured alternately in the same rounds. Also the server's own time for each page
and for the whole /admin/live document, to show where a page's time goes.

    python3 Benchmarks/console_scale.py MODELD [RELEASES] [ROUNDS]
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "Browser"))
from console_paint import weigh  # noqa: E402
from modeld_server import Modeld  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
MODELD = sys.argv[1]
RELEASES = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 5
VIEWS = (("releases (default)", "/console/"), ("channel filter", "/console/?channel=face-001"),
         ("label + state filter", "/console/?label=v1&state=active"), ("page 50", "/console/?page=50"))


def median(xs):
    xs = sorted(x for x in xs if x is not None)
    return xs[len(xs) // 2] if xs else float("nan")


def server_ms(server, path, cookie=None):
    """Wall time of one GET on loopback, body read: the server's work plus a socket round trip."""
    headers = {"Cookie": "modeld_session=" + cookie} if cookie else {"Authorization": "Bearer " + server.token}
    start = time.monotonic()
    status, _, body = server.request("GET", path, headers=headers)
    assert status == 200, (path, status)
    return (time.monotonic() - start) * 1000, len(body)


def main():
    servers = {}
    try:
        for n in (1, RELEASES):
            t0 = time.monotonic()
            servers[n] = Modeld(MODELD, REPO, console={"enabled": True, "session_hours": 12}, catalog_releases=n)
            print("%6d releases: server up in %.1f s" % (n, time.monotonic() - t0), flush=True)
        cookies = {n: s.sign_in()[0] for n, s in servers.items()}
        paint = {(v, n): [] for v, _ in VIEWS for n in servers}
        load, size, serve = dict((k, []) for k in paint), {}, dict((k, []) for k in paint)
        live = {n: [] for n in servers}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), args=["--no-sandbox"])
            weigh(browser, servers[1], "/console/")   # Chromium's first start is not a view's time
            for _ in range(ROUNDS):
                for view, url in VIEWS:
                    for n, server in servers.items():   # alternating: both see the same machine load
                        _, size[(view, n)], fcp, ld, _ = weigh(browser, server, url)
                        paint[(view, n)].append(fcp)
                        load[(view, n)].append(ld)
                        serve[(view, n)].append(server_ms(server, url, cookies[n])[0])
                for n, server in servers.items():
                    live[n].append(server_ms(server, "/admin/live")[0])
            browser.close()
        a, b = 1, RELEASES
        print("\nmedian [min] of %d rounds, ms; bytes = the view's HTML + console.css + console.js + favicon" % ROUNDS)
        print("%-22s %27s %27s %27s %21s" % ("view", "first paint", "load event", "server (HTML)", "bytes"))
        print("%-22s %13s %13s %13s %13s %13s %13s %10s %10s" % ("", a, b, a, b, a, b, a, b))

        def cell(xs, digits=0):
            return "%6.*f [%4.*f]" % (digits, median(xs), digits, min(x for x in xs if x is not None))
        for view, _ in VIEWS:
            print("%-22s %13s %13s %13s %13s %13s %13s %10d %10d" % (
                view, cell(paint[(view, a)]), cell(paint[(view, b)]), cell(load[(view, a)]), cell(load[(view, b)]),
                cell(serve[(view, a)], 1), cell(serve[(view, b)], 1), size[(view, a)], size[(view, b)]))
        print("%-22s %13s %13s %13s %13s %13s %13s" % ("GET /admin/live (all)", "", "", "", "", cell(live[a], 1), cell(live[b], 1)))
    finally:
        for s in servers.values():
            s.stop()
            s.cleanup()


if __name__ == "__main__":
    main()
