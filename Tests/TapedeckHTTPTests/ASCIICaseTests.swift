import Testing
import TapedeckHTTP

@Suite("ASCII case comparisons")
struct ASCIICaseTests {
    @Test("only ASCII letters fold; other bytes, non-ASCII ones included, must match")
    func equalityFoldsOnlyASCIILetters() {
        #expect("Content-Type".equalsIgnoringASCIICase("content-type"))
        #expect("X-API-KEY".equalsIgnoringASCIICase("x-api-key"[...]))
        #expect("".equalsIgnoringASCIICase(""))
        #expect(!"Content-Type".equalsIgnoringASCIICase("Content-Typ"))
        #expect(!"Content-Typ".equalsIgnoringASCIICase("Content-Type"))
        #expect(!"Date".equalsIgnoringASCIICase("Data"))
        // '@' (0x40) and '`' (0x60) differ by the case bit but are not letters.
        #expect(!"@".equalsIgnoringASCIICase("`"))
        #expect(!"[".equalsIgnoringASCIICase("{"))
        // Non-ASCII text compares byte for byte: no Unicode folding.
        #expect("Größe".equalsIgnoringASCIICase("GRößE"))
        #expect(!"Größe".equalsIgnoringASCIICase("GRÖSSE"))
    }

    @Test("a needle's bytes are found anywhere, as they are")
    func containsBytesFindsAnywhere() {
        #expect("x-api-key".containsBytes(of: "key"))
        #expect("x-api-key".containsBytes(of: "x-"))
        #expect("x-api-key".containsBytes(of: ""))
        #expect("passphrase".containsBytes(of: "passphrase"))
        #expect(!"pass".containsBytes(of: "passw"))
        #expect(!"x-api-key".containsBytes(of: "KEY"))
        #expect("aaab".containsBytes(of: "aab"))
        #expect("é-token".containsBytes(of: "token"))
        #expect("x-api-key"[...].containsBytes(of: "api"[...]))
    }

    @Test("folding the case finds a small-letter needle in capitals, and folds nothing else")
    func containsBytesFoldingCase() {
        #expect("X-API-Key".containsBytes(of: "api-key", foldingCase: true))
        #expect("Application/JSON; charset=utf-8".containsBytes(of: "json", foldingCase: true))
        #expect(!"Application/JSON".containsBytes(of: "json"))
        #expect(!"X-Toke".containsBytes(of: "token", foldingCase: true))
        #expect(!"ÉTOKEN".containsBytes(of: "étoken", foldingCase: true))
        #expect("aAaB".containsBytes(of: "aab", foldingCase: true))
    }
}
