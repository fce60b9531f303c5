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
        if let bad = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let code = String(format: "U+%04X", bad.value)
            throw error("the name holds a control character (\(code))", hint: "names are shown on one line: use letters, digits, spaces and punctuation")
        }
        return name
    }
}
