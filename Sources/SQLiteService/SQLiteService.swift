/// Placeholder until the service lands.
public enum SQLiteServiceModule {}
