/// What makes two failing runs fail "the same way": the same set of failed checks — each an
/// expectation or an invariant, on the same request (or on none), by the same check name. Messages
/// (which carry times and counts) are not part of it.
///
/// ```swift
/// let identity = FailureIdentity(outcome)
/// let same = FailureIdentity(replayed) == identity
/// ```
public struct FailureIdentity: Hashable, Sendable, CustomStringConvertible {
    /// One failed check.
    public struct Check: Hashable, Sendable, Comparable, CustomStringConvertible {
        /// Expectation or invariant.
        public var kind: Failure.Kind
        /// The request it is about, if any.
        public var request: String?
        /// The check's name (`status`, `attempts`, `completesOnce`, ...).
        public var check: String

        /// Ordered by kind, request and check.
        public static func < (lhs: Check, rhs: Check) -> Bool {
            (lhs.kind.rawValue, lhs.request ?? "", lhs.check) < (rhs.kind.rawValue, rhs.request ?? "", rhs.check)
        }

        /// `expectation items attempts`.
        public var description: String {
            [kind.rawValue, request, check].compactMap { $0 }.joined(separator: " ")
        }
    }

    /// The failed checks (empty: the run passed).
    public var checks: Set<Check>

    /// The identity of `outcome`'s failures.
    public init(_ outcome: Outcome) {
        checks = Set(outcome.failures.map { Check(kind: $0.kind, request: $0.request, check: $0.check) })
    }

    /// Whether the run passed.
    public var isPass: Bool { checks.isEmpty }

    /// The checks, sorted, joined by `; `.
    public var description: String {
        checks.sorted().map(\.description).joined(separator: "; ")
    }
}
