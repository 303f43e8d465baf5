extension JSONWriter {
    /// Throws `SQLITE_TOOBIG` once the output is past `maxResponseBytes`, as the rows of a result are written
    /// (checked before each value, whichever backend the rows come from).
    func checkWithin(responseLimit maxResponseBytes: Int) throws(APIError) {
        if bytes.count > maxResponseBytes {
            throw .sqlite(
                name: "SQLITE_TOOBIG",
                code: 18,
                message: "the result exceeds the response size limit of \(maxResponseBytes) bytes "
                    + "(select fewer rows or columns)"
            )
        }
    }
}
