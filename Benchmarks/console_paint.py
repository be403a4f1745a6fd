"""Time to first paint of one console view in headless Chromium, shared by the console
benchmarks (console_measure.py, console_scale.py)."""
import time

from playwright.sync_api import Error


def weigh(browser, server, url):
    """Signs in on a fresh context, then loads `url`: (requests, bytes, first-contentful-paint
    ms, load-event ms, wall ms of the navigation). Paint and load are the browser's own
    entries, counted from the navigation's start."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(server.base + "/console/")
    page.get_by_label("Token").fill(server.token)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("h1")
    sizes = []

    def finished(request):
        # A live refresh of the page being left finishes during the navigation; its body is gone.
        try:
            sizes.append(len(request.response().body() or b""))
        except Error:
            pass
    page.on("requestfinished", finished)
    start = time.monotonic()
    page.goto(server.base + url, wait_until="load")
    wall = (time.monotonic() - start) * 1000
    # A small page can paint after its load event: wait for the entry (bounded), not just read it.
    paint = page.evaluate("""() => new Promise(resolve => {
        new PerformanceObserver(list => {
            const e = list.getEntriesByName('first-contentful-paint')[0];
            if (e) resolve(e.startTime);
        }).observe({type: 'paint', buffered: true});
        setTimeout(() => resolve(null), 5000);
    })""")
    load = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
    page.wait_for_timeout(300)
    context.close()
    return len(sizes), sum(sizes), paint, load, wall
