// swift-tools-version: 6.0
// libFuzzer targets for the hand-written parsers that need queuesim's modules (and so NIO,
// swift-http-types, swift-crypto). Not part of the main package: every module here is built
// with `-sanitize=fuzzer,address -parse-as-library -enable-testing` by fuzz/run-all.sh, in its
// own build path. See fuzz/README.md.
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name, and a clone may be called anything
// (CI's is not `main`), so the name is read from where this manifest sits.
let parent = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent

func fuzzer(_ name: String, _ extra: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: [
            .product(name: "QueueSim", package: parent),
            .product(name: "QueueClientCore", package: parent),
            "FuzzDriver",
        ] + extra)
}

let package = Package(
    name: "QueueSimFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // Each target's entry point, handing over to libFuzzer (see Sources/FuzzDriver/driver.c).
        .target(name: "FuzzDriver"),
        fuzzer("ScenarioFuzz"),
        fuzzer(
            "RoomRequestFuzz",
            [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        fuzzer("URLFuzz"),
        fuzzer("TokenCheckFuzz"),
        fuzzer("FlatJSONFuzz"),
        fuzzer("CSVFuzz"),
        fuzzer(
            "HTTP1ResponseFuzz",
            [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        fuzzer("PushFuzz"),
        fuzzer("RunFolderFuzz"),
        fuzzer("ShardFolderFuzz"),
    ],
    swiftLanguageModes: [.v6]
)
