import Foundation
import QueueClientCore
import Testing

@testable import QueueSim

#if canImport(Glibc)
    import Glibc
#endif

/// Every errno a person reads is said one way: a read-only file system by its name (EROFS),
/// never as strerror's capitalised phrase or a generic I/O error.
@Suite("errno words: a read-only file system named as such wherever an errno reaches a person")
struct ErrnoWordsTests {
    @Test("the one errno wording: EROFS by name, anything else strerror and its number")
    func oneWording() {
        #expect(ErrorWording.errnoWords(EROFS) == "read-only file system (EROFS)")
        #expect(ErrorWording.errnoWords(EACCES) == "Permission denied (errno 13)")
        #expect(ErrorWording.plain(POSIXError(.EROFS)) == "read-only file system (EROFS)")
    }

    @Test("a report file that cannot be opened, written or renamed says EROFS in the same words")
    func reportFiles() {
        #expect(
            ReportWriteError.cannotOpen(path: "/r/report.html.tmp", errno: EROFS).description
                == "cannot open /r/report.html.tmp: read-only file system (EROFS)")
        #expect(
            ReportWriteError.cannotWrite(path: "/r/visitors.csv", errno: EROFS).description
                == "cannot write /r/visitors.csv: read-only file system (EROFS)")
        #expect(
            ReportWriteError.cannotRename(from: "/r/a.tmp", to: "/r/a", errno: EROFS).description
                == "cannot rename /r/a.tmp to /r/a: read-only file system (EROFS)")
        #expect(
            ReportWriteError.cannotOpen(path: "/r/x", errno: ENOSPC).description
                == "cannot open /r/x: No space left on device (errno 28)")
    }

    @Test("a scenario file that cannot be read names the errno the same way")
    func userFiles() {
        #expect(RegularFileReader.words(errno: EROFS) == "read-only file system (EROFS)")
        #expect(RegularFileReader.words(errno: ENOENT) == "No such file or directory (errno 2)")
    }
}
