import ModelCatalog
import SelectionVectors
import Testing

/// The server's publish path judges the shared release field table (SPEC §3) as the contract
/// says, and a refusal names the field (`invalid_parameter`).
@Suite struct ReleaseFieldTests {
    @Test(arguments: ReleaseFieldCases.all)
    func publishRequestJudgesTheSharedTable(_ c: ReleaseFieldCases.Case) {
        let f = ReleaseFieldCases.fields(for: c)
        do throws(CatalogError) {
            // The admin API's query parameters: the form every publish, online or offline, is judged in.
            _ = try PublishRequest(parameters: f.parameters)
            #expect(c.valid, "accepted \(c)")
        } catch {
            #expect(!c.valid, "refused \(c): \(error)")
            #expect(error.code == .invalidParameter && error.parameter == c.field.rawValue, "\(error)")
        }
    }
}
