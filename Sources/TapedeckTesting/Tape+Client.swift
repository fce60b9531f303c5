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
    public func makeClientTransport() -> DefaultTransport {
        DefaultTransport(provider: harness, scheduler: scheduler, drive: { try await self.run() })
    }
}
