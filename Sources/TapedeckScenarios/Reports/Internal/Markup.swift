/// Text from user files made safe for the places reports put it: XML/HTML markup (escaped, and
/// without the characters XML 1.0 forbids) and terminals (no control characters), plus display
/// widths for fitting names into columns.
enum Markup {
    /// `text` as XML and HTML character data or a quoted attribute value: `& < > " '` become
    /// references, and characters XML 1.0 does not allow (C0 controls other than tab, newline and
    /// carriage return; U+FFFE, U+FFFF) become U+FFFD, so the standalone SVG always parses.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    escaped += "\u{FFFD}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
    }

    /// `text` on one terminal line: control characters (newlines, escapes) become `�`, so a name
    /// cannot move the cursor or break a lane.
    static func terminalSafe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? "\u{FFFD}" : $0 }))
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Columns `text` takes in a terminal (or in a monospaced font): East Asian wide characters and
    /// emoji take two, combining marks none.
    static func displayWidth(_ text: String) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    /// Columns one character takes.
    static func width(of character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if first.properties.generalCategory == .nonspacingMark || first.properties.generalCategory == .enclosingMark { return 0 }
        if character.unicodeScalars.count > 1 && first.properties.isEmojiPresentation { return 2 }
        return isWide(first.value) ? 2 : 1
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `width` columns, ending in `…` when it was cut (then `suffix`, a
    /// repeat's `#2`, when `text` ends with it and there is room); and whether it was cut.
    static func truncated(_ text: String, toWidth width: Int, keeping suffix: String = "") -> (text: String, cut: Bool) {
        guard displayWidth(text) > width else { return (text, false) }
        guard width > 1 else { return (width == 1 ? "…" : "", true) }
        // A suffix to keep (a repeat's `#2`) stays after the `…` when there is room for it.
        let tail = !suffix.isEmpty && text.hasSuffix(suffix) && displayWidth(suffix) + 2 <= width ? suffix : ""
        let room = width - 1 - displayWidth(tail)
        var kept = ""
        var used = 0
        for character in text {
            let next = Self.width(of: character)
            if used + next > room { break }
            kept.append(character)
            used += next
        }
        return (kept + "…" + tail, true)
    }

    /// `text` padded with spaces to `width` columns (unchanged when it is already that wide).
    static func padded(_ text: String, toWidth width: Int) -> String {
        let missing = width - displayWidth(text)
        return missing > 0 ? text + String(repeating: " ", count: missing) : text
    }
}
