import Foundation

extension Field {
    /// A name the outputs show (a request's, a fault site's, the scenario's): text with something
    /// to see, on one line. An empty or blank name leaves a table column and a failure line
    /// without their subject; a line break or a tab splits the table, the timeline and a shrunk
    /// file's comments.
    func name() throws(ScenarioError) -> String {
        let name = try text()
        guard !name.allSatisfy({ $0.isWhitespace }) else {
            throw error("the name is empty", hint: "give it a name the outputs can show, or leave the key out for the default one")
        }
        if let bad = name.unicodeScalars.first(where: Self.breaksLine) {
            let code = String(format: "U+%04X", bad.value)
            throw error("the name holds a line break or another control character (\(code))", hint: "names are shown on one line: use letters, digits, spaces and punctuation")
        }
        if let bad = name.unicodeScalars.first(where: Self.hidesOrReorders) {
            let code = String(format: "U+%04X", bad.value)
            throw error("the name holds an invisible character that reorders or hides text (\(code))",
                        hint: "a direction override would turn the failure line it is shown in around: use letters, digits, spaces and punctuation")
        }
        return name
    }

    /// A bidirectional control (an override or isolate, whose effect runs past the name into the
    /// line it is shown in) or an invisible space (a name of it alone is an empty lane).
    static func hidesOrReorders(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200B, 0x200E, 0x200F, 0x202A...0x202E, 0x2060, 0x2066...0x2069, 0xFEFF: return true
        default: return false
        }
    }

    /// A control character, or a line or paragraph separator (U+2028, U+2029: YAML breaks a
    /// line there too).
    static func breaksLine(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// Whether `name` could be given as a name: something to see, on one line.
    static func isShowableName(_ name: String) -> Bool {
        !name.allSatisfy(\.isWhitespace) && !name.unicodeScalars.contains(where: { breaksLine($0) || hidesOrReorders($0) })
    }
}
