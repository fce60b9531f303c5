import Foundation

// Reading a JSONPath expression into steps and filters (see JSONPath for what is read).

extension JSONPath {
    /// Reads an expression character by character; every method leaves `at` after what it read
    /// and returns nil when the text is not what it expects.
    struct Parser {
        let text: [Unicode.Scalar]
        var at = 0

        init(_ text: [Unicode.Scalar]) {
            self.text = text
        }

        private var current: Unicode.Scalar? { at < text.count ? text[at] : nil }

        private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            at + offset < text.count ? text[at + offset] : nil
        }

        private mutating func skipSpaces() {
            while let scalar = current, scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" { at += 1 }
        }

        private mutating func take(_ literal: String) -> Bool {
            let scalars = Array(literal.unicodeScalars)
            guard at + scalars.count <= text.count, Array(text[at..<at + scalars.count]) == scalars else { return false }
            at += scalars.count
            return true
        }

        /// The whole text as a path from `$` (a bare `name.other`, as some files write, reads from `$` too).
        mutating func wholePath() -> JSONPath? {
            if current != "$" {
                // Jayway reads `store.book` as `$.store.book`.
                guard let first = current, Self.isNameScalar(first) else { return nil }
                var path = JSONPath(steps: [])
                guard let name = name() else { return nil }
                path.steps.append(.child([.name(name)]))
                guard let rest = steps() else { return nil }
                path.steps += rest
                return at == text.count ? path : nil
            }
            at += 1
            guard let steps = steps(), at == text.count else { return nil }
            return JSONPath(steps: steps)
        }

        private mutating func steps() -> [Step]? {
            var steps: [Step] = []
            while let scalar = current {
                if scalar == ".", peek(1) == "." {
                    at += 2
                    if current == "[" {
                        guard let keys = bracketKeys() else { return nil }
                        steps.append(.descendants(keys))
                    } else if take("*") {
                        steps.append(.descendants([.all]))
                    } else {
                        guard let name = name() else { return nil }
                        steps.append(.descendants([.name(name)]))
                    }
                } else if scalar == "." {
                    at += 1
                    if take("*") {
                        steps.append(.child([.all]))
                        continue
                    }
                    guard let name = name() else { return nil }
                    if take("()") {
                        guard name == "length" || name == "size" else { return nil }
                        steps.append(.count)
                    } else {
                        steps.append(.child([.name(name)]))
                    }
                } else if scalar == "[" {
                    guard let step = bracket() else { return nil }
                    steps.append(step)
                } else {
                    break
                }
            }
            return steps
        }

        private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-" || scalar == "$" || scalar == "@"
                || scalar.value > 0x7F
        }

        private mutating func name() -> String? {
            let start = at
            while let scalar = current, Self.isNameScalar(scalar) { at += 1 }
            return at > start ? String(String.UnicodeScalarView(text[start..<at])) : nil
        }

        /// A bracketed step: keys, a slice or a filter.
        private mutating func bracket() -> Step? {
            let start = at
            at += 1
            skipSpaces()
            if current == "?" {
                at += 1
                skipSpaces()
                let parenthesised = take("(")
                guard let filter = orFilter() else { return nil }
                skipSpaces()
                if parenthesised {
                    guard take(")") else { return nil }
                    skipSpaces()
                }
                return take("]") ? .filter(filter) : nil
            }
            // A slice has a colon before the closing bracket.
            var probe = at
            while probe < text.count, text[probe] != "]", text[probe] != ":", text[probe] != "'", text[probe] != "\"" { probe += 1 }
            if probe < text.count, text[probe] == ":" {
                let from = integer()
                guard take(":") else { return nil }
                let to = integer()
                var step = 1
                if take(":") { step = integer() ?? 1 }
                skipSpaces()
                return take("]") ? .slice(from: from, to: to, step: step) : nil
            }
            at = start
            return bracketKeys().map { .child($0) }
        }

        /// `['a', "b"]`, `[0, -1]` or `[*]`.
        private mutating func bracketKeys() -> [Key]? {
            guard take("[") else { return nil }
            var keys: [Key] = []
            repeat {
                skipSpaces()
                if take("*") {
                    keys.append(.all)
                } else if current == "'" || current == "\"" {
                    guard let name = quoted() else { return nil }
                    keys.append(.name(name))
                } else if let index = integer() {
                    keys.append(.index(index))
                } else {
                    return nil
                }
                skipSpaces()
            } while take(",")
            return take("]") && !keys.isEmpty ? keys : nil
        }

        private mutating func integer() -> Int? {
            skipSpaces()
            let start = at
            if current == "-" { at += 1 }
            while let scalar = current, ("0"..."9").contains(scalar) { at += 1 }
            let value = Int(String(String.UnicodeScalarView(text[start..<at])))
            if value == nil { at = start }
            skipSpaces()
            return value
        }

        private mutating func quoted() -> String? {
            guard let quote = current else { return nil }
            at += 1
            var out = String.UnicodeScalarView()
            while let scalar = current, scalar != quote {
                if scalar == "\\", let escaped = peek(1) {
                    out.append(escaped == "n" ? "\n" : escaped == "t" ? "\t" : escaped)
                    at += 2
                } else {
                    out.append(scalar)
                    at += 1
                }
            }
            guard take(String(quote)) else { return nil }
            return String(out)
        }

        // MARK: Filters

        private mutating func orFilter() -> Filter? {
            guard var left = andFilter() else { return nil }
            while true {
                skipSpaces()
                guard take("||") else { return left }
                guard let right = andFilter() else { return nil }
                left = .or(left, right)
            }
        }

        private mutating func andFilter() -> Filter? {
            guard var left = unaryFilter() else { return nil }
            while true {
                skipSpaces()
                guard take("&&") else { return left }
                guard let right = unaryFilter() else { return nil }
                left = .and(left, right)
            }
        }

        private mutating func unaryFilter() -> Filter? {
            skipSpaces()
            if current == "!", peek(1) != "=" {
                at += 1
                return unaryFilter().map { .not($0) }
            }
            if current == "(" {
                at += 1
                guard let inner = orFilter() else { return nil }
                skipSpaces()
                return take(")") ? inner : nil
            }
            guard let left = operand() else { return nil }
            skipSpaces()
            for operation in ["==", "!=", "<=", ">=", "=~", "<", ">"] where take(operation) {
                // JavaScript's strict forms read the same.
                if operation == "==" || operation == "!=" { _ = take("=") }
                guard let right = operand() else { return nil }
                return .compare(left, operation, right)
            }
            for operation in ["nin", "in", "size", "empty", "contains", "anyof", "noneof", "subsetof"] {
                let start = at
                if take(operation), current == " " || current == "[" || current == "'" || current == "\"" {
                    guard let right = operand() else { return nil }
                    return .compare(left, operation, right)
                }
                at = start
            }
            return .exists(left)
        }

        private mutating func operand() -> Operand? {
            skipSpaces()
            guard let scalar = current else { return nil }
            switch scalar {
            case "@", "$":
                at += 1
                guard let steps = steps() else { return nil }
                return .path(fromRoot: scalar == "$", JSONPath(steps: steps))
            case "'", "\"":
                return quoted().map { .string($0) }
            case "/":
                at += 1
                var pattern = String.UnicodeScalarView()
                while let each = current, each != "/" {
                    if each == "\\", let escaped = peek(1), escaped == "/" {
                        pattern.append("/")
                        at += 2
                        continue
                    }
                    pattern.append(each)
                    at += 1
                }
                guard take("/") else { return nil }
                var ignoringCase = false
                while let flag = current, flag.properties.isAlphabetic {
                    if flag == "i" { ignoringCase = true }
                    at += 1
                }
                return .regex(String(pattern), ignoringCase: ignoringCase)
            case "[":
                at += 1
                var operands: [Operand] = []
                skipSpaces()
                if take("]") { return .list([]) }
                repeat {
                    guard let each = operand() else { return nil }
                    operands.append(each)
                    skipSpaces()
                } while take(",")
                return take("]") ? .list(operands) : nil
            default:
                if take("true") { return .boolean(true) }
                if take("false") { return .boolean(false) }
                if take("null") { return .null }
                let start = at
                while let each = current, ("0"..."9").contains(each) || each == "-" || each == "+" || each == "." || each == "e" || each == "E" { at += 1 }
                guard let number = Double(String(String.UnicodeScalarView(text[start..<at]))) else { return nil }
                return .number(number)
            }
        }
    }
}
