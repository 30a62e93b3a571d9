/// A count and its noun in agreement, as the commands and pages say them: "1 person", "2 people", "0 photos".
/// `plural` is the noun for any count but one; by default the singular and an "s".
public func counted(_ count: some BinaryInteger, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}
