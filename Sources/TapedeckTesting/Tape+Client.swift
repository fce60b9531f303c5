public import TapedeckClient

extension Tape {
    /// A `DefaultTransport` over this tape: Alamofire-style `Session()`, `Session.default` and `AF`
    /// made while it is `DefaultTransport.current` use the tape's harness and scheduler, and
    /// awaiting their `DataTask`s runs the tape (`run()`). The `.cassette` trait installs one for
    /// the test body, and XCTest's `useCassette` one for the test's duration; elsewhere, install
    /// it yourself:
    ///
    /// ```swift
    /// let tape = try Tape(cassette: URL(fileURLWithPath: "Cassettes/profile.har.gz"), mode: .replayOnly)
    /// try await DefaultTransport.$current.withValue(tape.makeClientTransport()) {
    ///     let profile = try await AF.request("https://api.example/me").serializingDecodable(Profile.self).value
    /// }
    /// ```
    ///
    /// A Session made under this transport belongs to this tape for good: kept past the test (a
    /// singleton, a `static let` client), awaiting its requests throws ``TapeError/finished(_:)``
    /// once the tape has finished, and the Session says so on standard error.
    public func makeClientTransport() -> DefaultTransport {
        DefaultTransport(provider: harness, scheduler: scheduler, drive: drive)
    }

    /// What runs this tape for a TapedeckClient `Session` made by hand: given as the Session's
    /// `drive`, awaiting its requests (`serializingDecodable(…).value`) runs the tape until they
    /// are answered. (Without it nothing runs the tape, and the await waits for good.)
    ///
    /// ```swift
    /// let session = Session(provider: tape.harness, scheduler: tape.scheduler, rootQueue: tape.rootQueue, drive: tape.drive)
    /// let profile = try await session.request("https://api.example/me").serializingDecodable(Profile.self).value
    /// ```
    public var drive: @Sendable () async throws -> Void {
        let cassette = cassetteURL.lastPathComponent
        return { [self] in
            if scheduler.hasEnded { throw TapeError.finished(cassette) }
            try await run()
        }
    }
}
