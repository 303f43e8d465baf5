import HTTPServer

/// libFuzzer entry point: the parser must agree with itself however the input is split, and never crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    HTTPParserFuzzing.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
