import AccessTokens
import HTTPServer
import Logging
import EventStore
import ModelCatalog
import HTTPWire
import ModeldConfig
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The composition root: configuration → stores → routes → engine, then the signal loop
/// (SPEC §8: SIGHUP reloads the catalog; SIGTERM/SIGINT drain, flush and exit 0).
public enum ModeldApp {
    public static let version = "0.1.0"

    /// Runs the server until a terminating signal; returns the process exit code.
    public static func run(arguments: [String], environment: [String: String]) -> Int32 {
        SignalWatcher.block()   // before any thread starts, so all of them inherit the mask
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var log = Logger(label: "modeld")

        let config: Configuration
        do throws(ConfigurationError) {
            switch try Configuration.load(arguments: arguments, environment: environment) {
            case .help(let text):
                print(text)
                return 0
            case .run(let c): config = c
            }
        } catch {
            printError("modeld: \(error.description)")
            return ConfigurationError.exitCode
        }
        log[metadataKey: "instance"] = .string(config.instanceID)
        do {
            return try serve(config, environment: environment, log: log)
        } catch let failure as StartupFailure {
            log.critical("\(failure.message)")
            return failure.exitCode
        } catch {
            log.critical("start-up failed: \(error)")
            return 1
        }
    }

    struct StartupFailure: Error {
        let message: String
        var exitCode: Int32 = 1
    }

    private static func serve(_ config: Configuration, environment: [String: String], log: Logger) throws -> Int32 {
        if config.ingest.only { return try serveIngest(config, environment: environment, log: log) }
        try makeDirectory(config.dataDir)
        try makeDirectory(config.modelsDir)
        let metrics = Metrics(version: version)
        let token = try adminToken(config, log: log)
        let accessLog = try openAccessLog(config, metrics: metrics)
        let events = try openEvents(config, metrics: metrics, log: log)
        let shipping = try shippingService(config, environment: environment, metrics: metrics)
        let guardBucket = try guardEventsFollower(config, environment: environment)

        // Key files are checked before anything listens (SPEC §12: exit 2 naming the file).
        let signing: Signing?
        do throws(ConfigurationError) { signing = try config.signing.map(Signing.load) } catch {
            throw StartupFailure(message: error.description, exitCode: ConfigurationError.exitCode)
        }

        let holder = CatalogHolder()
        let router = RouterBox()
        let servedToday = ServedToday()
        let (server, port) = try startServer(config, handler: router, metrics: metrics, accessLog: accessLog, servedToday: servedToday)
        let store = CatalogStore(directory: config.modelsDir, publicBaseURL: config.resolvedPublicBaseURL(boundPort: port),
                                 isFallbackBaseURL: config.publicBaseURL == nil, signer: signing?.signer, graceDays: config.retiredGraceDays,
                                 onRefused: { refusal in
                                     metrics.recordSigningRefused()
                                     Logger(label: "modeld.signing").error("refusing to sign: \(refusal.message)")
                                 })
        let duties = WriterDuties(modelsDir: config.modelsDir, enabled: config.packAtPublish, environment: environment)
        let signingService = signing.map {
            SigningService(signing: $0, holder: holder, store: store, graceDays: config.retiredGraceDays, duties: duties)
        }
        let rulesService = RulesService(store: store, resignSeconds: signing?.resignSeconds, duties: duties)
        // MODELD_TEST_DERIVE_OFF=1 (tests only, docs/configuration.md): the writer duties without
        // derivation, for tests whose catalogs must not change after a publish.
        let deriver = config.packAtPublish && environment["MODELD_TEST_DERIVE_OFF"] != "1"
            ? TransferDeriver(store: store, instance: config.instanceID, patchBases: config.patchBases, duties: duties) : nil
        let removed = store.cleanTemp(instance: config.instanceID)
        if removed > 0 { log.info("removed \(removed) unfinished upload(s) of this instance from \(store.tempDirectory)") }
        let freed = FreedMemory()
        let watcher = CatalogWatcher(
            store: store,
            onPoll: {
                metrics.recordCatalogPoll()
                freed.releaseIfDue()
            },
            onChange: { catalog in
                let before = holder.served.snapshot.publicBaseURL
                freed.releaseSoon(replaced: holder.install(ServedCatalog(catalog: catalog, store: store, signing: signing, previous: holder.served)))
                signingService?.catalogChanged()
                rulesService.catalogChanged()
                deriver?.catalogChanged(catalog)
                if store.baseURL(of: catalog) != before {
                    let log = Logger(label: "modeld.catalog")
                    log.notice("the catalog's base URL is now \(store.baseURL(of: catalog))")
                    if let warning = BaseURLNotice.warning(store: store, catalog: catalog) { log.warning("\(warning)") }
                }
                metrics.recordCatalogReload(releases: catalog.releases.count)
            },
            onError: { error in
                metrics.recordCatalogReloadFailure()
                Logger(label: "modeld.catalog").error("catalog refused, previous one kept: \(error)")
            },
            onPolledChange: { catalog, took in
                Logger(label: "modeld.catalog").info("catalog version \(catalog.catalogVersion) (\(catalog.releases.count) releases) reloaded in \(Self.milliseconds(took)) ms")
            })
        let catalog: Catalog
        do { catalog = try watcher.loadInitial() } catch {
            server.stop(after: 0)
            throw StartupFailure(message: "cannot load catalog: \(error)")
        }
        holder.install(ServedCatalog(catalog: catalog, store: store, signing: signing))
        freed.releaseSoon()   // the decoded file's tree, as after every reload
        metrics.recordCatalogReload(releases: catalog.releases.count)   // the first load counts too
        if let warning = BaseURLNotice.warning(store: store, catalog: catalog) { log.warning("\(warning)") }
        deriver?.catalogChanged(catalog)
        watcher.start()
        let collector = GarbageCollector(store: store, dataDir: config.dataDir, graceDays: config.retiredGraceDays, watcher: watcher, duties: duties)
        // Taken over later: every duty runs its start-up pass then (the deriver's plan is current).
        duties.whenAcquired {
            signingService?.catalogChanged()
            rulesService.catalogChanged()
            collector.poke()
            deriver?.poke()
        }
        duties.start()   // before the duties' first passes, which then know whether they are theirs
        signingService?.start()
        rulesService.start()
        collector.start()
        let guardEvaluator = GuardEvaluator(store: store, dataDir: config.dataDir, intervalSeconds: config.guardIntervalSeconds, watcher: watcher, metrics: metrics,
                                            shipped: guardBucket, dedupWindowHours: Double(config.dedupWindowHours))
        guardEvaluator.start()
        deriver?.start()   // after cleanTemp: its temps share the instance's prefix
        shipping?.start()

        let latest = LatestResponder(catalog: holder, maxAgeSeconds: config.latestMaxAgeSeconds, signing: signing)
        // SPEC §15.1: named tokens open the admin API (on only with an admin token) as far as
        // their role goes; the book is polled off the request path.
        let namedTokens = TokenCache(store: TokenStore(dataDir: config.dataDir))
        let credentials = token.map { Credentials(adminToken: $0, named: namedTokens) }
        let refreshTokens: @Sendable () -> Void = {
            if let refused = namedTokens.refresh() {
                Logger(label: "modeld.tokens").error("\(refused.message): no named token opens anything until it is fixed")
            }
        }
        var tokenPoller: BackgroundLoop?
        if credentials != nil {
            refreshTokens()   // before the first request, not racing it
            tokenPoller = BackgroundLoop { _ in refreshTokens(); return TokenCache.pollMillis }
            tokenPoller?.start()
        }
        let audit = AuditLog(path: config.dataDir + "/audit.jsonl")
        let clientAddress = ClientAddress(trusted: config.console.trustedProxies)
        // SPEC §15: the console needs the admin token (no token: 404, like the admin API).
        let console = credentials.flatMap { credentials in config.console.enabled
            ? ConsoleAccess(sessionSeconds: config.console.sessionSeconds,
                            secureCookie: config.publicBaseURL?.lowercased().hasPrefix("https://") == true,
                            clientAddress: clientAddress, credentials: credentials, audit: audit)
            : nil }
        let accessLogPath: String? = if case .file(let path) = config.accessLog { path } else { nil }
        let eventsResponder = EventsResponder(store: events, latest: latest, metrics: metrics, limits: config.limits)
        router.install(Router(
            latest: latest,
            models: ModelFileResponder(catalog: holder),
            admin: AdminResponder(credentials: credentials, audit: audit, clientAddress: clientAddress, store: store, catalog: holder, watcher: watcher, metrics: metrics,
                                  instance: config.instanceID, maxUploadBytes: config.limits.maxUploadBytes,
                                  dataDir: config.dataDir, console: console),
            tokens: TokensResponder(tokens: namedTokens),
            events: eventsResponder,
            check: CheckResponder(events: eventsResponder, latest: latest),
            operations: OperationsResponder(metrics: metrics, isDraining: { server.isDraining }),
            signedMetadata: SignedMetadataResponder(modelsDir: config.modelsDir, maxAgeSeconds: config.latestMaxAgeSeconds),
            console: console.map { access in ConsoleResponder(
                access: access, catalog: holder, servedToday: servedToday, modelsDir: config.modelsDir,
                dataDir: config.dataDir, accessLogPath: accessLogPath, pricingPath: config.console.pricingFile,
                signature: signing.map { "signed (keyid \($0.signer.keys.map(\.keyID).joined(separator: ", ")))" } ?? "unsigned") }))

        let host = config.listen.isIPv6 ? "[\(config.listen.host)]" : config.listen.host
        log.info("modeld \(version) listening on http://\(host):\(port) with \(catalog.releases.count) release(s); config: \(config.sourceDescription)")
        if console != nil { log.info("operator console at /console/ (sessions last \(config.console.sessionSeconds) s)") }
        if let signing { log.info("signing /latest with keyid(s) \(signing.signer.keys.map(\.keyID).joined(separator: ", "))") }

        return untilTerminated(config, server: server, events: events, shipping: shipping, accessLog: accessLog, log: log, reload: {
            // Timed (read, decode, served catalog built): Benchmarks/catalog reads the figure.
            let start = ContinuousClock.now
            switch watcher.reloadNow() {
            case .failure(let e): log.error("SIGHUP: catalog refused: \(e)")
            case .success(let c): log.info("SIGHUP: catalog reloaded (\(c.releases.count) releases) in \(Self.milliseconds(ContinuousClock.now - start)) ms")
            }
        }, stopping: {
            collector.stop()
            duties.stop()
            guardEvaluator.stop()
            if let tokenPoller {
                tokenPoller.stop()
                refreshTokens()   // writes the last uses noted
            }
            signingService?.stop()
            rulesService.stop()
            watcher.stop()
        })
    }

    /// SPEC §18 `ingest_only`: events in, segments shipped, health and metrics; no models_dir
    /// (not read, not created), no catalog, admin API, console or guard.
    private static func serveIngest(_ config: Configuration, environment: [String: String], log: Logger) throws -> Int32 {
        try makeDirectory(config.dataDir)
        let metrics = Metrics(version: version)
        let accessLog = try openAccessLog(config, metrics: metrics)
        let events = try openEvents(config, metrics: metrics, log: log)
        let shipping = try shippingService(config, environment: environment, metrics: metrics)
        let router = RouterBox()
        let (server, port) = try startServer(config, handler: router, metrics: metrics, accessLog: accessLog, servedToday: ServedToday())
        router.install(IngestRouter(events: EventsResponder(store: events, latest: nil, metrics: metrics, limits: config.limits),
                                    operations: OperationsResponder(metrics: metrics, isDraining: { server.isDraining })))
        shipping?.start()
        let host = config.listen.isIPv6 ? "[\(config.listen.host)]" : config.listen.host
        let shipsTo = config.ingest.ship.map { "shipping sealed segments to \($0.url)" } ?? "not shipping (no events_ship)"
        log.info("modeld \(version) (ingest only) listening on http://\(host):\(port); \(shipsTo); config: \(config.sourceDescription)")
        return untilTerminated(config, server: server, events: events, shipping: shipping, accessLog: accessLog, log: log,
                               reload: { log.info("SIGHUP: an ingest replica has no catalog to reload") }, stopping: {})
    }

    /// The signal loop both modes end in (SPEC §8): SIGHUP is `reload`; SIGTERM or SIGINT drains
    /// and returns exit code 0. The drain: no new connections and in-flight requests given
    /// drain_seconds, `stopping` (the mode's own background work), the event store closed, its
    /// last sealed segments shipped within what is left of drain_seconds, the access log flushed.
    private static func untilTerminated(_ config: Configuration, server: HTTPServer, events: EventStore, shipping: EventShippingService?,
                                        accessLog: AccessLogWriter?, log: Logger, reload: () -> Void, stopping: () -> Void) -> Int32 {
        let signals = SignalWatcher()
        while true {
            switch signals.next() {
            case .reload:
                reload()
            case .terminate:
                log.info("draining for up to \(config.drainSeconds) s")
                let deadline = Timestamp.now().millisecondsSinceEpoch + Int64(config.drainSeconds) * 1000
                server.stop(after: Double(config.drainSeconds))
                stopping()
                events.close()
                finishShipping(shipping, deadline: deadline, log: log)
                accessLog?.close()
                log.info("stopped")
                return 0
            }
        }
    }

    /// `12.3`: a reload's duration as its log lines give it (Benchmarks/catalog reads them).
    static func milliseconds(_ d: Duration) -> String {
        let tenths = d.components.seconds * 10_000 + d.components.attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func openAccessLog(_ config: Configuration, metrics: Metrics) throws -> AccessLogWriter? {
        guard let destination = config.accessLogDestination else { return nil }
        do { return try AccessLogWriter(destination: destination, onDropped: metrics.recordAccessLogDropped) } catch {
            throw StartupFailure(message: "access log: \(error)")
        }
    }

    private static func openEvents(_ config: Configuration, metrics: Metrics, log: Logger) throws -> EventStore {
        let events: EventStore
        do {
            var eventConfig = EventStoreConfig(directory: config.dataDir + "/events", instance: config.instanceID)
            eventConfig.dedupWindowHours = Double(config.dedupWindowHours)
            eventConfig.segmentMaxMillis = Int64(config.eventsSegmentMaxSeconds) * 1_000
            eventConfig.fsyncObserver = { seconds in metrics.recordEventCommit(fsyncNanoseconds: Int(seconds * 1e9)) }
            events = try EventStore(config: eventConfig)
        } catch .instanceLocked(let path) {
            throw StartupFailure(message: "instance_id \(config.instanceID) is already running (\(path) is locked)", exitCode: 2)
        } catch {
            throw StartupFailure(message: error.description)
        }
        if !events.repairedSegments.isEmpty {
            log.notice("repaired torn event segments: \(events.repairedSegments.joined(separator: ", "))")
        }
        return events
    }

    private static func startServer(_ config: Configuration, handler: RouterBox, metrics: Metrics, accessLog: AccessLogWriter?,
                                    servedToday: ServedToday) throws -> (HTTPServer, Int) {
        let server = HTTPServer(
            configuration: ServerConfiguration(
                host: config.listen.host, port: config.listen.port, workers: config.workers,
                maxConnections: config.limits.maxConnections, maxHeaderBytes: config.limits.maxHeaderBytes,
                headerTimeout: Double(config.limits.headerTimeoutSeconds),
                idleTimeout: Double(config.limits.idleTimeoutSeconds),
                bodyTimeout: Double(config.limits.bodyTimeoutSeconds)),
            handler: handler,
            observer: ExchangeRecorder(metrics: metrics, accessLog: accessLog, instance: config.instanceID, servedToday: servedToday))
        let port: Int
        do { port = try server.start() } catch {
            throw StartupFailure(message: "cannot listen on \(config.listen): \(error.message)")
        }
        metrics.setOpenConnectionsSource { server.openConnections }
        return (server, port)
    }

    private static func adminToken(_ config: Configuration, log: Logger) throws -> AdminToken? {
        switch config.adminToken {
        case nil:
            log.info("no admin token configured: the admin API answers 404")
            return nil
        case .token(let t):
            return AdminToken(t)
        case .file(let path):
            do throws(TokenFileError) {
                let loaded = try TokenFile.loadOrCreate(path: path)
                if loaded.created { log.notice("created admin token file \(path) (mode 0600)") }
                return AdminToken(loaded.token)
            } catch {
                throw StartupFailure(message: error.description)
            }
        }
    }

    private static func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw StartupFailure(message: "cannot create directory \(path): \(String(cString: strerror(errno)))")
        }
    }
}

/// The handler the engine holds: routes need the bound port (public URL), so they are
/// installed right after `start()`; until then every request is answered 503. Installed once,
/// so a request reads it with one atomic load, not a lock.
final class RouterBox: HTTPHandler {
    private final class Installed: Sendable {
        let router: any HTTPHandler
        init(_ router: any HTTPHandler) { self.router = router }
    }

    private let router = OnceReference<Installed>()

    /// modeld's `Router`, or an ingest replica's `IngestRouter`; once: a second would be ignored.
    func install(_ r: any HTTPHandler) { _ = router.storeIfNil(Installed(r)) }

    func handle(_ head: RequestHead, _ exchange: Exchange) -> HeadDecision {
        guard let r = router.load() else {
            return .respond(Response.error(503, "unavailable", "starting up"))
        }
        return r.router.handle(head, exchange)
    }
}

func printError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
