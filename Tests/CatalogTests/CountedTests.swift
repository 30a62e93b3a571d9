import Catalog
import Testing

/// Counts agree with their nouns, as every command and page says them.
@Suite struct CountedTests {
    @Test func oneIsSingularEveryOtherCountPlural() {
        #expect(counted(1, "person", "people") == "1 person")
        #expect(counted(2, "person", "people") == "2 people")
        #expect(counted(0, "photo") == "0 photos")
        #expect(counted(1, "photo") == "1 photo")
    }
}
