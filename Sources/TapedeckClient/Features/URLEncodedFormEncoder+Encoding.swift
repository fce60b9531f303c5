import Foundation

// The `Encoder` behind URLEncodedFormEncoder: each value is written as text the way Alamofire
// writes it (`String(value)` for numbers, the options' spelling for booleans, dates, data and
// nils) into a tree of slots that the encoder then serializes.

/// One value of the form being built, shared by the containers that write into it.
final class FormSlot {
    enum Content {
        /// Nothing written (a nil left out): no pair.
        case empty
        case text(String)
        case list([FormSlot])
        /// Fields in the order they were encoded; a key encoded again replaces its value.
        case fields([(key: String, slot: FormSlot)])
    }

    var content = Content.empty

    /// A new slot for `key` of this object (made one if it was not).
    func field(_ key: String) -> FormSlot {
        var fields: [(key: String, slot: FormSlot)] = []
        if case let .fields(existing) = content { fields = existing }
        let child = FormSlot()
        if let index = fields.firstIndex(where: { $0.key == key }) {
            fields[index].slot = child
        } else {
            fields.append((key, child))
        }
        content = .fields(fields)
        return child
    }

    /// The slot of `key` of this object, made when it has none: a container asked for again
    /// under one key (a nested container, a super encoder) adds to what the first one wrote, as
    /// Alamofire's does.
    func existingField(_ key: String) -> FormSlot {
        if case let .fields(fields) = content, let found = fields.first(where: { $0.key == key }) { return found.slot }
        return field(key)
    }

    /// Whether nothing was written here (a nil left out): an array's element numbers skip it.
    var isEmpty: Bool {
        if case .empty = content { return true }
        return false
    }

    /// A new slot at the end of this list (made one if it was not).
    func element() -> FormSlot {
        var items: [FormSlot] = []
        if case let .list(existing) = content { items = existing }
        let child = FormSlot()
        items.append(child)
        content = .list(items)
        return child
    }

    /// Makes this slot an object, keeping the fields it has.
    func becomeFields() {
        if case .fields = content { return }
        content = .fields([])
    }

    /// Makes this slot a list, keeping the elements it has.
    func becomeList() {
        if case .list = content { return }
        content = .list([])
    }
}

/// The `Encoder` a value encodes itself to.
struct FormValueEncoder: Encoder {
    let slot: FormSlot
    let options: URLEncodedFormEncoder
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        slot.becomeFields()
        return KeyedEncodingContainer(FormKeyedContainer<Key>(slot: slot, options: options, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        slot.becomeList()
        return FormUnkeyedContainer(slot: slot, options: options, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        FormSingleValueContainer(slot: slot, options: options, codingPath: codingPath)
    }
}

/// Writes one value into its slot: the spelling of the options for booleans, dates, data and nil.
struct FormSingleValueContainer: SingleValueEncodingContainer {
    let slot: FormSlot
    let options: URLEncodedFormEncoder
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws {
        if let text = options.nilEncoding.encodeNil() { slot.content = .text(text) }
    }

    mutating func encode(_ value: Bool) throws { slot.content = .text(options.boolEncoding.encode(value: value)) }
    mutating func encode(_ value: String) throws { slot.content = .text(value) }
    mutating func encode(_ value: Double) throws { slot.content = .text(String(value)) }
    mutating func encode(_ value: Float) throws { slot.content = .text(String(value)) }
    mutating func encode(_ value: Int) throws { slot.content = .text(String(value)) }
    mutating func encode(_ value: Int8) throws { slot.content = .text(String(value)) }
    mutating func encode(_ value: Int16) throws { slot.content = .text(String(value)) }
    mutating func encode(_ value: Int32) throws { slot.content = .text(String(value)) }
    mutating func encode(_ value: Int64) throws { slot.content = .text(String(value)) }
    mutating func encode(_ value: UInt) throws { slot.content = .text(String(value)) }
    mutating func encode(_ value: UInt8) throws { slot.content = .text(String(value)) }
    mutating func encode(_ value: UInt16) throws { slot.content = .text(String(value)) }
    mutating func encode(_ value: UInt32) throws { slot.content = .text(String(value)) }
    mutating func encode(_ value: UInt64) throws { slot.content = .text(String(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        switch value {
        case let date as Date:
            if let text = try options.dateEncoding.text(for: date) { return slot.content = .text(text) }
        case let data as Data:
            if let text = try options.dataEncoding.text(for: data) { return slot.content = .text(text) }
        case let decimal as Decimal:
            // Decimal encodes itself as a number to a JSON encoder only; written as it prints.
            return slot.content = .text("\(decimal)")
        case let url as URL:
            // URL encodes itself as an object ({relative, base}); its text is what a form means.
            return slot.content = .text(url.absoluteString)
        default:
            break
        }
        try value.encode(to: FormValueEncoder(slot: slot, options: options, codingPath: codingPath))
    }
}

/// An object's fields; an optional without a value is written as ``URLEncodedFormEncoder/nilEncoding`` says.
struct FormKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: FormSlot
    let options: URLEncodedFormEncoder
    let codingPath: [any CodingKey]

    private func single(_ key: Key) -> FormSingleValueContainer {
        FormSingleValueContainer(slot: slot.field(key.stringValue), options: options, codingPath: codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) throws {
        if let text = options.nilEncoding.encodeNil() { slot.field(key.stringValue).content = .text(text) }
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        var container = single(key)
        try container.encode(value)
    }

    // Swift's default `encodeIfPresent` skips a nil: Alamofire's encoder writes it as its
    // `nilEncoding` says (`page=null` with `.null`), so every overload routes nil here.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try present(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try present(value, key) }

    private mutating func present<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = slot.existingField(key.stringValue)
        child.becomeFields()
        return KeyedEncodingContainer(FormKeyedContainer<NestedKey>(slot: child, options: options, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = slot.existingField(key.stringValue)
        child.becomeList()
        return FormUnkeyedContainer(slot: child, options: options, codingPath: codingPath + [key])
    }

    /// The superclass's fields go into this object, beside the subclass's (Alamofire's choice;
    /// JSONEncoder nests them under `super`).
    mutating func superEncoder() -> any Encoder {
        FormValueEncoder(slot: slot, options: options, codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        FormValueEncoder(slot: slot.existingField(key.stringValue), options: options, codingPath: codingPath + [key])
    }
}

/// An array's elements, in order.
struct FormUnkeyedContainer: UnkeyedEncodingContainer {
    let slot: FormSlot
    let options: URLEncodedFormEncoder
    let codingPath: [any CodingKey]
    private(set) var count = 0

    init(slot: FormSlot, options: URLEncodedFormEncoder, codingPath: [any CodingKey]) {
        self.slot = slot
        self.options = options
        self.codingPath = codingPath
    }

    private mutating func next() -> FormSlot {
        count += 1
        return slot.element()
    }

    mutating func encodeNil() throws {
        if let text = options.nilEncoding.encodeNil() { next().content = .text(text) }
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        var container = FormSingleValueContainer(slot: next(), options: options, codingPath: codingPath)
        try container.encode(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = next()
        child.becomeFields()
        return KeyedEncodingContainer(FormKeyedContainer<NestedKey>(slot: child, options: options, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = next()
        child.becomeList()
        return FormUnkeyedContainer(slot: child, options: options, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder {
        FormValueEncoder(slot: next(), options: options, codingPath: codingPath)
    }
}

extension URLEncodedFormEncoder.DateEncoding {
    /// The text of `date`, or nil to let the date encode itself (`deferredToDate`: seconds since
    /// 2001 as a Double, `722_000_000.0`). Seconds and milliseconds print as Doubles, as Alamofire's do.
    func text(for date: Date) throws -> String? {
        switch self {
        case .deferredToDate: return nil
        case .secondsSince1970: return String(date.timeIntervalSince1970)
        case .millisecondsSince1970: return String(date.timeIntervalSince1970 * 1_000)
        case .iso8601: return ISO8601DateFormatter().string(from: date)
        case let .formatted(formatter): return formatter.string(from: date)
        case let .custom(write): return try write(date)
        }
    }
}

extension URLEncodedFormEncoder.DataEncoding {
    /// The text of `data`, or nil to let it encode itself (`deferredToData`: its bytes as a list).
    func text(for data: Data) throws -> String? {
        switch self {
        case .deferredToData: return nil
        case .base64: return data.base64EncodedString()
        case let .custom(write): return try write(data)
        }
    }
}
