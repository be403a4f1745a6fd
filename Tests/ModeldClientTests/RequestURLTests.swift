import Foundation
@testable import ModeldClient
import Testing

@Suite struct RequestURLTests {
    @Test func plusInAQueryValueIsEscaped_soTheServerDoesNotReadASpace() throws {
        let url = ModelChannel.url(URL(string: "http://h:1/")!, path: "latest",
                                   query: [URLQueryItem(name: "sdk", value: "2.3"), URLQueryItem(name: "client_id", value: "a+b c")])
        #expect(url.absoluteString == "http://h:1/latest?sdk=2.3&client_id=a%2Bb%20c")
    }
}
