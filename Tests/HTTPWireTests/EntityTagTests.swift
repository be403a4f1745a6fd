import Testing
@testable import HTTPWire

@Suite struct EntityTagTests {
    @Test func parsesStrongAndWeakTags_RFC9110_8_8_3() {
        #expect(EntityTag.parse("\"xyzzy\"") == EntityTag(opaque: "xyzzy"))
        #expect(EntityTag.parse("W/\"xyzzy\"") == EntityTag(opaque: "xyzzy", isWeak: true))
        #expect(EntityTag.parse(" \"\" ") == EntityTag(opaque: ""))
        #expect(EntityTag.parse("W/\"a\"")?.headerValue == "W/\"a\"")
    }

    @Test(arguments: ["", "xyzzy", "\"unterminated", "w/\"lowercase-w\"", "\"in\"ner\"", "\"a\" \"b\"", "W/ \"a\"", "\"sp ace\""])
    func rejectsMalformedTags_RFC9110_8_8_3(_ text: String) {
        #expect(EntityTag.parse(text) == nil)
    }

    @Test func comparesStronglyAndWeakly_RFC9110_8_8_3_2() {
        // The RFC's own table.
        let w1 = EntityTag(opaque: "1", isWeak: true), w2 = EntityTag(opaque: "2", isWeak: true)
        let s1 = EntityTag(opaque: "1")
        #expect(!w1.strongMatches(w1) && w1.weakMatches(w1))
        #expect(!w1.strongMatches(w2) && !w1.weakMatches(w2))
        #expect(!w1.strongMatches(s1) && w1.weakMatches(s1))
        #expect(s1.strongMatches(s1) && s1.weakMatches(s1))
    }

    @Test func parsesLists_withOptionalWhitespaceAndEmptyElements() {
        #expect(EntityTagList.parse("*") == .any)
        #expect(EntityTagList.parse(" * ") == .any)
        #expect(EntityTagList.parse("\"a\",W/\"b\" ,  \"c\"") == .tags([
            EntityTag(opaque: "a"), EntityTag(opaque: "b", isWeak: true), EntityTag(opaque: "c")]))
        #expect(EntityTagList.parse(", \"a\" ,,") == .tags([EntityTag(opaque: "a")]))
        #expect(EntityTagList.parse(",") == .tags([]))
        #expect(EntityTagList.parse("\"a,b\", \"c\"") == .tags([EntityTag(opaque: "a,b"), EntityTag(opaque: "c")]))
    }

    @Test(arguments: ["\"a\", b", "*, \"a\"", "\"a\" \"b\"", "\"a\";"])
    func malformedListMatchesNothing(_ text: String) {
        #expect(EntityTagList.parse(text) == nil)
    }

    @Test func listMatching_isCaseSensitive_andWeakOnlyWhenAsked() {
        let list = EntityTagList.parse("\"baz\", W/\"foo\"")!
        #expect(list.matches(EntityTag(opaque: "foo", isWeak: true), weakComparison: true))
        #expect(!list.matches(EntityTag(opaque: "foo", isWeak: true), weakComparison: false))
        #expect(!list.matches(EntityTag(opaque: "Foo"), weakComparison: true))
        #expect(EntityTagList.any.matches(EntityTag(opaque: "x", isWeak: true), weakComparison: false))
    }
}
