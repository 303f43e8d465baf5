/// Placeholder until the HTTP server lands.
public enum HTTPServerModule {}
