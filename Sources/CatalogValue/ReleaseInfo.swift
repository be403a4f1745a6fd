/// What a device knows about a release before it downloads (SPEC §3.2), as the operator
/// published it: a name to show, the licence and the RAM it needs. `disk_bytes` is not stored:
/// it follows from the files (`Release.diskBytes`).
public struct ReleaseInfo: Hashable, Sendable {
    public let displayName: String?
    public let license: ReleaseLicense?
    public let minRAMMB: Int?

    public static let none = ReleaseInfo(unchecked: nil, nil, nil)

    public init(displayName: String? = nil, license: ReleaseLicense? = nil, minRAMMB: Int? = nil) throws(CatalogError) {
        try CatalogError.catching { () throws(InvalidInput) in
            if let displayName { try ReleaseFields.checkDisplayName(displayName) }
            if let minRAMMB { try ReleaseFields.checkMinRAMMB(minRAMMB) }
        }
        self.init(unchecked: displayName, license, minRAMMB)
    }

    private init(unchecked displayName: String?, _ license: ReleaseLicense?, _ minRAMMB: Int?) {
        self.displayName = displayName
        self.license = license
        self.minRAMMB = minRAMMB
    }
}
