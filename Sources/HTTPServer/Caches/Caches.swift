// The HTTP server's speed caches, all per connection (or per thread) so that none takes a lock. Each remembers what a
// keep-alive client sends again and again, and is checked by comparing bytes (or a string's storage) before the
// ordinary path runs; a miss takes that path, so a cache changes how fast a request is read, never what it reads as.
// Each is named for what it is keyed on, and says its key, bound and invalidation in its first comment; each has a
// test file of its own (`Tests/HTTPServerTests/<name>Tests.swift`).
//
//   cache               key                                        bound                      invalidated by
//   ──────────────────  ─────────────────────────────────────────  ─────────────────────────  ──────────────────────────
//   HeadBytesCache      an HTTP/1.1 head's bytes (but for values   one head, ≤ 4096 bytes     the next head that differs
//                       of unframing fields and its length)                                   otherwise
//                       + limits
//   HeadLineCache       a head line's position + bytes             32 positions, ≤ 512 bytes  a different line there
//   TargetCache         the request target string                  one target                 the next different target
//   ResponseFieldCache  a response field's name + value            4 fields, round robin      replaced round robin
//   HeaderBlockCache    an HTTP/2 header block's field buffers     one block (its buffers)    the next block that differs
//   HTTP2RequestCache   :authority; target; the head's serial      one of each                the next different value
//   HTTPDate (HTTP1/)   the current second, per thread             one formatted date         the clock's next second
//
// The per-connection caches live as long as their connection (or HTTP/2 session); none is shared between threads.
