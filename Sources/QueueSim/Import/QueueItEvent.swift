import Foundation

/// One Queue-it event (waiting room) as the Admin API's `GET /2_0/event/{eventId}` answers it,
/// or as a team exported it: its fields by name, each value as the text the API sends.
package struct QueueItEvent: Sendable, Equatable {
    /// Field name → value as text (`"True"`, `"15"`, a time). Fields that are `null` or empty
    /// are left out: they set nothing.
    package private(set) var fields: [String: String]
    /// Fields whose value is a list or an object (`AllowedCustomLayouts`): named, never read.
    package private(set) var structuredFields: Set<String>

    package init(fields: [String: String], structuredFields: Set<String> = []) {
        self.fields = fields
        self.structuredFields = structuredFields
    }

    package subscript(_ name: String) -> String? { fields[name] }

    /// Every field present, in name order (so the scenario written is the same bytes each time).
    package var names: [String] { (Array(fields.keys) + structuredFields).sorted() }

    /// Reads the JSON of one event. An answer of Queue-it's error shape (`ErrorCode`,
    /// `ErrorText`; the API may send it with `200 OK`) is the error it describes.
    package static func parse(_ bytes: [UInt8], source: String) throws(ImportFailure) -> QueueItEvent {
        let object = try ImportJSON.object(bytes, source: source, expecting: "an event's fields (`EventStartTime`, …)")
        var fields: [String: String] = [:]
        var structured: Set<String> = []
        for (name, value) in object {
            switch value {
            case is NSNull:
                continue
            case let text as String:
                if !text.trimmingSpaces.isEmpty { fields[name] = text }
            case let number as NSNumber:
                fields[name] = ImportJSON.text(of: number)
            default:
                structured.insert(name)
            }
        }
        return QueueItEvent(fields: fields, structuredFields: structured)
    }
}

/// JSON of the Admin API: objects with string values, and its error shape.
enum ImportJSON {
    static func object(_ bytes: [UInt8], source: String, expecting: String) throws(ImportFailure) -> [String: Any] {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            throw ImportFailure.unreadable(source, "it is not JSON; expected \(expecting)")
        }
        guard let object = parsed as? [String: Any] else {
            throw ImportFailure.unreadable(source, "it is not a JSON object; expected \(expecting)")
        }
        if let code = object["ErrorCode"], !(code is NSNull),
            object["ErrorText"] != nil || object["HttpStatusCode"] != nil
        {
            let text = (object["ErrorText"] as? String).map(ImportFailure.printable) ?? ""
            let status =
                (object["HttpStatusCode"] as? NSNumber)?.intValue
                ?? (object["HttpStatusCode"] as? String).flatMap(QueueItValue.integer)
            let said = text.isEmpty ? "ErrorCode \(code)" : "ErrorCode \(code), \(text)"
            throw ImportFailure.answered(status: status ?? 500, source: source, text: said, event: nil)
        }
        return object
    }

    /// A JSON number or boolean as the API would have written it: `True`, `15`, `12.5`.
    static func text(of number: NSNumber) -> String {
        // JSONSerialization gives `true`/`false` as NSNumbers of type `c` (char), numbers as `q`/`d`.
        if String(cString: number.objCType) == "c" { return number.boolValue ? "True" : "False" }
        return ImportNumbers.text(number.doubleValue)
    }
}

/// Numbers written into files: whole numbers without a fraction, others with up to six decimals,
/// never an exponent (`stats.csv` cells, rates in the scenario).
package enum ImportNumbers {
    package static func text(_ value: Double) -> String {
        guard value.isFinite else { return "" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(format: "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
