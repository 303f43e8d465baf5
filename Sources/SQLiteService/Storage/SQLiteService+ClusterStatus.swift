import DqliteClient
import DqliteCluster
import HTTPServer

extension SQLiteService {
    /// `GET /cluster` (a cluster-only route).
    func clusterStatusResponse() throws(APIError) -> HTTPResponse {
        guard case .cluster(let cluster) = storage else { throw .notFound("no endpoint at GET /cluster") }
        return try clusterStatus(cluster)
    }

    /// `GET /cluster`: this node, the leader it knows, and every member with its role.
    ///
    /// `{"node": {"id", "address"}, "leader": {"id", "address"} | null, "nodes": [{"id", "address", "role",
    /// "leader"}]}`; roles are `voter`, `standby` and `spare`. 503 `UNAVAILABLE` when the node does not answer.
    func clusterStatus(_ cluster: ClusterStorage) throws(APIError) -> HTTPResponse {
        let info: ClusterInfo
        do {
            info = try cluster.status()
        } catch {
            throw .unavailable("this node's dqlite node does not answer", retryAfter: 1)
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("node")
        writer.beginObject()
        writer.key("id")
        writer.writeInt64(Int64(info.nodeID))
        writer.key("address")
        writer.writeString(cluster.nodeAddress)
        writer.endObject()
        writer.key("leader")
        if let id = info.leaderID, let address = info.leaderAddress {
            writer.beginObject()
            writer.key("id")
            writer.writeInt64(Int64(id))
            writer.key("address")
            writer.writeString(address)
            writer.endObject()
        } else {
            writer.writeNull()
        }
        writer.key("nodes")
        writer.beginArray()
        for node in info.nodes {
            writer.beginObject()
            writer.key("id")
            writer.writeInt64(Int64(node.id))
            writer.key("address")
            writer.writeString(node.address)
            writer.key("role")
            writer.writeString(node.role.apiName)
            writer.key("leader")
            writer.writeBool(node.id == info.leaderID)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return Self.jsonResponse(writer.bytes)
    }
}

extension APISchemas {
    /// The JSON Schema of `GET /cluster`'s answer (OpenAPI, ``APISchemas``).
    static let clusterStatus: [(name: String, json: String)] = [
        (
            "ClusterStatus",
            ##"{"type": "object", "required": ["node", "leader", "nodes"], "properties": {"node": {"type": "object"}, "leader": {"description": "The leader, or null while there is none.", "if": {"type": "object"}, "else": {"type": "null"}}, "nodes": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}, "address": {"type": "string"}, "role": {"type": "string", "enum": ["voter", "standby", "spare"]}, "leader": {"type": "boolean"}}}}}}"##
        )
    ]
}
