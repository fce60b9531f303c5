import Foundation
import TapedeckCassettes

// The `client` section: queues, set-up, retry, validation, auth, timeouts, redirects.
extension ScenarioReader {
    func client(_ field: Field) throws(ScenarioError) -> ClientSetup {
        let keys = try field.mapping(["queues", "setup", "retry", "validate", "auth", "timeouts", "redirects", "metricsGrace", "headers",
                                      "provider"])
        var client = ClientSetup()
        try keys.read("queues") { (queues) throws(ScenarioError) in
            client.queues = ClientSetup.Queues(rawValue: try queues.choice(ClientSetup.Queues.allCases.map(\.rawValue)))!
        }
        try keys.read("setup") { (setup) throws(ScenarioError) in client.setup = ClientSetup.Setup(rawValue: try setup.choice(["lazy", "eager"]))! }
        try keys.read("retry") { (retry) throws(ScenarioError) in client.retry = try self.retry(retry) }
        try keys.read("validate") { (validate) throws(ScenarioError) in client.validation = try validation(validate) }
        try keys.read("auth") { (auth) throws(ScenarioError) in client.authenticates = try auth.bool() }
        try keys.read("timeouts") { (timeouts) throws(ScenarioError) in
            let values = try timeouts.mapping(["request", "resource"])
            client.requestTimeout = try values["request"]?.positiveDuration(leaveOut: "write e.g. 10s, or leave 'request' out for URLSession's 60 s")
            client.resourceTimeout = try values["resource"]?.positiveDuration(leaveOut: "write e.g. 30s, or leave 'resource' out for URLSession's 7 days")
        }
        try keys.read("redirects") { (redirects) throws(ScenarioError) in
            client.followsRedirects = try redirects.choice(["follow", "doNotFollow"]) == "follow"
        }
        try keys.read("metricsGrace") { (grace) throws(ScenarioError) in client.metricsGracePeriod = try grace.duration() }
        try keys.read("headers") { (headers) throws(ScenarioError) in client.headers = try self.headers(headers) }
        try keys.read("provider") { (provider) throws(ScenarioError) in client.provider = try self.provider(provider) }
        return client
    }

    private func retry(_ field: Field) throws(ScenarioError) -> RetrySetup? {
        if field.isScalar {
            return try field.bool() ? RetrySetup() : nil
        }
        let keys = try field.mapping(["limit", "base", "scale", "methods", "statuses", "errorCodes", "honourRetryAfter", "retryAfterLimit"])
        var retry = RetrySetup()
        try keys.read("limit") { (limit) throws(ScenarioError) in retry.limit = try limit.int(in: 0...100) }
        try keys.read("base") { (base) throws(ScenarioError) in retry.base = try base.int(in: 2...100) }
        try keys.read("scale") { (scale) throws(ScenarioError) in
            retry.scale = try scale.double()
            guard retry.scale >= 0 else { throw scale.error("the scale must not be negative") }
        }
        try keys.read("methods") { (methods) throws(ScenarioError) in retry.methods = try methods.list(allowingSingle: true).map { (item) throws(ScenarioError) in try item.string().uppercased() } }
        try keys.read("statuses") { (statuses) throws(ScenarioError) in retry.statuses = try statuses.integers(in: 100...999, allowingEmpty: true) }
        try keys.read("errorCodes") { (codes) throws(ScenarioError) in
            retry.errorCodes = try codes.list(allowingSingle: true).map { (item) throws(ScenarioError) in try failureCode(item) }
        }
        retry.honoursRetryAfter = try keys["honourRetryAfter"]?.bool() ?? false
        try keys.read("retryAfterLimit") { (limit) throws(ScenarioError) in retry.retryAfterLimit = try limit.duration() }
        // The last retry waits base^(limit-1) × scale seconds: past the longest duration a file
        // may give, the virtual clock would saturate (every later retry at the same instant,
        // centuries on) instead of the file being refused.
        let longest = Double(Field.longestDuration.components.seconds)
        if retry.limit > 0, pow(Double(retry.base), Double(retry.limit - 1)) * retry.scale > longest {
            let place = keys["scale"] ?? keys["limit"] ?? keys["base"] ?? field
            throw place.error("the backoff before retry \(retry.limit) would be \(retry.base)^\(retry.limit - 1) × \(retry.scale) s, "
                              + "more than the 10⁹ s a scenario's durations may reach",
                              hint: "lower 'scale', 'base' or 'limit' (Alamofire's default is limit 2, base 2, scale 0.5)")
        }
        return retry
    }

    func validation(_ field: Field) throws(ScenarioError) -> ValidationSetup? {
        if field.isScalar {
            return try field.bool() ? ValidationSetup() : nil
        }
        let keys = try field.mapping(["statuses", "contentTypes"])
        var validation = ValidationSetup()
        try keys.read("statuses") { (statuses) throws(ScenarioError) in validation.statuses = try statuses.integers(in: 100...999) }
        try keys.read("contentTypes") { (types) throws(ScenarioError) in
            if types.isScalar, let text = types.node.string, text == "accept" {
                validation.contentTypes = .fromAccept
            } else if types.isScalar, let text = types.node.string, text == "any" {
                validation.contentTypes = nil
            } else {
                validation.contentTypes = .list(try types.nonEmptyList(allowingSingle: true, of: "content type ('any' accepts every type)").map { (item) throws(ScenarioError) in try item.string() })
            }
        }
        return validation
    }
}
