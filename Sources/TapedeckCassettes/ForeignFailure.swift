public import Foundation

/// How a failed request that another tool recorded becomes a replayable failure: the tool's error
/// text (Chromium's `net::ERR_*`, Firefox's `NS_ERROR_*`, a proxy's message, a URLSession error
/// description) mapped to the `URLError` code a URLSession client would have received.
///
/// | recorded as | replayed as |
/// |---|---|
/// | aborted, cancelled (`net::ERR_ABORTED`, `NS_BINDING_ABORTED`) | `URLError.cancelled` |
/// | connection refused, host unreachable (`net::ERR_ADDRESS_UNREACHABLE`), unable to connect (BrowserMob), a proxy or tunnel not reached, errno 111/61/113/65 | `URLError.cannotConnectToHost` |
/// | name not resolved, unknown host, other DNS failures (`net::ERR_DNS_*`) | `URLError.cannotFindHost` |
/// | timed out, errno 110/60 (ETIMEDOUT on Linux/macOS) | `URLError.timedOut` |
/// | reset, closed, empty or incomplete response, HTTP/2 protocol errors — also after a status (Chromium's `ERR_CONTENT_LENGTH_MISMATCH`) | `URLError.networkConnectionLost` |
/// | offline, network unreachable (errno 101/51) | `URLError.notConnectedToInternet` |
/// | the server's certificate (`net::ERR_CERT_*`, the older `net::ERR_INSECURE_RESPONSE`, Firefox's `SEC_ERROR_*`, `MOZILLA_PKIX_ERROR_*`) | `URLError.serverCertificateUntrusted` |
/// | a client certificate needed or refused (`net::ERR_SSL_CLIENT_AUTH_CERT_NEEDED`, `net::ERR_BAD_SSL_CLIENT_AUTH_CERT`) | `URLError.clientCertificateRequired`, `.clientCertificateRejected` |
/// | other TLS problems (`net::ERR_SSL_*`, `SSL_ERROR_*`) | `URLError.secureConnectionFailed` |
/// | too many redirects | `URLError.httpTooManyRedirects` |
/// | undecodable content | `URLError.cannotDecodeContentData` |
/// | invalid response | `URLError.badServerResponse` |
/// | the client went away before an answer (mitmproxy's `Client disconnected.`) | `URLError.timedOut` |
/// | anything else: blocked by the client or by CORS (`net::ERR_FAILED`), status 0 or -1 without a reason (Firefox gives none) | `URLError.unknown` |
///
/// The original text is kept as the failure's message, and replayed in the error's description.
public enum ForeignFailure {
    /// The failure for an entry recorded with `status` (0, -1 or another non-HTTP value) and the
    /// tool's `text` (nil when it gave none).
    public static func failure(text: String?, status: Int) -> RecordedFailure {
        let message = text ?? "no response recorded (status \(status))"
        return RecordedFailure(code: code(for: text).rawValue, message: message)
    }

    /// The `URLError` code for a tool's failure text (`URLError.Code.unknown` when nothing matches).
    public static func code(for text: String?) -> URLError.Code {
        guard let text = text?.lowercased(), !text.isEmpty else { return .unknown }
        for (needles, code) in table where needles.contains(where: text.contains) {
            return code
        }
        return .unknown
    }

    /// Checked in order: the first row with a matching fragment wins, so specific names come
    /// before the general words that also appear in them.
    private static let table: [([String], URLError.Code)] = [
        (["err_aborted", "ns_binding_aborted", "cancelled", "canceled", "aborted by", "operation was aborted"], .cancelled),
        (["err_name_not_resolved", "err_name_resolution_failed", "ns_error_unknown_host", "name or service not known",
          "nodename nor servname", "getaddrinfo", "no address associated", "hostname could not be found",
          "cannot find host", "could not resolve host", "name resolution", "unable to resolve host", "unknownhostexception",
          // Chromium's other DNS failures (ERR_DNS_TIMED_OUT, ERR_DNS_SERVER_FAILED…) before the timeout row.
          "err_dns_", "ns_error_unknown_proxy_host", "dns lookup", "errno -2]", "errno -3]", "errno 8]",
          // Erlang's (ExVCR's recorded reasons): `:nxdomain`.
          "nxdomain"], .cannotFindHost),
        // mitmproxy's "[Errno N] Connect call failed": 110 (Linux) and 60 (macOS) are ETIMEDOUT,
        // 111 and 61 ECONNREFUSED, 113 and 65 EHOSTUNREACH, 101 and 51 ENETUNREACH.
        (["errno 110]", "errno 60]"], .timedOut),
        (["errno 101]", "errno 51]"], .notConnectedToInternet),
        (["err_connection_refused", "ns_error_connection_refused", "connection_refused", "connection refused", "errno 111]", "errno 61]",
          "errno 113]", "errno 65]", "no route to host", "could not connect to the server",
          "cannot connect to host", "couldn't connect", "unable to connect", "err_connection_failed", "connect call failed",
          // Chromium's EHOSTUNREACH (errno 113 above), and proxies or tunnels that could not be reached.
          "err_address_unreachable", "err_proxy_connection_failed", "err_tunnel_connection_failed",
          // Erlang's: `:econnrefused`, httpc's `failed_connect`, `:ehostunreach`.
          "econnrefused", "failed_connect", "ehostunreach"], .cannotConnectToHost),
        // mitmproxy's "Client disconnected." for a request the upstream never answered: the client
        // gave up waiting, which a URLSession client experiences as its timeout.
        (["err_timed_out", "err_connection_timed_out", "ns_error_net_timeout", "timed out", "timeout", "client disconnected"], .timedOut),
        (["err_internet_disconnected", "err_network_access_denied", "ns_error_offline",
          "network is unreachable", "offline", "not connected to the internet"], .notConnectedToInternet),
        (["err_too_many_redirects", "ns_error_redirect_loop", "too many redirects"], .httpTooManyRedirects),
        // Client certificates first: their names hold "cert" and "ssl" too.
        (["err_ssl_client_auth_cert_needed"], .clientCertificateRequired),
        (["err_bad_ssl_client_auth_cert", "ssl_error_bad_cert_alert", "ssl_error_revoked_cert_alert",
          "ssl_error_expired_cert_alert"], .clientCertificateRejected),
        // The server's certificate: Chromium's ERR_CERT_* and older ERR_INSECURE_RESPONSE, a pinned
        // key missing from the chain; Firefox's SEC_ERROR_*, MOZILLA_PKIX_ERROR_* and wrong-domain error.
        (["err_cert_", "err_insecure_response", "err_ssl_pinned_key_not_in_cert_chain", "err_ssl_server_cert_bad_format",
          "sec_error_", "mozilla_pkix_error_", "ssl_error_bad_cert_domain", "certificate"], .serverCertificateUntrusted),
        (["err_ssl_", "ssl_error_", "ns_error_net_inadequate_security", "tls", "ssl"], .secureConnectionFailed),
        (["err_content_decoding_failed", "ns_error_invalid_content_encoding", "cannot decode"], .cannotDecodeContentData),
        (["err_connection_reset", "err_connection_closed", "err_connection_aborted", "err_empty_response",
          "err_incomplete_chunked_encoding", "err_content_length_mismatch", "err_http2_protocol_error", "err_http2_ping_failed",
          "err_http2_server_refused_stream", "err_spdy_protocol_error", "err_quic_protocol_error", "err_network_changed",
          "err_socket_not_connected", "ns_error_net_reset", "ns_error_net_interrupt", "ns_error_net_empty_response",
          "ns_error_net_partial_transfer", "connection reset", "reset by peer", "connection closed", "closed connection", "peer closed",
          "server disconnected", "broken pipe", "connection was lost", "connection lost", "unexpected eof", "errno 104]",
          "errno 54]", "econnreset", ":closed"], .networkConnectionLost),
        (["err_invalid_response", "err_invalid_http_response", "err_response_headers", "err_invalid_chunked_encoding",
          "ns_error_corrupted_content", "bad server response",
          "cannot parse http", "bad http response", "invalid http", "malformed"], .badServerResponse),
    ]
}
