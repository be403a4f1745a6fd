import Testing
@testable import ModelCatalog

@Suite struct SDKVersionTests {
    @Test(arguments: [
        ("2", "2.0.0"), ("2.3", "2.3.0"), ("2.3.4", "2.3.4"), ("0", "0.0.0"), ("999999.999999.999999", "999999.999999.999999"),
        ("01.002", "1.2.0"), ("10.0.1", "10.0.1"),
    ])
    func sdk_parsesAndNormalises_SPEC3(text: String, normalised: String) {
        #expect(SDKVersion(text)?.description == normalised)
    }

    @Test(arguments: [
        "", ".", "1.", ".1", "1..2", "1.2.3.4", "1000000", "1.1000000", "-1", "+1", " 1", "1 ", "1.2a", "a", "v1.2",
        "1.2.3-beta", "１", "1,2", "0x10", "1.2.3.",
    ])
    func sdk_rejectsInvalid_SPEC3(text: String) {
        #expect(SDKVersion(text) == nil)
    }

    @Test(arguments: [
        ("2.3", "2.3.0", 0), ("2.10", "2.9", 1), ("2.9", "2.10", -1), ("1.0.1", "1", 1), ("3", "2.999999.999999", 1),
        ("0.0.0", "0", 0), ("10.0", "9.99", 1),
    ])
    func sdk_comparesNumerically_SPEC3(a: String, b: String, order: Int) {
        let (x, y) = (v(a), v(b))
        #expect((x < y ? -1 : x == y ? 0 : 1) == order)
    }

    @Test func sdk_equalVersionsHashEqual_SPEC3() {
        #expect(Set([v("2.3"), v("2.3.0"), v("2.3.0")]).count == 1)
    }
}

@Suite struct CatalogErrorTests {
    @Test(arguments: [
        (CatalogError.Code.invalidParameter, "invalid_parameter", 400), (.idInUse, "id_in_use", 409), (.retired, "retired", 409),
        (.notFound, "not_found", 404), (.sha256Mismatch, "sha256_mismatch", 422), (.insufficientStorage, "insufficient_storage", 507),
    ])
    func error_codesAndStatuses_SPEC10(code: CatalogError.Code, text: String, status: Int) {
        let e = CatalogError(code, "m")
        #expect(code.rawValue == text && e.httpStatus == status)
    }
}
