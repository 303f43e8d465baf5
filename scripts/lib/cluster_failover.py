"""The failover rounds of scripts/cluster-failover.sh (run by it; see there for the scenario).

Arguments: SQLITED WORKDIR ROUNDS WRITERS LATENCY_MS. Every wait is bounded; the nodes are killed at exit.
"""
import http.client, json, os, signal, socket, statistics, struct, subprocess, sys, threading, time

binary, work, rounds, writer_count, latency = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Node:
    def __init__(self, node_id, join):
        self.id, self.http_port, self.raft = node_id, free_port(), f"127.0.0.1:{free_port()}"
        self.join, self.process = join, None

    def start(self):
        arguments = [binary, "--host", "127.0.0.1", "--port", str(self.http_port), "--log-level", "warning",
                     "--database", os.path.join(work, f"unused-{self.id}.sqlite"),
                     "--cluster-node-id", str(self.id), "--cluster-address", self.raft,
                     "--cluster-data-dir", os.path.join(work, f"node{self.id}")]
        if self.join:
            arguments += ["--cluster-join", self.join]
        environment = dict(os.environ, SQLITED_CLUSTER_NETWORK_LATENCY_MS=latency)
        log = open(os.path.join(work, f"node{self.id}.log"), "a")
        self.process = subprocess.Popen(arguments, stdout=log, stderr=log, env=environment)
        wait_for(lambda: get(self, "/health")[0] == 200, 60, f"node {self.id} ready")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


def request(node, method, path, body=None, timeout=30):
    connection = http.client.HTTPConnection("127.0.0.1", node.http_port, timeout=timeout)
    try:
        connection.request(method, path, None if body is None else json.dumps(body),
                           {"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def get(node, path):
    try:
        return request(node, "GET", path, timeout=5)
    except OSError:
        return 0, b""


def wait_for(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"cluster-failover: no {what} within {seconds} s")
        time.sleep(0.01)


def leader_as_seen_by(node):
    status, body = get(node, "/cluster")
    leader = json.loads(body).get("leader") if status == 200 else None
    return leader["id"] if leader else None


def transfer(address, target_id):
    """TRANSFER (type 17) on the dqlite wire protocol, version 1: True when the node answered EMPTY (type 8)."""
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(struct.pack("<Q", 1) + struct.pack("<IBBH", 1, 17, 0, 0) + struct.pack("<Q", target_id))
        header = b""
        while len(header) < 8:
            chunk = s.recv(8 - len(header))
            if not chunk:
                return False
            header += chunk
        return struct.unpack("<IBBH", header)[1] == 8


def make_leader(nodes, target):
    """Makes `target` the leader and waits until every node says so (at most 30 s)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        leaders = [leader_as_seen_by(node) for node in nodes]
        if all(leader == target.id for leader in leaders):
            return
        current = leaders[target.id - 1]
        if current and current != target.id:
            try:
                transfer(nodes[current - 1].raft, target.id)
            except OSError:
                pass
        time.sleep(0.1)
    raise SystemExit(f"cluster-failover: node {target.id} did not become the leader within 30 s")


def post(connection, path, body):
    connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    response = connection.getresponse()
    return response.status, response.read().decode()


nodes = []
try:
    for node_id in (1, 2, 3):
        nodes.append(Node(node_id, nodes[-1].raft if nodes else None))
        nodes[-1].start()
    status, body = request(nodes[0], "POST", "/update", {"sql": "CREATE TABLE f(id INTEGER PRIMARY KEY, k TEXT NOT NULL)"})
    assert status == 200, body
    resume_times, totals = [], dict(acknowledged=0, unknown=0, unknown_present=0, retried=0, lost=0, duplicated=0,
                                    phantom=0, unexpected=0)
    for round_number in range(1, rounds + 1):
        leader = nodes[(round_number - 1) % 3]  # every node killed in turn
        make_leader(nodes, leader)
        followers = [node for node in nodes if node is not leader]
        outcomes, lock, stopping = {}, threading.Lock(), threading.Event()
        retried_answers = [0]

        def writer(number, node):
            connection = http.client.HTTPConnection("127.0.0.1", node.http_port, timeout=30)
            sequence = 0
            while not stopping.is_set():
                key = f"r{round_number}-w{number}-{sequence}"
                sent = time.monotonic()
                try:
                    status, text = post(connection, "/update", {"sql": "INSERT INTO f(k) VALUES (?)", "params": [key]})
                except (OSError, http.client.HTTPException):
                    status, text = 0, ""
                    connection.close()
                    connection = http.client.HTTPConnection("127.0.0.1", node.http_port, timeout=30)
                with lock:
                    if status == 200:
                        outcomes[key] = ("acknowledged", sent, time.monotonic())
                    elif status == 503 and "nothing was changed" in text:
                        outcomes[key] = ("not-changed",)
                        retried_answers[0] += 1
                    elif status == 0 or (status == 503 and "may or may not have been committed" in text):
                        outcomes[key] = ("unknown",)
                    else:
                        outcomes[key] = ("unexpected", f"{status} {text}")
                if status == 503 and "nothing was changed" in text:
                    time.sleep(0.02)
                    continue  # the same key again
                sequence += 1

        threads = [threading.Thread(target=writer, args=(n, followers[n % 2])) for n in range(writer_count)]
        for thread in threads:
            thread.start()

        def acknowledged_count():
            with lock:
                return sum(1 for outcome in outcomes.values() if outcome[0] == "acknowledged")

        wait_for(lambda: acknowledged_count() >= 64, 30, "writes before the kill")
        killed_at = time.monotonic()
        leader.kill()

        def first_resumed():
            with lock:
                times = [o[2] for o in outcomes.values() if o[0] == "acknowledged" and o[1] >= killed_at]
            return min(times) if times else None

        wait_for(lambda: first_resumed() is not None, 60, "write acknowledged after the kill")
        resume = first_resumed() - killed_at
        time.sleep(1)
        stopping.set()
        for thread in threads:
            thread.join(60)
        if any(thread.is_alive() for thread in threads):
            # A writer still running could add outcomes while they are counted: a round that cannot be judged.
            raise SystemExit(f"cluster-failover: round {round_number}: writers still running 60 s after the stop")
        leader.start()

        counts_by_node = {}
        for node in nodes:
            make_leader(nodes, node)
            status, body = request(node, "POST", "/query", {"sql": "SELECT k, count(*) FROM f WHERE k LIKE ? GROUP BY k",
                                                            "params": [f"r{round_number}-%"], "shape": "arrays"})
            assert status == 200, body
            if leader_as_seen_by(node) != node.id:
                raise SystemExit(f"cluster-failover: node {node.id} lost the leadership during its read")
            counts_by_node[node.id] = {k: c for k, c in json.loads(body)["rows"]}

        acknowledged = [k for k, o in outcomes.items() if o[0] == "acknowledged"]
        unknown = [k for k, o in outcomes.items() if o[0] == "unknown"]
        not_changed = [k for k, o in outcomes.items() if o[0] == "not-changed"]
        unexpected = [o[1] for o in outcomes.values() if o[0] == "unexpected"]
        lost = sum(1 for counts in counts_by_node.values() for k in acknowledged if k not in counts)
        duplicated = sum(1 for counts in counts_by_node.values() for c in counts.values() if c > 1)
        phantom = sum(1 for counts in counts_by_node.values() for k in not_changed if k in counts)
        unknown_present = sum(1 for k in unknown if k in counts_by_node[1])
        differs = any(counts != counts_by_node[1] for counts in counts_by_node.values())
        resume_times.append(resume)
        for name, value in (("acknowledged", len(acknowledged)), ("unknown", len(unknown)),
                            ("unknown_present", unknown_present), ("retried", retried_answers[0]), ("lost", lost),
                            ("duplicated", duplicated), ("phantom", phantom), ("unexpected", len(unexpected))):
            totals[name] += value
        print(f"round {round_number}/{rounds}: killed node {leader.id}, resumed after {resume:.3f} s; "
              f"acknowledged {len(acknowledged)}, unknown {len(unknown)} ({unknown_present} present), "
              f"retried {retried_answers[0]}, lost {lost}, duplicated {duplicated}, phantom {phantom}, "
              f"unexpected {len(unexpected)}{' ' + unexpected[0][:200] if unexpected else ''}"
              f"{', COPIES DIFFER' if differs else ''}", flush=True)
        if differs:
            totals["lost"] += 1

    times = sorted(resume_times)
    print(f"rounds: {rounds}  resume s: median {statistics.median(times):.3f}, "
          f"p90 {times[min(len(times) - 1, int(len(times) * 0.9))]:.3f}, max {times[-1]:.3f}  "
          + "  ".join(f"{name}: {value}" for name, value in totals.items()))
    sys.exit(1 if totals["lost"] or totals["duplicated"] or totals["phantom"] or totals["unexpected"] else 0)
finally:
    for node in nodes:
        if node.process and node.process.poll() is None:
            node.process.send_signal(signal.SIGKILL)
            node.process.wait()
