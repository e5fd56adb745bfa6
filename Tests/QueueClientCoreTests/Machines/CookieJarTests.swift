import HTTPTypes
import Testing

@testable import QueueClientCore

/// The visitor's cookies as the machines use them: the queue cookies a queue page sets, and the
/// protected API's `QueueITAccepted-…` session cookie, which decides whether a hybrid visitor
/// is let through without queueing.
@Suite("CookieJar: a visitor's cookies")
struct CookieJarTests {
    @Test("a host-only cookie goes back to its host only; a Domain cookie to the domain and its subdomains")
    func hostOnlyAndDomainCookies() {
        var jar = CookieJar()
        jar.store(setCookie: "session=abc; Path=/; HttpOnly", from: "api.shop.example")
        jar.store(setCookie: "Queue-it=u=1; Domain=.shop.example; Secure", from: "api.shop.example")
        #expect(jar.header(for: "api.shop.example") == "session=abc; Queue-it=u=1")
        #expect(jar.header(for: "www.shop.example") == "Queue-it=u=1")
        #expect(jar.header(for: "shop.example") == "Queue-it=u=1")
        #expect(jar.header(for: "othershop.example") == nil)
        // Host names compare without case, as DNS does.
        #expect(jar.header(for: "API.Shop.Example") == "session=abc; Queue-it=u=1")
    }

    @Test("a cookie set again replaces the old value; Max-Age=0 or below deletes it")
    func replaceAndDelete() {
        var jar = CookieJar()
        jar.store(setCookie: "QueueITAccepted-SDFrts345E-V3_launch=EventId%3Dlaunch", from: "api.example")
        jar.store(setCookie: "QueueITAccepted-SDFrts345E-V3_launch=EventId%3Dlaunch2", from: "api.example")
        #expect(
            jar.value(named: "QueueITAccepted-SDFrts345E-V3_launch", for: "api.example") == "EventId%3Dlaunch2")
        #expect(jar.header(for: "api.example") == "QueueITAccepted-SDFrts345E-V3_launch=EventId%3Dlaunch2")
        // The KnownUser connector's cancellation.
        jar.store(setCookie: "QueueITAccepted-SDFrts345E-V3_launch=; Max-Age=-1", from: "api.example")
        #expect(jar.value(named: "QueueITAccepted-SDFrts345E-V3_launch", for: "api.example") == nil)
        #expect(jar.isEmpty)
        jar.store(setCookie: "a=1", from: "api.example")
        jar.store(setCookie: "a=1; Max-Age=0", from: "api.example")
        #expect(jar.header(for: "api.example") == nil)
    }

    @Test("every Set-Cookie field of a response is stored; malformed lines are ignored")
    func storesEveryField() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .setCookie, value: "one=1"))
        fields.append(HTTPField(name: .setCookie, value: "two = 2 ; Max-Age=60"))
        fields.append(HTTPField(name: .setCookie, value: "no-equals-sign"))
        fields.append(HTTPField(name: .setCookie, value: "=nameless"))
        var jar = CookieJar()
        jar.store(fields, from: "queue.example")
        #expect(jar.header(for: "queue.example") == "one=1; two=2")
        #expect(jar.value(named: "two", for: "queue.example") == "2")
    }
}
