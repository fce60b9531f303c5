public import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import TapedeckHTTP

/// Routes for recording a signed-in session: cookies set on a redirect, a redirect whose
/// `Location` carries a token, a JSON page linking to the next one with a token in its URL, and a
/// `br`-coded body.
///
/// | path | answer |
/// |---|---|
/// | `/session/start` | 302 to `/session/whoami`, setting the cookie `deck=side-a-4411` |
/// | `/session/whoami` | JSON `{"signedIn": true}` when the request carries that cookie, else `false` |
/// | `/handoff` | 302 to `/session/whoami?token=handoff-7d1e&step=2` |
/// | `/pages/1` | JSON whose `next` is `/pages/2?access_token=page-secret-91&page=2` |
/// | `/brotli` | ``LoopbackServer/brotliJSON`` sent with `Content-Encoding: br` |
/// | `/login` (POST) | reads the body (compressed or not), answers `{"ok":true}` |
/// | `/twice-gzipped` | ``LoopbackServer/twiceGzippedJSON`` sent gzipped twice, `Content-Encoding: gzip, gzip` |
/// | `/prefs` | sets the cookies `theme=dark` and `sid=` ``LoopbackServer/sessionCookieValue`` |
extension LoopbackServer {
    /// The JSON `/twice-gzipped` sends, before its two codings.
    public static let twiceGzippedJSON = #"{"access_token":"tok-twice-5521x9","password":"hunter22secret"}"#

    /// The session cookie `/prefs` sets (token-shaped), beside `theme=dark`.
    public static let sessionCookieValue = "s3ss10n-7f2a9c41b8"

    static func addSessionRoutes(to router: Router<BasicRequestContext>) {
        router.post("login") { request, _ in
            _ = try await request.body.collect(upTo: 1_048_576)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"ok":true}"#)))
        }
        router.get("twice-gzipped") { _, _ in
            let body = try Zlib.compress(Zlib.compress(Data(twiceGzippedJSON.utf8), format: .gzip), format: .gzip)
            return Response(status: .ok, headers: [.contentType: "application/json", .contentEncoding: "gzip, gzip"],
                            body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.get("prefs") { _, _ in
            var headers = HTTPFields()
            headers.append(HTTPField(name: .contentType, value: "text/html"))
            headers.append(HTTPField(name: .setCookie, value: "theme=dark; Path=/"))
            headers.append(HTTPField(name: .setCookie, value: "sid=\(sessionCookieValue); Path=/; HttpOnly"))
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "<p>prefs</p>")))
        }
        router.get("session/start") { _, _ in
            Response(status: .found, headers: [.location: "/session/whoami", .setCookie: "deck=side-a-4411; Path=/"])
        }
        router.get("session/whoami") { request, _ in
            let signedIn = (request.headers[.cookie] ?? "").contains("deck=side-a-4411")
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: #"{"signedIn":\#(signedIn)}"#)))
        }
        router.get("handoff") { _, _ in
            Response(status: .found, headers: [.location: "/session/whoami?token=handoff-7d1e&step=2"])
        }
        router.get("pages/1") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(
                string: #"{"items":[1,2],"next":"/pages/2?access_token=page-secret-91&page=2"}"#)))
        }
        router.get("brotli") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json", .contentEncoding: "br"],
                     body: .init(byteBuffer: ByteBuffer(bytes: brotliBody)))
        }
    }

    /// The JSON `/brotli` sends, before compression (a client whose URLSession decodes `br` gets this).
    public static let brotliJSON = #"{"plan":"reel-to-reel","token":"brotli-session-7781","tracks":[1,2,3]}"#

    /// ``brotliJSON`` compressed with brotli (quality 5): 71 bytes.
    static let brotliBody: [UInt8] = [
        0x1B, 0x45, 0x00, 0x00, 0xC4, 0xDC, 0x56, 0xEA, 0x97, 0xB7, 0xA0, 0x06, 0x65, 0xA9, 0x8A, 0xC1,
        0x7F, 0x16, 0xE4, 0xE5, 0x07, 0x9B, 0xED, 0x79, 0xD8, 0x80, 0x13, 0x81, 0x30, 0x30, 0x0B, 0xC7,
        0xDB, 0xB1, 0xB8, 0x13, 0x1F, 0xCE, 0x89, 0x82, 0xC0, 0x55, 0x37, 0x1F, 0x63, 0x04, 0x21, 0xF1,
        0x09, 0xC1, 0xE5, 0x76, 0xF6, 0xE2, 0xD0, 0x88, 0x65, 0x2F, 0xD7, 0xDA, 0x92, 0xB1, 0x7C, 0xDE,
        0x4F, 0x40, 0x7A, 0xA2, 0x4C, 0x65, 0xFC,
    ]

    /// The bytes `/brotli` sends on the wire.
    public static var brotliWireBody: Data { Data(brotliBody) }
}
