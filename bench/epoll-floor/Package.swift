// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "epoll-floor",
    targets: [
        .target(name: "CEpoll"),
        .executableTarget(name: "epoll-floor", dependencies: ["CEpoll"]),
    ]
)
