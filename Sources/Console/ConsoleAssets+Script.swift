// console.js, embedded so the single modeld binary carries the whole console (no resource
// bundle to ship beside it, nothing loaded from elsewhere). Vanilla JS, no framework: it finds
// its controls by id and data- attributes (the CSP forbids inline handlers), sends every change
// to the admin API with the session's CSRF token, and reports the server's answer in #status.
extension ConsoleAssets {
    public static let script = #"""
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="modeld-csrf"]').content;
  const status = document.getElementById("status");

  function say(text, isError) {
    if (!status) return;
    status.textContent = text;
    status.className = isError ? "error" : "ok";
  }

  // SPEC §15.1: a 401 means the session ended (expired, signed out elsewhere, server restarted).
  // Say so, and link to sign-in, which brings the operator back to this page.
  function sessionEnded() {
    if (!status) return;
    const link = document.createElement("a");
    link.href = "/console/?next=" + encodeURIComponent(window.location.pathname + window.location.search);
    link.textContent = "Sign in again";
    status.replaceChildren("Your session has ended. ", link, " to continue on this page.");
    status.className = "error";
  }

  class SessionEnded extends Error {}
  // 409 `conflict`: the release changed since the page showed it (SPEC §15.1).
  class Stale extends Error {}

  // The SPEC §10 error shape, {"error":code,"message":text}, or whatever the body was.
  function describe(xhrStatus, body) {
    try {
      const e = JSON.parse(body);
      if (e && e.error) return xhrStatus + " " + e.error + ": " + e.message;
    } catch (_) { /* not JSON */ }
    return xhrStatus + " " + (body || "no answer");
  }

  // `revision`: the release's revision the page showed, sent as If-Match, so a change based on
  // a state the page no longer shows is refused (409) instead of undoing what it did not see.
  async function call(method, url, json, revision) {
    const headers = { "X-CSRF-Token": csrf };
    if (json !== undefined) headers["Content-Type"] = "application/json";
    if (revision) headers["If-Match"] = '"' + revision + '"';
    const r = await fetch(url, { method: method, headers: headers, credentials: "same-origin",
                                 body: json === undefined ? undefined : JSON.stringify(json) });
    const text = await r.text();
    if (r.status === 401) throw new SessionEnded();
    if (r.status === 409 && text.indexOf('"conflict"') >= 0) throw new Stale(describe(r.status, text));
    if (!r.ok) throw new Error(describe(r.status, text));
    return text;
  }

  // A modal <dialog> (keyboard: Tab between the buttons, Enter confirms, Escape cancels).
  function confirmAction(text) {
    const dialog = document.getElementById("confirm");
    document.getElementById("confirm-text").textContent = text;
    return new Promise(function (resolve) {
      dialog.addEventListener("close", function () { resolve(dialog.returnValue === "ok"); }, { once: true });
      dialog.returnValue = "";
      dialog.showModal();
      document.getElementById("confirm-ok").focus();
    });
  }

  // `control` asks for confirmation when it has data-confirm; the revision is that of the
  // live part it belongs to, as the page last drew it.
  async function act(control, button, method, url, json, done) {
    if (control.dataset.confirm && !(await confirmAction(control.dataset.confirm))) return;
    const part = control.closest("[data-revision]");
    button.disabled = true;
    try {
      await call(method, url, json, part ? part.dataset.revision : undefined);
      say(done, false);
      refreshLive(true);   // the page shows the change at once, without a reload
    } catch (e) {
      button.disabled = false;
      if (e instanceof SessionEnded) { sessionEnded(); return; }
      if (e instanceof Stale) {
        say(e.message + " The page now shows the release as it is; check it and try again.", true);
        refreshLive(true);
        return;
      }
      say(e.message, true);
    }
  }

  // Streams the file as the request body (like modelctl publish) so the browser reports upload
  // progress; the other fields become the admin API's query parameters.
  function upload(form) {
    const fields = new FormData(form);
    const file = fields.get("file");
    const query = new URLSearchParams();
    for (const [name, value] of fields) {
      if (name !== "file" && value !== "") query.append(name, value);
    }
    const dot = file.name.indexOf(".");
    if (dot >= 0 && !query.has("ext")) query.append("ext", file.name.slice(dot + 1).toLowerCase());
    const progress = form.querySelector("progress");
    const button = form.querySelector("button[type=submit]");
    const xhr = new XMLHttpRequest();
    xhr.open("POST", form.dataset.upload + "?" + query.toString());
    xhr.setRequestHeader("X-CSRF-Token", csrf);
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    xhr.upload.addEventListener("progress", function (e) {
      if (e.lengthComputable) progress.value = Math.round(e.loaded * 100 / e.total);
    });
    xhr.addEventListener("load", function () {
      button.disabled = false;
      if (xhr.status === 201) {
        progress.value = 100;
        const release = JSON.parse(xhr.responseText);
        say("Done: release " + release.id, false);
        window.setTimeout(function () { window.location.assign("/console/releases/" + release.id); }, 400);
      } else if (xhr.status === 401) {
        sessionEnded();
      } else {
        say(describe(xhr.status, xhr.responseText), true);
      }
    });
    xhr.addEventListener("error", function () { button.disabled = false; say("upload failed: connection lost", true); });
    progress.hidden = false;
    progress.value = 0;
    button.disabled = true;
    say("Uploading " + file.name + "…", false);
    xhr.send(file);
  }

  document.querySelectorAll("form[data-upload]").forEach(function (form) {
    form.addEventListener("submit", function (e) { e.preventDefault(); upload(form); });
  });

  // Delegated from the document: the live refresh replaces these controls with new ones.
  document.addEventListener("submit", function (e) {
    const rollout = e.target.closest("form#rollout");
    if (!rollout) return;
    e.preventDefault();
    const percent = Number(rollout.elements.rollout_percent.value);
    act(rollout, rollout.querySelector("button"), "PATCH", "/admin/models/" + rollout.dataset.release,
        { rollout_percent: percent }, "Rollout set to " + percent + "%");
  });

  document.addEventListener("click", function (e) {
    const b = e.target.closest("button");
    if (!b) return;
    if (b.dataset.state) {
      act(b, b, "PATCH", "/admin/models/" + b.dataset.release, { state: b.dataset.state },
          b.dataset.state === "paused" ? "Paused" : "Resumed");
    } else if (b.dataset.retire) {
      act(b, b, "DELETE", "/admin/models/" + b.dataset.retire, undefined, "Retired");
    } else if (b.dataset.stopGuard) {
      act(b, b, "DELETE", "/admin/models/" + b.dataset.stopGuard + "/guard", undefined, "Guard stopped");
    } else if (b.dataset.removeVariant) {
      act(b, b, "DELETE", "/admin/models/" + b.dataset.release + "/variants/" + encodeURIComponent(b.dataset.removeVariant),
          undefined, "Variant removed");
    }
  });

  const signOut = document.getElementById("sign-out");
  if (signOut) {
    signOut.addEventListener("click", async function () {
      try { await call("POST", "/console/logout"); } catch (e) {
        if (!(e instanceof SessionEnded)) { say(e.message, true); return; }
      }
      window.location.assign("/console/");
    });
  }

  // The release page's live parts (state, rollout, actions, guard, variants; SPEC §15.1) are
  // drawn by the server and fetched again every 5 s and after each change made here. Each part is swapped whole, except the actions
  // while the operator is in them (typing a rollout): those keep the revision they were drawn
  // with, so submitting them after a change they do not show is refused (409), and `force`
  // (after that 409) swaps them too.
  const live = document.getElementById("live");
  let timer = null;
  async function refreshLive(force) {
    if (!live) return;
    try {
      const r = await fetch(live.dataset.src, { credentials: "same-origin", cache: "no-store" });
      if (r.status === 401) { window.clearInterval(timer); sessionEnded(); return; }
      if (!r.ok) return;
      const next = new DOMParser().parseFromString(await r.text(), "text/html");
      const ids = Array.from(next.querySelectorAll("[data-part]")).map(function (part) { return part.id; });
      live.querySelectorAll("[data-part]").forEach(function (old) {   // a part the release no longer has (actions once retired)
        if (ids.indexOf(old.id) < 0) old.remove();
      });
      next.querySelectorAll("[data-part]").forEach(function (part) {
        const old = document.getElementById(part.id);
        if (!force && old && old.contains(document.activeElement) && part.querySelector("form, input")) return;
        if (!old) { live.appendChild(document.adoptNode(part)); return; }
        // an expanded <details> ("Add a variant") stays expanded
        const open = Array.from(old.querySelectorAll("details")).map(function (d) { return d.open; });
        part.querySelectorAll("details").forEach(function (d, i) { if (open[i]) d.open = true; });
        old.replaceWith(document.adoptNode(part));
      });
    } catch (_) { /* the next tick tries again */ }
  }
  if (live) timer = window.setInterval(function () { refreshLive(false); }, 5000);
})();
"""#
}
