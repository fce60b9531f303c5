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
        return name
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
        !name.allSatisfy(\.isWhitespace) && !name.unicodeScalars.contains(where: breaksLine)
    }
}
