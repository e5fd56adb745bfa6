// swift-tools-version: 6.0
import PackageDescription

/// Release builds of the CLI's engine skip Swift's run-time exclusivity checks
/// (`swift_beginAccess` on every access to a class's stored property: about 2 % of a live run's
/// CPU, docs/benchmarks.md). Debug builds, and so `swift test`, keep them. QueueClientCore does
/// not take this flag: SwiftPM refuses `unsafeFlags` in a package depended on by version, and
/// an app must be able to depend on the core by tag (scripts/check-consumer holds that).
let hotPathSettings: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))
]

let package = Package(
    name: "queuesim",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "queuesim", targets: ["queuesim"]),
        // What an app embeds (docs/client-core.md).
        .library(name: "QueueClientCore", targets: ["QueueClientCore"]),
        // The CLI's engine. Its API is `package`, not public: the product exists for fuzz/'s
        // package, which imports it `@testable`. Not for apps (it carries `hotPathSettings`).
        .library(name: "QueueSim", targets: ["QueueSim"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CYaml",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // zlib: the live engine inflates gzip and deflate answers, as the phones' stacks do
        // for the `Accept-Encoding` they send (AsyncHTTPClient links it already).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "QueueClientCore",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // AsyncHTTPClient's own transport: named so its errors are matched by type.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // SHA-256 for the room's token HMAC: eight words of state copied by value, and the CPU's
        // SHA extensions where it has them (KnownUserToken.swift's `PreparedHMAC`).
        .target(name: "CSHA256"),
        // epoll and eventfd for the plain-HTTP transport's event loop (Live/Plain): Linux only.
        .target(name: "CEpoll"),
        .target(
            name: "QueueSim",
            dependencies: [
                "QueueClientCore",
                "CSHA256",
                .target(name: "CEpoll", condition: .when(platforms: [.linux])),
                "CYaml",
                "CZlib",
                // Remote write of metrics (`--metrics-push`); QueueClientCore links it already.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // Also brings swift-nio-ssl's BoringSSL module, CNIOBoringSSL, which is no product
                // of that package: iOS visitors' TLS client (`ResumingTLSClientHandler`) calls it
                // to offer a device's sessions, as NIOSSLHandler exposes no `SSL_SESSION`. Pinned
                // by Package.resolved; an upgrade of swift-nio-ssl re-runs TLSResumptionTests.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            swiftSettings: hotPathSettings
        ),
        .executableTarget(
            name: "queuesim",
            dependencies: [
                "QueueSim",
                "QueueClientCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The loopback stand-ins both test targets serve their scripts from.
        .target(
            name: "StandInServers",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                // H2StandInServer: h2 frames as a client sent them (issue 55's h2 clients).
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ],
            path: "Tests/StandInServers"
        ),
        // `runVisitor`: one visitor on a wall clock and a real transport, for the tests that
        // drive the client core over HTTP. Test support, so the library does not ship it.
        .target(
            name: "VisitorDriver",
            dependencies: ["QueueClientCore"],
            path: "Tests/VisitorDriver"
        ),
        // SplitMix64, the seeded generator every test target's generated cases come from.
        .target(name: "TestSeeds", path: "Tests/TestSeeds"),
        .testTarget(
            name: "QueueClientCoreTests",
            dependencies: [
                "QueueClientCore",
                "StandInServers",
                "TestSeeds",
                "VisitorDriver",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "QueueSimTests",
            dependencies: [
                "QueueSim",
                "QueueClientCore",
                "StandInServers",
                "TestSeeds",
                "CSHA256",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // EmbeddedChannel: the connection handlers tested without sockets.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // The room's h2 over TLS, read frame by frame (SETTINGS, streams).
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "queuesimTests",
            dependencies: [
                "QueueSim",
                "QueueClientCore",
                "StandInServers",
                "TestSeeds",
                "VisitorDriver",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
