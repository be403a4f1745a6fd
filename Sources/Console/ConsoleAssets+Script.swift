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

  // The SPEC §10 error shape, {"error":code,"message":text}, or whatever the body was.
  function describe(xhrStatus, body) {
    try {
      const e = JSON.parse(body);
      if (e && e.error) return xhrStatus + " " + e.error + ": " + e.message;
    } catch (_) { /* not JSON */ }
    return xhrStatus + " " + (body || "no answer");
  }

  async function call(method, url, json) {
    const headers = { "X-CSRF-Token": csrf };
    if (json !== undefined) headers["Content-Type"] = "application/json";
    const r = await fetch(url, { method: method, headers: headers, credentials: "same-origin",
                                 body: json === undefined ? undefined : JSON.stringify(json) });
    const text = await r.text();
    if (r.status === 401) throw new SessionEnded();
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

  async function act(button, method, url, json, done) {
    if (button.dataset.confirm && !(await confirmAction(button.dataset.confirm))) return;
    button.disabled = true;
    try {
      await call(method, url, json);
      say(done, false);
      window.setTimeout(function () { window.location.reload(); }, 400);
    } catch (e) {
      if (e instanceof SessionEnded) sessionEnded(); else say(e.message, true);
      button.disabled = false;
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

  const rollout = document.getElementById("rollout");
  if (rollout) {
    rollout.addEventListener("submit", function (e) {
      e.preventDefault();
      const percent = Number(rollout.elements.rollout_percent.value);
      act(rollout.querySelector("button"), "PATCH", "/admin/models/" + rollout.dataset.release,
          { rollout_percent: percent }, "Rollout set to " + percent + "%");
    });
  }

  document.querySelectorAll("button[data-state]").forEach(function (b) {
    b.addEventListener("click", function () {
      act(b, "PATCH", "/admin/models/" + b.dataset.release, { state: b.dataset.state },
          b.dataset.state === "paused" ? "Paused" : "Resumed");
    });
  });
  document.querySelectorAll("button[data-retire]").forEach(function (b) {
    b.addEventListener("click", function () { act(b, "DELETE", "/admin/models/" + b.dataset.retire, undefined, "Retired"); });
  });
  document.querySelectorAll("button[data-remove-variant]").forEach(function (b) {
    b.addEventListener("click", function () {
      act(b, "DELETE", "/admin/models/" + b.dataset.release + "/variants/" + encodeURIComponent(b.dataset.removeVariant),
          undefined, "Variant removed");
    });
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

  // The guard chart is drawn by the server; while the page is open it is fetched again every
  // 5 s (SPEC §15: at least every 10 s).
  const guard = document.getElementById("guard");
  if (guard) {
    const timer = window.setInterval(async function () {
      try {
        const r = await fetch(guard.dataset.src, { credentials: "same-origin", cache: "no-store" });
        if (r.status === 401) { window.clearInterval(timer); sessionEnded(); return; }
        if (r.ok) guard.innerHTML = await r.text();
      } catch (_) { /* the next tick tries again */ }
    }, 5000);
  }
})();
"""#
}
