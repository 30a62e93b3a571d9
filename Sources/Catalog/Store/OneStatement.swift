/// A connection that sends one statement and refuses a second: what a read of one statement
/// (``CatalogStore/readStatement(_:)``) hands its body, so that a body that sends more, which would read two
/// snapshots on a store that sends the statement alone, fails on every store and in every test.
final class OneStatement: StoreConnection {
    private let connection: any StoreConnection
    private let location: String
    private var sent = false

    init(_ connection: any StoreConnection, at location: String) {
        self.connection = connection
        self.location = location
    }

    func execute(_ sql: String, _ values: [StoreValue]) throws -> Int {
        try send()
        return try connection.execute(sql, values)
    }

    func rows(_ sql: String, _ values: [StoreValue]) throws -> [StoreRow] {
        try send()
        return try connection.rows(sql, values)
    }

    func forEachRow(_ sql: String, _ values: [StoreValue], _ body: (StoreRow) throws -> Void) throws {
        try send()
        try connection.forEachRow(sql, values, body)
    }

    func tableExists(_ name: String) throws -> Bool {
        try send()
        return try connection.tableExists(name)
    }

    func keysInserted(table: String, key: String) throws {
        try send()
        try connection.keysInserted(table: table, key: key)
    }

    var clock: String { connection.clock }
    var skippingLocked: String { connection.skippingLocked }

    private func send() throws(CatalogError) {
        guard !sent else {
            throw .storage(path: location, reason: "a read of one statement sent a second (a defect of the catalog)")
        }
        sent = true
    }
}
