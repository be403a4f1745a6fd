import EgressCost
import HTMLPage

/// The egress estimator and the report of this instance's access log (SPEC §7.2, §15), drawn by
/// EgressCost's own renderers.
public enum CostView {
    public struct EstimatorForm: Sendable {
        public var downloads = "", size = "", installs = "", pollsPerDay = ""
        public init(downloads: String = "", size: String = "", installs: String = "", pollsPerDay: String = "") {
            self.downloads = downloads; self.size = size; self.installs = installs; self.pollsPerDay = pollsPerDay
        }

        /// The inputs, nil when the form is empty, or the reason they are refused.
        public func inputs(freeTier: Bool = true) -> Result<EstimateInputs, EstimateError>? {
            if downloads.isEmpty && size.isEmpty { return nil }
            func count(_ text: String, _ field: String) throws(EstimateError) -> Int64 {
                if text.isEmpty { return 0 }
                guard let n = Int64(text), n >= 0 else { throw EstimateError(message: "\(field) must be a whole number ≥ 0") }
                return n
            }
            do throws(EstimateError) {
                let sizeBytes: Int64
                do { sizeBytes = try SizeParser.parse(size) } catch { throw EstimateError(message: error.description) }
                return .success(EstimateInputs(downloads: try count(downloads, "downloads"), sizeBytes: sizeBytes,
                                               installs: try count(installs, "installs"), pollsPerDay: try count(pollsPerDay, "polls per day"),
                                               freeTier: freeTier))
            } catch {
                return .failure(error)
            }
        }
    }

    /// `estimate`: the priced estimate or why not; `report`: the access-log summary (priced
    /// unless `pricingProblem` says why the price table could not be read) or why not.
    public static func page(form: EstimatorForm, estimate: Result<Estimate, EstimateError>?,
                            report: Result<ReportSummary, EstimateError>, pricingProblem: String?, session: ConsoleSession) -> String {
        func field(_ id: String, _ name: String, _ label: String, _ value: String, _ hint: String) -> String {
            "<label for=\"\(id)\">\(label)</label><input id=\"\(id)\" name=\"\(name)\" value=\"\(HTMLPage.escape(value))\" placeholder=\"\(hint)\">"
        }
        var body = "<h1>Cost</h1>\n<section aria-labelledby=\"est-h\"><h2 id=\"est-h\">Estimate a month</h2>\n"
        body += "<form method=\"get\" action=\"/console/cost\"><div class=\"grid\">"
            + field("c-downloads", "downloads", "Downloads", form.downloads, "5000000")
            + field("c-size", "size", "Model size", form.size, "1MB")
            + field("c-installs", "installs", "Installs polling", form.installs, "optional")
            + field("c-polls", "polls_per_day", "Polls per install per day", form.pollsPerDay, "optional")
            + "</div><button type=\"submit\">Estimate</button></form>\n"
        switch estimate {
        case .success(let e)?: body += ReportRenderer.costTable(e.providers, caption: "Cost per provider for the month, cheapest first")
        case .failure(let e)?: body += "<p class=\"error\" role=\"alert\">\(HTMLPage.escape(e.message))</p>\n"
        case nil: break
        }
        body += "</section>\n<section aria-labelledby=\"rep-h\"><h2 id=\"rep-h\">Traffic served (access log)</h2>\n"
        switch report {
        case .success(let r):
            if let pricingProblem { body += "<p class=\"note\">Traffic only, without prices: \(HTMLPage.escape(pricingProblem))</p>\n" }
            body += ReportRenderer.htmlBody(r)
        case .failure(let e): body += "<p>\(HTMLPage.escape(e.message))</p>\n"
        }
        body += "</section>\n"
        return ConsolePage.document(title: "Cost", view: .cost, session: session, body: body)
    }
}
