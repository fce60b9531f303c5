import Foundation

/// A request body from HAR `postData`: its `text` when there is one, else a body rebuilt from
/// `params` (what browsers and proxies list for forms). A rebuilt body matters only to `body:`
/// match rules; it is as close to what was sent as the params allow.
///
/// - `text` wins, unless it is empty while `params` are not (ZAP writes `text: ""` beside the
///   fields).
/// - `multipart/form-data` params become a multipart body with the boundary of the `mimeType`
///   (or the request's `Content-Type`), one part per param, with its file name and type.
/// - Other params become an `application/x-www-form-urlencoded` body. A name or value that
///   already reads as form-encoded (only letters, digits, `*-._`, `+` and `%XX`, with at least
///   one `+` or `%XX`: DevTools and k6 inputs list them as sent) is kept as it is; anything else is
///   encoded as a browser does (space as `+`). A param without a value is its name alone, as it
///   stands (Fiddler lists a JSON body sent as a form as one nameless param).
/// - A param whose value is not a string (chrome-har parses JSON bodies into params with objects as
///   values) means no body can be rebuilt: the request has none, with a note.
enum HARPostBody {
    /// The body, and a note when it is a guess or was left out. `sizes` are the body's sizes the
    /// file records (``HARCodec/recordedSizes(bodySize:sizeField:headers:)``), read with `text`.
    static func body(_ postData: HARPostData, contentType: String, writer: HARWriter, sizes: [HARBodyText.RecordedSize] = [],
                     field: String, bad: (String, String) -> CassetteError) throws(CassetteError) -> (data: Data?, note: String?) {
        let params = postData.params ?? []
        if let text = postData.text, !(text.isEmpty && !params.isEmpty) {
            // HAR defines no `encoding` for requests: another tool's own value (not base64) is no
            // reason to lose the entry; the text is read as it stands, with a note.
            let encoding = postData.encoding?.lowercased()
            let known = encoding.map { ["", "utf-8", "utf8", "base64"].contains($0) } ?? true
            let read = try HARCodec.bodyBytes(text, encoding: known ? postData.encoding : nil, isBinary: nil, contentType: contentType,
                                              writer: writer, sizes: sizes, field: field, bad: bad)
            guard !known, let encoding else { return read }
            let note = "postData.encoding '\(encoding)' is not one Tapedeck reads (only base64 is), so the text is the body as it stands"
            return (read.data, [read.note, note].compactMap { $0 }.joined(separator: "; "))
        }
        guard !params.isEmpty else { return (nil, nil) }
        if let odd = params.firstIndex(where: \.hasNonStringValue) {
            return (nil, "postData.params[\(odd)] has a value that is not a string (a JSON body taken apart into params), "
                        + "so no request body is rebuilt; match this entry without a body rule")
        }
        let type = HARBodyText.essence(contentType)
        if type == "multipart/form-data", let boundary = boundary(in: contentType) {
            return (multipart(params, boundary: boundary), nil)
        }
        return (Data(formEncoded(params).utf8), nil)
    }

    /// The `boundary` parameter of a multipart media type.
    static func boundary(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: " \t\""))
            return value.isEmpty ? nil : value
        }
        return nil
    }

    static func multipart(_ params: [HARParam], boundary: String) -> Data {
        var body = Data()
        for param in params {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(param.name)\""
            if let fileName = param.fileName { head += "; filename=\"\(fileName)\"" }
            head += "\r\n"
            if let type = param.contentType, !type.isEmpty { head += "Content-Type: \(type)\r\n" }
            body.append(Data((head + "\r\n").utf8))
            body.append(Data((param.value ?? "").utf8))
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return body
    }

    static func formEncoded(_ params: [HARParam]) -> String {
        params.map { param in
            guard let value = param.value else { return param.name }
            return formComponent(param.name) + "=" + formComponent(value)
        }.joined(separator: "&")
    }

    /// `text` as it goes in a form body: kept when it already reads as encoded, else encoded.
    static func formComponent(_ text: String) -> String {
        isFormEncoded(text) ? text : formEncode(text)
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == UInt8(ascii: "*") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// Only plain characters, `+` and `%XX`, with at least one `+` or `%XX`.
    static func isFormEncoded(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var escaped = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) else { return false }
                escaped = true
                index += 3
                continue
            }
            if byte == UInt8(ascii: "+") {
                escaped = true
            } else if !isPlain(byte) {
                return false
            }
            index += 1
        }
        return escaped
    }

    /// The `application/x-www-form-urlencoded` serialisation of `text` (UTF-8, space as `+`).
    static func formEncode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            if isPlain(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else if byte == 0x20 {
                result.append("+")
            } else {
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }
}

extension String {
    /// Zeros in front, up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
