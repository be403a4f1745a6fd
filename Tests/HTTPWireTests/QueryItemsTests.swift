import HTTPWire
import Testing

@Suite struct QueryItemsTests {
    func head(_ query: String) -> RequestHead { RequestHead(method: "GET", path: "/latest", query: query) }

    func values(_ query: String, _ names: [String]) -> [String?] {
        var out = [String?](repeating: nil, count: names.count)
        head(query).queryValues(QueryNames(names)) { i, v in out[i] = v }
        return out
    }

    @Test func queryValues_firstOccurrenceWins_unwantedItemsIgnored() {
        #expect(values("sdk=1.0&x=%zz&sdk=2.0&os=17.4", ["sdk", "os", "device"]) == ["1.0", "17.4", nil])
    }

    @Test func queryValues_decodeEscapedNamesAndValues_plusIsSpace() {
        #expect(values("s%64k=1%2E2&client%5Fid=a+b%2Bc&empty&eq=", ["sdk", "client_id", "empty", "eq"])
                == ["1.2", "a b+c", "", ""])
    }

    @Test func queryValues_malformedValueIsAbsent_malformedNameIsSkipped() {
        #expect(values("sdk=%4&sdk=2", ["sdk"]) == [nil], "the first sdk item decides, and it is undecodable")
        #expect(values("sd%k=1&sdk=2", ["sdk"]) == ["2"])
        #expect(values("sdk=%C3%28", ["sdk"]) == [nil], "invalid UTF-8 after decoding")
    }

    @Test func queryItems_allOrNothing() throws {
        let items = try #require(head("a=1&&b=x+y&c").queryItems())
        #expect(items.map(\.name) == ["a", "b", "c"] && items.map(\.value) == ["1", "x y", ""])
        #expect(head("a=1&b=%G1").queryItems() == nil)
        #expect(head("").queryItems()?.isEmpty == true)
    }

    @Test func queryValues_namesHoldingPlusOrPercentMatchOnlyDecodedItems() {
        // A raw "a+b" decodes to "a b": it must not match the name "a+b" byte for byte.
        #expect(values("a+b=1&a%2Bb=2", ["a+b", "a b"]) == ["2", "1"])
        #expect(values("x%25=1", ["x%", "x%25"]) == ["1", nil])
        #expect(values("=empty&b=2", ["", "b"]) == ["empty", "2"], "an empty name is a name too")
    }

    @Test func queryItem_matchesQueryValues() {
        #expect(head("a=1&b=%41").queryItem("b") == "A")
        #expect(head("a=1").queryItem("b") == nil)
    }
}
