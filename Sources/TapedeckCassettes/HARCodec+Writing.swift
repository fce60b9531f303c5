import Foundation
import TapedeckHTTP

// Writing one interaction as a HAR entry: the request, the response (or the transport failure),
// the timings, and how bodies become HAR text.
extension HARCodec {
    /// `interaction` as a HAR entry (its index in `_index`, a failure — or a response's
    /// interruption — in `_error`).
    package static func entry(for interaction: Interaction, options: WriteOptions = WriteOptions()) -> HAREntry {
        let request = interaction.request
        var postData: HARPostData?
        if let body = request.body, !body.isEmpty {
            let (text, encoding) = bodyText(body, preferBase64: false)
            postData = HARPostData(mimeType: request.headers.value(for: "Content-Type") ?? "", text: text, encoding: encoding)
        }
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let harRequest = HARRequest(
            method: request.method, url: request.url.absoluteString,
            headers: request.headers.map { HARNameValue(name: $0.name, value: $0.value) },
            queryString: query.map { HARNameValue(name: $0.name, value: $0.value ?? "") },
            postData: postData, bodySize: request.body?.count ?? 0)

        let harResponse: HARResponse
        var transportError: HARTransportError?
        switch interaction.outcome {
        case let .response(response):
            var written = HARResponse(
                status: response.status, statusText: response.statusText,
                headers: response.headers.map { HARNameValue(name: $0.name, value: $0.value) },
                content: content(of: response),
                redirectURL: response.headers.value(for: "Location") ?? "", bodySize: response.body.count)
            written.chunks = response.chunks.map { chunks in
                chunks.map { HARChunk(bytes: $0.bytes, time: options.normalizesTimings ? 0 : milliseconds($0.at)) }
            }
            if let interruption = response.interruption {
                // A response that broke off: the status and the bytes that came, and the failure
                // after them — `response._error` for DevTools-like readers, the entry's `_error`
                // (code and domain) for Tapedeck.
                written.failureText = interruption.message
                transportError = HARTransportError(code: interruption.code, domain: interruption.domain, message: interruption.message)
            }
            harResponse = written
        case let .failure(failure):
            var failed = HARResponse(status: 0, statusText: "", headers: [],
                                     content: HARContent(size: 0, mimeType: "", text: nil, encoding: nil, bodyForm: nil),
                                     redirectURL: "", bodySize: -1)
            // For other tools (DevTools shows a failed request's `response._error`).
            failed.failureText = failure.message
            harResponse = failed
            transportError = HARTransportError(code: failure.code, domain: failure.domain, message: failure.message)
        }

        let timings = options.normalizesTimings ? nil : interaction.timings
        let harTimings = HARTimings(
            connect: timings?.connect.map(milliseconds) ?? -1,
            send: timings.map { milliseconds($0.send) } ?? 0,
            wait: timings.map { milliseconds($0.wait) } ?? 0,
            receive: timings.map { milliseconds($0.receive) } ?? 0)
        let total = [harTimings.connect ?? -1, harTimings.send, harTimings.wait, harTimings.receive].filter { $0 > 0 }.reduce(0, +)
        return HAREntry(
            startedDateTime: options.normalizesTimings ? "1970-01-01T00:00:00.000Z" : interaction.startedDateTime,
            time: (total * 1_000).rounded() / 1_000, request: harRequest, response: harResponse, timings: harTimings,
            index: interaction.index, error: transportError)
    }

    /// A response body as HAR content. A body kept as sent with a content coding (`_bodyForm:
    /// "wire"`) is written as HAR 1.2 says — `text` the decoded body, `size` its length,
    /// `compression` the bytes the coding saved — and the bytes as sent go in `_wire`, so a replay
    /// sends them byte for byte while other tools (Playwright, mitmproxy, DevTools) read the text.
    /// A wire body that does not decode (cut short, corrupt) stays as it was: base64 in `text`.
    static func content(of response: RecordedResponse) -> HARContent {
        let type = response.headers.value(for: "Content-Type") ?? ""
        guard !response.body.isEmpty else {
            return HARContent(size: 0, mimeType: type, text: nil, encoding: nil, bodyForm: response.bodyForm.rawValue)
        }
        let coding = response.headers.value(for: "Content-Encoding")
        let compressed = response.bodyForm == .wire && ContentCoding.isDecodable(coding)
        if compressed, let decoded = try? ContentCoding.decode(response.body, contentEncoding: coding, limit: Redactor.inspectionLimit) {
            let (text, encoding) = bodyText(decoded, preferBase64: false)
            var content = HARContent(size: decoded.count, mimeType: type, text: text, encoding: encoding, bodyForm: response.bodyForm.rawValue)
            content.compression = decoded.count - response.body.count
            content.wire = response.body.base64EncodedString()
            return content
        }
        let (text, encoding) = bodyText(response.body, preferBase64: compressed)
        return HARContent(size: response.body.count, mimeType: type, text: text, encoding: encoding, bodyForm: response.bodyForm.rawValue)
    }

    /// Milliseconds, to the microsecond (so the printed number is short and stable).
    static func milliseconds(_ duration: Duration) -> Double {
        (duration.timeInterval * 1_000_000).rounded() / 1_000
    }

    /// A body as HAR text: plain when it is printable UTF-8 (no control characters but tab, line
    /// feed and carriage return), else base64.
    static func bodyText(_ body: Data, preferBase64: Bool) -> (String, String?) {
        if !preferBase64, isPrintable(body), let text = String(validating: body, as: UTF8.self) {
            return (text, nil)
        }
        return (body.base64EncodedString(), "base64")
    }

    private static func isPrintable(_ body: Data) -> Bool {
        body.withUnsafeBytes { bytes in
            !bytes.contains { byte in byte == 0x7F || (byte < 0x20 && byte != 0x0A && byte != 0x0D && byte != 0x09) }
        }
    }
}
