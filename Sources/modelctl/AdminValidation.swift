import ArgumentParser
import ModelCatalog

/// modelctl's flags checked with the release's own field rules (ReleaseFields, the rules the
/// server applies), so a typo exits 2 before a byte is sent; each message names the flag.
enum AdminValidation {
    static func sdkRange(min sdkMin: String, max sdkMax: String?) throws {
        do throws(InvalidInput) { _ = try ReleaseFields.checkSDKRange(min: sdkMin, max: sdkMax) } catch {
            let option = error.parameter == "sdk_max" ? "--sdk-max" : "--sdk-min"
            throw ValidationError("\(option) '\(option == "--sdk-max" ? sdkMax ?? "" : sdkMin)': \(error.message)")
        }
    }

    static func sdkVersion(_ text: String, option: String) throws {
        guard SDKVersion(text) != nil else {
            throw ValidationError("\(option) '\(text)' is not an SDK version (MAJOR[.MINOR[.PATCH]], numbers 0-999999)")
        }
    }

    static func channel(_ text: String) throws {
        try flag("--channel '\(text)'") { () throws(InvalidInput) in try ReleaseFields.checkChannel(text) }
    }

    /// A new release's channel: also not a reserved name (`index`).
    static func publishChannel(_ text: String) throws {
        try flag("--channel '\(text)'") { () throws(InvalidInput) in try ReleaseFields.checkPublishableChannel(text) }
    }

    static func releaseID(_ text: String, option: String = "ID") throws {
        try flag("\(option) '\(text)'") { () throws(InvalidInput) in try ReleaseFields.checkID(text) }
    }

    static func rollout(_ percent: Int, option: String) throws {
        try flag("\(option) \(percent)") { () throws(InvalidInput) in try ReleaseFields.checkRollout(percent) }
    }

    static func label(_ text: String) throws {
        try flag("--label") { () throws(InvalidInput) in try ReleaseFields.checkLabel(text) }
    }

    static func contentType(_ text: String) throws {
        do throws(CatalogError) { try Release.validatePublishableContentType(text) } catch {
            throw ValidationError("--content-type '\(text)': \(error.message)")
        }
    }

    /// Everything after the first dot of the file's base name, lowercased (`x.mlmodelc.zip` →
    /// `mlmodelc.zip`), as the release's `ext`.
    static func ext(ofFile path: String) throws -> String {
        guard let ext = ReleaseFields.ext(ofFileName: path) else {
            let base = path.split(separator: "/").last.map(String.init) ?? path
            throw ValidationError("'\(base)' has no usable extension: the release's ext is everything after the first dot "
                + "of the file name, dot-separated a-z/0-9 words, at most \(ReleaseFields.maxExtLength) characters")
        }
        return ext
    }

    /// Runs one rule, its failure worded for the flag: "--channel 'X': must match …".
    private static func flag(_ name: String, _ rule: () throws(InvalidInput) -> Void) throws {
        do throws(InvalidInput) { try rule() } catch { throw ValidationError("\(name): \(error.message)") }
    }
}
