public import Foundation

/// A fault plan on its own: the `faults:` section of a scenario file (and an optional `seed:`),
/// read by the same reader, so `tapedeck serve --faults FILE.yaml` and `tapedeck run` accept the
/// same fault definitions. A whole scenario file is accepted too; only its faults and seed are used.
///
/// ```swift
/// let plan = try FaultPlan.load(URL(fileURLWithPath: "faults.yaml"))
/// for site in plan.faults { print(site.name, site.kind.name) }
/// ```
public struct FaultPlan: Hashable, Sendable {
    /// The fault sites, in file order.
    public var faults: [FaultSite]
    /// The file's seed, if it names one.
    public var seed: UInt64?

    /// A plan of `faults`, with an optional seed.
    public init(faults: [FaultSite] = [], seed: UInt64? = nil) {
        self.faults = faults
        self.seed = seed
    }

    /// Reads a fault plan file (YAML or JSON); errors name the file, line, column and key.
    public static func load(_ url: URL) throws(ScenarioError) -> FaultPlan {
        try parse(Scenario.readText(url, what: "fault plan", hint: "give a .yaml or .json file with a 'faults:' list"), file: url.path)
    }

    /// Parses fault plan text; `file` names it in errors. As for a scenario file, every problem
    /// (unknown keys, values that cannot be read, in any fault) is reported at once.
    public static func parse(_ text: String, file: String) throws(ScenarioError) -> FaultPlan {
        let node = try Scenario.compose(text, file: file, empty: "list the faults under 'faults:'")
        let problems = Problems()
        let top = try ScenarioReader.topFields(of: Field(node: node, path: "", file: file), problems: problems)
        let reader = ScenarioReader(file: file, base: URL(fileURLWithPath: file).deletingLastPathComponent())
        var plan = FaultPlan()
        problems.recovering { () throws(ScenarioError) in if let seed = top["seed"] { plan.seed = try seed.seed() } }
        let faults = problems.recovering { () throws(ScenarioError) in
            try top.required("faults", hint: "list the faults, e.g. - kind: reset\\n  afterBytes: 10")
        }
        if let faults, let items = problems.recovering({ () throws(ScenarioError) in try faults.list() }) {
            plan.faults = items.enumerated().compactMap { index, item in
                problems.recovering(item: item) { (item) throws(ScenarioError) in try reader.fault(item, index: index) }
            }
            var names = Set<String>()
            for site in plan.faults where !names.insert(site.name).inserted {
                problems.add(faults.error("two faults are named '\(site.name)'", hint: "give each fault its own name"))
            }
        }
        if let combined = problems.combined { throw combined }
        return plan
    }
}
