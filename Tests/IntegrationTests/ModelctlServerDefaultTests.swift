import ChildProcesses
import Foundation
import Testing

/// SPEC §7 (v4): modelctl finds the server the way it finds the token — `--server`, else
/// `MODELD_SERVER`, else the `listen` address of ./config/modeld.json (a wildcard host read as
/// 127.0.0.1) — and takes the global options before or after the subcommand. Through the real
/// binaries against a real modeld.
@Suite(.serialized) final class ModelctlServerDefaultTests {
    let server: ModeldServer
    let directory: URL

    init() throws {
        server = try ModeldServer(empty: true)
        directory = server.root.appendingPathComponent("operator-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("config"), withIntermediateDirectories: true)
    }

    private func writeConfig(listen: String) throws {
        let json = #"{"listen":"\#(listen)","admin_token":"\#(server.token)"}"#
        try Data(json.utf8).write(to: directory.appendingPathComponent("config/modeld.json"))
    }

    private func modelctl(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments, environment: environment, directory: directory)
    }

    /// A port nothing listens on: bound then closed by a throwaway socket.
    private func deadPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func defaultServerIsTheConfigsListenAddress_wildcardReadAsLoopback() throws {
        for listen in ["0.0.0.0:\(server.port)", "127.0.0.1:\(server.port)", "[::]:\(server.port)"] {
            try writeConfig(listen: listen)
            let list = try modelctl(["list", "--json"])
            #expect(list.status == 0 && list.stdout.contains(#""releases""#), "\(listen): \(list.stderr)")
            #expect(try modelctl(["health"]).status == 0, "\(listen)")
        }
    }

    @Test func serverFlagAndEnvironmentWinOverTheConfig() throws {
        let dead = deadPort()
        try writeConfig(listen: "0.0.0.0:\(dead)")
        let unreachable = try modelctl(["list"])
        #expect(unreachable.status == 1 && unreachable.stderr.contains("127.0.0.1:\(dead)"), "\(unreachable.stderr)")
        #expect(try modelctl(["list"], environment: ["MODELD_SERVER": server.url]).status == 0)
        #expect(try modelctl(["list", "--server", server.url], environment: ["MODELD_SERVER": "http://127.0.0.1:\(dead)"]).status == 0)
        let bad = try modelctl(["list", "--server", "ftp://x"])
        #expect(bad.status == 2 && bad.stderr.contains("http://"), "\(bad.stderr)")
    }

    @Test func globalOptionsAreAcceptedBeforeOrAfterTheSubcommand() throws {
        try writeConfig(listen: "0.0.0.0:\(deadPort())")
        let file = directory.appendingPathComponent("model.bin")
        try Data((0..<4096).map { UInt8($0 & 0xFF) }).write(to: file)
        let published = try modelctl(["--server", server.url, "--token", server.token, "--json", "publish", file.path, "--sdk-min", "1.0"])
        #expect(published.status == 0 && published.stdout.hasPrefix("{"), "\(published.stderr)")
        let id = try #require((try JSONSerialization.jsonObject(with: Data(published.stdout.utf8)) as? [String: Any])?["id"] as? String)
        for arguments in [["--server=\(server.url)", "show", id, "--json"], ["show", "--server", server.url, id, "--json"],
                          ["--json", "--server", server.url, "show", id], ["--server", server.url, "experiment", "status", id]] {
            let r = try modelctl(arguments)
            if arguments.contains("experiment") {
                #expect(r.status == 1 && r.stderr.contains("has no guard"), "\(arguments): \(r.stderr)")
            } else {
                #expect(r.status == 0 && r.stdout.contains(id), "\(arguments): \(r.stderr)")
            }
        }
        // An unknown leading option is still refused as usage.
        #expect(try modelctl(["--nope", "list"]).status == 2)
    }
}
