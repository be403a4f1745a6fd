/// The console's static files, served from memory with the console's headers.
public enum ConsoleAssets {
    /// The tab icon: a package (a cube outline) in the console's accent colour.
    public static let icon = #"""
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f5f99"/><path d="M8 11l8-4 8 4v10l-8 4-8-4z" fill="none" stroke="#fff" stroke-width="2.2" stroke-linejoin="round"/><path d="M8 11l8 4 8-4M16 15v10" fill="none" stroke="#fff" stroke-width="2.2" stroke-linejoin="round"/></svg>
"""#

    public static let style = #"""
:root{--fg:#1f2933;--muted:#52606d;--line:#d9e2ec;--accent:#1f5f99;--bad:#b42318;--ok:#1e7145}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);margin:0}
header{display:flex;justify-content:space-between;align-items:center;padding:10px 24px;border-bottom:1px solid var(--line);background:#f8fafc}
nav a{margin-right:18px;color:var(--accent);text-decoration:none;font-weight:600}
nav a[aria-current=page]{color:var(--fg);border-bottom:2px solid var(--accent)}
main{max-width:1200px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:17px;margin:24px 0 8px}
.sub{color:var(--muted);margin:0 0 12px}.note{color:var(--muted);font-size:12px}
a:focus,button:focus,input:focus,select:focus,summary:focus{outline:3px solid #f0b429;outline-offset:2px}
table{border-collapse:collapse;margin:8px 0 16px;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{padding:4px 10px;border-bottom:1px solid #e4e7eb;text-align:left}th{background:#f0f4f8}td.n{text-align:right}
button{font:inherit;padding:6px 14px;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button.secondary{background:#fff;color:var(--accent)}button.danger{background:var(--bad);border-color:var(--bad)}
button:disabled{opacity:.5;cursor:wait}
input,textarea{font:inherit;padding:5px 8px;border:1px solid #9aa5b1;border-radius:4px}
.grid{display:grid;grid-template-columns:max-content minmax(200px,360px);gap:8px 12px;align-items:center;margin:8px 0}
form.inline{display:flex;gap:8px;align-items:center;margin:8px 0}form.filter{flex-wrap:wrap}
select{font:inherit;padding:4px 6px;border:1px solid #9aa5b1;border-radius:4px;background:#fff}
nav.pages{display:flex;gap:4px 0;align-items:baseline;flex-wrap:wrap;margin:8px 0}nav.pages p{margin:0 18px 0 0;color:var(--muted)}
.buttons{display:flex;gap:8px;margin:8px 0}
.panel{border:1px solid var(--line);border-radius:8px;padding:8px 14px;margin:12px 0;background:#fbfcfd}
summary{cursor:pointer;font-weight:600}
progress{width:360px;height:14px;display:block;margin:8px 0}
#status{min-height:1.4em;margin:4px 0}.error{color:var(--bad);font-weight:600}.ok{color:var(--ok)}
.state{padding:1px 8px;border-radius:10px;background:#e4e7eb}.state.active{background:#d3f4e1}.state.paused{background:#feefc3}.state.retired{background:#fde2e1}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px}dt{color:var(--muted)}dd{margin:0}
.signin{display:flex;flex-direction:column;gap:8px;max-width:320px;margin-top:16px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.cards{display:flex;gap:12px;flex-wrap:wrap}.cols{display:flex;gap:32px;flex-wrap:wrap}
.card{border:1px solid var(--line);border-radius:8px;padding:10px 14px;min-width:170px;background:#f8fafc}
.card .k{color:var(--muted);font-size:12px}.card .v{font-size:20px;font-weight:600}.card .d{color:var(--muted);font-size:12px}
.chart{overflow-x:auto}svg text{font:12px system-ui,sans-serif;fill:#334e68}
ul.plain{list-style:none;margin:0;padding:0}.share{display:inline-block;min-width:64px;text-align:right;font-weight:600;font-variant-numeric:tabular-nums}
.state.shadowed{background:#e4e7eb;color:var(--muted)}
dialog{border:1px solid var(--line);border-radius:8px;padding:16px 20px}
.verdict{font-size:15px;font-weight:600;margin:6px 0}.verdict.paused_regression,.verdict.srm,.verdict.no_data{color:var(--bad)}.verdict.promoted{color:var(--ok)}
"""#
}
