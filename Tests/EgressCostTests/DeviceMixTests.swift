import Testing
@testable import EgressCost

@Suite struct DeviceMixTests {
    @Test func meanSize_weighsVariantsByShare_restGetsTheDefault() throws {
        let mix = try DeviceMix(parsing: ["8gb=0.3", "6gb=0.2"])
        #expect(try mix.meanSize(defaultSize: 1_000, variantSizes: ["8gb": 5_000, "6gb": 2_000]) == 2_400)   // 1500+400+500
        #expect(try DeviceMix(parsing: ["8gb=0.3,6gb=0.2"]) == mix)
        #expect(try DeviceMix(parsing: []).meanSize(defaultSize: 777, variantSizes: [:]) == 777)
        #expect(try DeviceMix(parsing: ["8gb=1"]).meanSize(defaultSize: 1, variantSizes: ["8gb": 9]) == 9)
    }

    @Test(arguments: ["8gb", "8gb=", "=0.3", "8gb=1.5", "8gb=-0.1", "8gb=nan", "8gb=0.6,6gb=0.5", "8gb=0.1,8gb=0.2", "8gb=0.1,"])
    func badMixIsRefused(value: String) {
        #expect(throws: EstimateError.self) { try DeviceMix(parsing: [value]) }
    }

    @Test func unknownVariantNamesWhatExists() {
        do {
            _ = try DeviceMix(parsing: ["4gb=0.5"]).meanSize(defaultSize: 1, variantSizes: ["8gb": 2])
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains("4gb") && error.message.contains("8gb"))
        }
    }
}
