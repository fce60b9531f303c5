import Synchronization

// Each harness-made session needs its own URLProtocol class: corelibs instantiates the class itself
// and passes neither the session nor the configuration's extra headers to it. Generic classes are
// distinct classes at run time, so a type-level binary number gives every slot its own class.

protocol SlotTag {
    static var index: Int { get }
}

enum SlotEnd: SlotTag {
    static var index: Int { 0 }
}

enum SlotBit0<Rest: SlotTag>: SlotTag {
    static var index: Int { Rest.index * 2 }
}

enum SlotBit1<Rest: SlotTag>: SlotTag {
    static var index: Int { Rest.index * 2 + 1 }
}

/// The URLProtocol subclass bound to one slot.
final class SlottedProtocol<Tag: SlotTag>: BridgeProtocol {
    override class var slot: Int { Tag.index }
}

enum ProtocolSlots {
    private static let table = Mutex(Table())

    private struct Table {
        var links: [Int: WeakLink] = [:]
        var free: [Int] = []
        var next = 1
    }

    private struct WeakLink {
        weak var link: SessionLink?
    }

    /// A slot for `link`, and the URLProtocol class that finds it.
    static func register(_ link: SessionLink) -> (slot: Int, protocolClass: AnyClass) {
        let slot = table.withLock { table -> Int in
            let slot = table.free.popLast() ?? { defer { table.next += 1 }; return table.next }()
            table.links[slot] = WeakLink(link: link)
            return slot
        }
        return (slot, protocolClass(for: slot))
    }

    static func release(_ slot: Int) {
        table.withLock { table in
            table.links[slot] = nil
            table.free.append(slot)
        }
    }

    static func link(for slot: Int) -> SessionLink? {
        table.withLock { $0.links[slot]?.link }
    }

    private static func tag(for number: Int) -> any SlotTag.Type {
        if number == 0 { return SlotEnd.self }
        func extend<Rest: SlotTag>(_ rest: Rest.Type) -> any SlotTag.Type {
            number % 2 == 0 ? SlotBit0<Rest>.self : SlotBit1<Rest>.self
        }
        return extend(tag(for: number / 2))
    }

    static func protocolClass(for slot: Int) -> AnyClass {
        func make<Tag: SlotTag>(_ tag: Tag.Type) -> AnyClass { SlottedProtocol<Tag>.self }
        return make(tag(for: slot))
    }
}
