import Foundation
import TapedeckCassettes

// CORS preflights a recording left out. Chromium's HAR (and so Playwright's) never lists the
// `OPTIONS` preflight a browser sends before a cross-origin request that is not "simple" (a JSON
// POST, a custom header): replayed to a browser, that preflight would miss, and the page's fetch
// would fail before its recorded request was ever asked for.
extension ReplayService {
    /// The answer to a CORS preflight nothing recorded matches, built from the recorded answer
    /// to the request it asks about (`Access-Control-Request-Method` on the same path): allowed
    /// for the origin that answer allowed, the method and headers the browser asks for, with
    /// credentials when that answer allowed them. Nil when `request` is no preflight, when no
    /// answer recorded for its method on its origin and path carries `Access-Control-Allow-Origin`
    /// (a plain miss then), and with `--on-miss passthrough` (the live origin answers it).
    func preflightAnswer(_ request: IncomingRequest, url: URL) -> (answer: ServerAnswer, entry: Int)? {
        // With --on-miss passthrough the live origin answers preflights, as it answers the rest.
        if case .passthrough = options.onMiss { return nil }
        guard request.method.uppercased() == "OPTIONS", let pageOrigin = request.headers.value(for: "Origin"),
              let asked = request.headers.value(for: "Access-Control-Request-Method")?.trimmingCharacters(in: .whitespaces), !asked.isEmpty
        else { return nil }
        for interaction in cassette.interactions where Self.answers(interaction, asked, url) {
            guard case let .response(response) = interaction.outcome,
                  let allowed = response.headers.value(for: "Access-Control-Allow-Origin") else { continue }
            var headers = [HeaderField("Access-Control-Allow-Origin", allowed), HeaderField("Access-Control-Allow-Methods", asked)]
            if let fields = request.headers.value(for: "Access-Control-Request-Headers"), !fields.isEmpty {
                headers.append(HeaderField("Access-Control-Allow-Headers", fields))
            }
            if let credentials = response.headers.value(for: "Access-Control-Allow-Credentials") {
                headers.append(HeaderField("Access-Control-Allow-Credentials", credentials))
            }
            headers.append(HeaderField("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"))
            var answer = ServerAnswer(status: 204, headers: headers)
            Self.reflectLoopbackOrigin(&answer, requestOrigin: pageOrigin)
            return (answer, interaction.index)
        }
        return nil
    }

    /// Whether `interaction` answers an `asked` request to `url`: a recorded one for that method,
    /// origin and path; a stub matching by pattern when its pattern matches that request.
    private static func answers(_ interaction: Interaction, _ asked: String, _ url: URL) -> Bool {
        if let pattern = interaction.pattern { return pattern.matches(RecordedRequest(method: asked, url: url)) }
        let recorded = interaction.request
        return recorded.method.uppercased() == asked.uppercased() && recorded.url.path == url.path
            && recorded.url.host?.lowercased() == url.host?.lowercased() && recorded.url.port == url.port
    }
}
