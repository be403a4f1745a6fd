/// The frame of modeld's HTML reports (egress cost, guarded rollout): one self-contained page
/// with inline CSS — no scripts, no external assets — so a report can be mailed or archived and
/// opens the same anywhere. Each report adds its own body (and inline SVG).
public enum HTMLPage {
    public static func document(title: String, extraCSS: String = "", body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>\(css)\(extraCSS)</style></head>
        <body>
        \(body)</body></html>

        """
    }

    static let css = """
    body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;margin:32px auto;max-width:1100px;padding:0 16px}
    h1{font-size:24px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
    .sub{color:#52606d;margin:0 0 16px}.note{color:#52606d;font-size:12px}
    .cards{display:flex;gap:12px;flex-wrap:wrap}
    .card{border:1px solid #d9e2ec;border-radius:8px;padding:10px 14px;min-width:170px;background:#f8fafc}
    .card .k{color:#52606d;font-size:12px}.card .v{font-size:20px;font-weight:600}.card .d{color:#52606d;font-size:12px}
    table{border-collapse:collapse;margin:8px 0 16px;font-variant-numeric:tabular-nums}
    caption{text-align:left;font-weight:600;padding:4px 0}
    th,td{padding:3px 10px;border-bottom:1px solid #e4e7eb}th{text-align:left;background:#f0f4f8}td.n{text-align:right}
    svg text{font:12px system-ui,sans-serif;fill:#334e68}

    """

    /// A headline figure: a small key, the value, a detail line.
    public static func card(_ key: String, _ value: String, _ detail: String) -> String {
        "<div class=\"card\"><div class=\"k\">\(escape(key))</div><div class=\"v\">\(escape(value))</div><div class=\"d\">\(escape(detail))</div></div>"
    }

    /// Text and attribute values: recorded or logged text is never trusted as markup.
    public static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
