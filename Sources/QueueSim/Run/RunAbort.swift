/// Why a run could not start or had to be abandoned (exit code 3).
package struct RunAbort: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
