/// How the fault sites that fire at one point combine, as Toxiproxy's toxics stack: every
/// `latency` adds its delay, the first `bandwidth` paces the body, and the first site of any
/// other kind decides the answer — other kinds after it are not tried. One owner of the rule for
/// a scenario run (`FaultSites`) and for `tapedeck serve` (`SocketFaults`), so both combine alike.
///
/// ```swift
/// var stack = FaultStack()
/// for site in sites where stack.admits(site.kind) && fires(site) { apply(site); stack.fired(site.kind) }
/// ```
package struct FaultStack {
    private var decided = false
    private var paced = false

    /// An empty stack: nothing has fired at the point yet.
    package init() {}

    /// Whether a site of `kind` may still be tried at this point.
    package func admits(_ kind: FaultKind) -> Bool {
        switch kind {
        case .latency: true
        case .bandwidth: !paced
        default: !decided
        }
    }

    /// A site of `kind` fired.
    package mutating func fired(_ kind: FaultKind) {
        switch kind {
        case .latency: break
        case .bandwidth: paced = true
        default: decided = true
        }
    }
}
