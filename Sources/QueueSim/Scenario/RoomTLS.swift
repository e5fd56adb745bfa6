import Foundation
import NIOSSL

/// The room's TLS: a certificate chain and its private key (PEM files), served with ALPN
/// `h2, http/1.1` (`queuesim serve --tls-cert FILE --tls-key FILE`, or `waitingRoom.tls` for a
/// run's own room). Everything is checked when it is loaded, before the server listens, so a
/// bad pair is an invalid input (exit 2) and never a server that fails every handshake.
package struct RoomTLS: Sendable {
    /// What the room offers in ALPN, most preferred first: h2 when the client offers it,
    /// HTTP/1.1 when it offers only that, or nothing at all.
    package static let applicationProtocols = ["h2", "http/1.1"]

    package let certificatePath: String
    package let keyPath: String
    let context: NIOSSLContext

    /// Reads both files and checks that the key is the certificate's.
    /// - Throws: `RoomTLSError`, naming the file and what is wrong with it.
    package static func load(certificate certificatePath: String, key keyPath: String) throws(RoomTLSError) -> RoomTLS {
        try checkReadable(certificatePath, what: "certificate")
        try checkReadable(keyPath, what: "private key")
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw RoomTLSError("\(certificatePath): not a PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        guard !chain.isEmpty else {
            throw RoomTLSError("\(certificatePath): holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw RoomTLSError(
                "\(keyPath): not a PEM private key (-----BEGIN PRIVATE KEY-----; a key with a passphrase is not read)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.applicationProtocols = applicationProtocols
        do {
            let context = try NIOSSLContext(configuration: configuration)
            return RoomTLS(certificatePath: certificatePath, keyPath: keyPath, context: context)
        } catch {
            // BoringSSL checks the key against the certificate's public key here.
            throw RoomTLSError("\(keyPath) is not the private key of \(certificatePath)'s certificate")
        }
    }

    private static func checkReadable(_ path: String, what: String) throws(RoomTLSError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw RoomTLSError("\(path): no such \(what) file")
        }
        guard !isDirectory.boolValue, FileManager.default.isReadableFile(atPath: path) else {
            throw RoomTLSError("\(path): cannot read the \(what) file")
        }
    }
}

/// Why the room's certificate or key cannot be served; the text names the file.
package struct RoomTLSError: Error, CustomStringConvertible, Equatable {
    package let description: String

    init(_ description: String) {
        self.description = description
    }
}
